// Code written to a file in the run's folder, then mapped executable, as
// dlopen of a library the program wrote would map it. The grading
// sandbox's folder is a noexec file system of the run's own (only what
// the grader put there runs); elsewhere the witness or the scan.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|PROT_EXEC|the program ran code from a file written during its run
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "patch.h"

int main() {
    int fd = open("payload.so", O_RDWR | O_CREAT | O_TRUNC, 0755);
    if (fd < 0) return patch::refused("open payload.so");
    if (write(fd, patch::code, sizeof patch::code) != (ssize_t)sizeof patch::code) return patch::refused("write");
    void* m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return patch::refused("mmap payload.so executable");
    return patch::run(m);
}
