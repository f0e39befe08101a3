// A section made writable and executable ("awx") in the program's own
// image: the kernel maps it so at exec, before any call a filter could
// refuse. Refused before the run, in any runner.
// want: a segment both writable and executable
#include <string.h>
#include "patch.h"

__attribute__((section(".lessons_wx,\"awx\",@progbits #"))) static unsigned char wx[16];

int main() {
    memcpy(wx, patch::code, sizeof patch::code);
    return patch::run(wx);
}
