// The statistics library unloaded in the middle of the run: after the
// one honest cudaMalloc, the program asks the loader for the library's
// handle (dlopen RTLD_NOLOAD, found by its file name in /proc/self/maps)
// and dlclose's it until the loader gives up, so that the library's
// destructor sends its end frame (one cudaMalloc) early; then the
// runtime's own cudaMalloc (dlsym on the runtime's handle, RTLD_NEXT-free)
// a hundred times, with nothing of the library left to count them.
// want: exit status 72|does not follow|after|the statistics record does not match what the kernel saw
// forged when it prints: unloaded
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    char path[512] = {0};
    FILE* f = fopen("/proc/self/maps", "r");
    char line[768];
    while (f && fgets(line, sizeof line, f)) {
        char* s = strchr(line, '/');
        if (s && strstr(s, "liballocstats")) { strncpy(path, s, sizeof path - 1); path[strcspn(path, "\n")] = 0; break; }
    }
    if (f) fclose(f);
    void* h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    int closes = 0;
    while (h && closes < 64 && dlclose(h) == 0) closes++;
    Dl_info d;
    bool gone = dladdr((void*)(cudaError_t(*)(void**, size_t))cudaMalloc, &d) == 0 || d.dli_fname == NULL || strstr(d.dli_fname, "liballocstats") == NULL;
    void* rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (!rt) rt = dlopen("libcudart.so.12", RTLD_NOW | RTLD_NOLOAD);
    if (!rt) rt = dlopen("libcudart.so.11.0", RTLD_NOW | RTLD_NOLOAD);
    auto real = rt ? (cudaError_t(*)(void**, size_t))dlsym(rt, "cudaMalloc") : NULL;
    if (real && gone) {
        for (int i = 0; i < 100; i++) real(&p, 1 << 20);
        printf("unloaded after %d dlclose\n", closes);
    }
    printf("one allocation asked for\n");
    return 0;
}
