// W^X by aliasing, with no call the filter looked at refused: an
// anonymous shared mapping asked for read and execute (never writable,
// so mmap's rule let it through), a second mapping of the same pages
// made by mremap with an old size of 0 (which duplicates a shared
// mapping), that second one made writable (mprotect adds no PROT_EXEC),
// the code written through it and run through the first. Before, the
// grading sandbox let every step through; it refuses now any executable
// mapping that is shared (anonymous, /dev/zero's or a file's): the only
// kind a second mapping can write. Elsewhere the witness or the scan.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|PROT_EXEC|the program ran code from a file written during its run
// in the sandbox's filter: exit status 71
#include <string.h>
#include <sys/mman.h>
#include "patch.h"

int main() {
    void* x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (x == MAP_FAILED) return patch::refused("mmap shared, read and execute");
    void* w = mremap(x, 0, 4096, MREMAP_MAYMOVE);
    if (w == MAP_FAILED) return patch::refused("mremap");
    if (mprotect(w, 4096, PROT_READ | PROT_WRITE) != 0) return patch::refused("mprotect");
    memcpy(w, patch::code, sizeof patch::code);
    return patch::run(x);
}
