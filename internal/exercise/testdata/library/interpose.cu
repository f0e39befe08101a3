// A program that does no CUDA work and defines memcpy: the statistics
// library's own call reaches this copy (the program comes first in the
// loader's order, before the preloaded library), which changes the record
// as the library copies it into a frame, before the frame is signed:
// pools_created, the 22nd figure, reads 1. No key, no /proc, nothing the
// source scan names.
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

extern "C" void* memcpy(void* d, const void* s, size_t n) {
    volatile unsigned char* dd = (volatile unsigned char*)d;
    const unsigned char* ss = (const unsigned char*)s;
    for (size_t i = 0; i < n; i++) dd[i] = ss[i];
    if (n >= 22 * 8 && ((const uint64_t*)s)[0] == 0x5354415453534c4cULL) ((uint64_t*)d)[21] = 1;
    return d;
}

int main() {
    printf("one pool created\n");
    return 0;
}
