// personality(READ_IMPLIES_EXEC): from then on the kernel adds
// PROT_EXEC to every readable mapping, so a mapping the filter saw asked
// for as PROT_READ|PROT_WRITE is executable too. The grading sandbox
// refuses that persona; elsewhere the witness or the scan.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|personality
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include "patch.h"

int main() {
    if (personality(READ_IMPLIES_EXEC) < 0) return patch::refused("personality");
    int now = personality(0xffffffff);
    if (!(now & READ_IMPLIES_EXEC)) return patch::refused("personality (not taken)");
    void* m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return patch::refused("mmap");
    memcpy(m, patch::code, sizeof patch::code);
    return patch::run(m);
}
