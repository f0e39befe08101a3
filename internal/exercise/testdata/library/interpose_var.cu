// A program that defines _r_debug, the loader's list of what is mapped,
// which the statistics library reads to count copies of the CUDA runtime
// and link namespaces: the library would read the program's, whatever it
// holds.
#include <link.h>
#include <stdio.h>

struct r_debug _r_debug;

int main() {
    printf("%d\n", _r_debug.r_version);
    return 0;
}
