/* tprog E B: E calls of tramp_alloc at its entry, and B calls of what its
   slot holds, read from the trampoline's `jmp *disp32(%rip)` as
   review/attack14/driver_table.cu reads the CUDA driver's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int tramp_alloc(int);
int main(int argc, char** argv) {
    volatile int s = 0;
    int e = atoi(argv[1]), b = atoi(argv[2]);
    for (int i = 0; i < e; i++) s += tramp_alloc(i);
    const unsigned char* c = (const unsigned char*)&tramp_alloc;
    int (*work)(int) = 0;
    for (int i = 0; i < 32 && work == 0; i++)
        if (c[i] == 0xff && c[i + 1] == 0x25) {
            int32_t disp;
            memcpy(&disp, c + i + 2, 4);
            work = *(int (**)(int))(c + i + 6 + disp);
        }
    if (work == 0) return 2;
    for (int i = 0; i < b; i++) s += work(i);
    return 0;
}
