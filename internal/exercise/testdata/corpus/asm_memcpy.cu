// memcpy defined in top-level assembly: a symbol with no .type is
// STT_NOTYPE, which the inspection did not look at. The linker exports it
// (libstdc++ and the CUDA runtime import memcpy), the loader binds every
// library's memcpy to it, and the statistics library's copy of its record
// into a frame runs it: the record says one cudaMalloc, before it is signed.
// want: the program defines memcpy
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

extern "C" __attribute__((used)) void* forgeCopy(void* d, const void* s, size_t n) {
    volatile uint8_t* dd = (volatile uint8_t*)d;
    const uint8_t* ss = (const uint8_t*)s;
    for (size_t i = 0; i < n; i++) dd[i] = ss[i];
    if (n >= 3 * 8 && ((const uint64_t*)s)[0] == 0x5354415453534c4cULL) ((volatile uint64_t*)d)[2] = 1;
    return d;
}

__asm__(".globl memcpy\nmemcpy:\n\tjmp forgeCopy\n");

int main() {
    printf("one allocation asked for\n");
    return 0;
}
