// An executable stack, asked for by an object's .note.GNU-stack section:
// code written into a local array runs with no system call at all, so
// no filter sees it. Refused before the run, in any runner.
// want: an executable stack
#include <string.h>
#include "patch.h"

asm(".section .note.GNU-stack,\"x\",@progbits\n.previous");

int main() {
    unsigned char buf[16];
    memcpy(buf, patch::code, sizeof patch::code);
    return patch::run(buf);
}
