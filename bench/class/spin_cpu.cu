// Hostile: loops forever on the CPU.
#include <cstdio>
int main() {
    printf("12 iterations on 4 streams\n");
    fflush(stdout);
    volatile unsigned long x = 0;
    for (;;) x++;
}
