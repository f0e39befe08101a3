// Descriptor and pipe forgery: the program finds the record's pipe among
// its descriptors (the library moved it high) and writes a record of its
// own making into it, signed with a key it guessed. The grader reads a
// frame the library did not write.
// want: a frame the library did not write
#include <stdio.h>
#include <sys/stat.h>
#include "forge.h"

int main() {
    uint8_t k[32] = {0};
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) forge::send(fd, k);
    }
    printf("one allocation asked for\n");
    return 0;
}
