/* skipper SHAPE HOW N: N calls of shape535 or shape580 (libshapes.so)
   made as HOW says:
   - entry:  at the exported entry, as an honest program does;
   - behind: the work function its slot holds, called straight (read
             from the entry's `jmp/call *disp32(%rip)`, as
             review/attack14/driver_table.cu reads the CUDA driver's);
   - past:   the entry past its first instruction (`push %rbp`, done by
             a stub of the program's, which jumps to the second);
   - deep:   the work function past its first instruction.
   The first instruction is read from the file where a uprobe sits (the
   process sees its breakpoint there), as corpus/driver_skip.cu does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filebytes.h"
int shape535(int);
int shape580(int);
void* skip_to;
__attribute__((naked)) int skip_push_rbp(int x) { __asm__ volatile("push %rbp\n\tjmp *skip_to(%rip)"); }
int main(int argc, char** argv) {
    if (argc != 4) return 2;
    int (*entry)(int) = strcmp(argv[1], "535") == 0 ? shape535 : shape580;
    int n = atoi(argv[3]);
    int (*f)(int) = entry;
    if (strcmp(argv[2], "behind") == 0 || strcmp(argv[2], "deep") == 0) f = (int (*)(int))slotOf((const void*)entry);
    if (f == 0) return 3;
    if (strcmp(argv[2], "past") == 0 || strcmp(argv[2], "deep") == 0) {
        skip_to = (char*)f + 1;
        f = skip_push_rbp;
    }
    volatile int s = 0;
    for (int i = 0; i < n; i++) s += f(i);
    printf("%d\n", s);
    return 0;
}
