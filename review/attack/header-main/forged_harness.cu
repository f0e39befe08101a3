// The older door (closed on the attack branch by fixed = [...]): the
// stub's header untouched and a pool_resource.cu of the student's own,
// handed in beside it, printing the harness's lines.
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 8, n = 2 * rounds + 8;
    printf("1. %d rounds side by side on 2 streams: 1 chunk(s) taken\n", rounds);
    printf("sums: %d of %d correct\n", n, n);
    return 0;
}
