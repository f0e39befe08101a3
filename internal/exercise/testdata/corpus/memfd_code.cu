// Code written into a memfd (write(2), no mapping writable and
// executable at once), then mapped executable: the filter's mmap rule
// sees PROT_READ|PROT_EXEC of a file and would let it through. The
// grading sandbox refuses memfd_create; elsewhere only the outside
// witness (no cudaMalloc made, one claimed) or the source scan catch it.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|memfd_create|the program ran code from a file written during its run
#include <sys/mman.h>
#include <unistd.h>
#include "patch.h"

int main() {
    int fd = memfd_create("code", 0);
    if (fd < 0) return patch::refused("memfd_create");
    if (write(fd, patch::code, sizeof patch::code) != (ssize_t)sizeof patch::code) return patch::refused("write");
    void* m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return patch::refused("mmap");
    return patch::run(m);
}
