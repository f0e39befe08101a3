// A library that calls the CUDA runtime, loaded by local.c with
// RTLD_LOCAL: its runtime is then in no scope the preloaded statistics
// library can look in, as an extension module's runtime is in Python.
#include <stddef.h>
int cudaMalloc(void** p, size_t n);
int user_alloc(void) {
    void* p = 0;
    return cudaMalloc(&p, 64);
}
