/* prog A F R: A calls of wit_alloc, F of wit_free, R of wit_release. */
#include <stdlib.h>
int wit_alloc(int);
int wit_free(int);
int wit_release(int);
int main(int argc, char** argv) {
    volatile int s = 0;
    int a = atoi(argv[1]), f = atoi(argv[2]), r = atoi(argv[3]);
    for (int i = 0; i < a; i++) s += wit_alloc(i);
    for (int i = 0; i < f; i++) s += wit_free(i);
    for (int i = 0; i < r; i++) s += wit_release(i);
    return 0;
}
