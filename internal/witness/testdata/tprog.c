/* tprog E B: E calls of tramp_alloc at its entry, and B calls of what its
   slot holds, read from the trampoline's `jmp *disp32(%rip)` in its
   file, as review/attack14/driver_table.cu reads the CUDA driver's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filebytes.h"
int tramp_alloc(int);
int main(int argc, char** argv) {
    volatile int s = 0;
    int e = atoi(argv[1]), b = atoi(argv[2]);
    for (int i = 0; i < e; i++) s += tramp_alloc(i);
    int (*work)(int) = (int (*)(int))slotOf((const void*)&tramp_alloc);
    if (work == 0) return 2;
    for (int i = 0; i < b; i++) s += work(i);
    return 0;
}
