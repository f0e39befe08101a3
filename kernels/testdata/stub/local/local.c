// Loads libuser.so (and with it the runtime) with RTLD_LOCAL and calls it.
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
    void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    int (*f)(void) = (int (*)(void))dlsym(h, "user_alloc");
    printf("user_alloc: %d\n", f());
    return 0;
}
