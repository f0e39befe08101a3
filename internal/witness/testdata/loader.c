/* loader LIB N: N calls of wit_alloc in the library file LIB, loaded
   by dlopen (a program's own copy of a library). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
    void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    int (*f)(int) = (int (*)(int))dlsym(h, "wit_alloc");
    if (f == NULL) return 2;
    volatile int s = 0;
    for (int i = 0, n = atoi(argv[2]); i < n; i++) s += f(i);
    return 0;
}
