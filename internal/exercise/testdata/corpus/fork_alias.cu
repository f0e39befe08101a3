// shared_alias.cu without mremap: the anonymous shared mapping, read and
// execute, is made writable in a child the program forks (mprotect of
// the child's own view, no PROT_EXEC asked), which writes the code; the
// parent, whose view of the same pages is still executable, runs it.
// Before, the grading sandbox let every step through; it refuses now any
// executable mapping that is shared. Elsewhere the witness or the scan.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|fork|the program ran code from a file written during its run
// in the sandbox's filter: exit status 71
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "patch.h"

int main() {
    void* x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (x == MAP_FAILED) return patch::refused("mmap shared, read and execute");
    pid_t pid = fork();
    if (pid == 0) {
        if (mprotect(x, 4096, PROT_READ | PROT_WRITE) != 0) _exit(1);
        memcpy(x, patch::code, sizeof patch::code);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return patch::refused("mprotect in the child");
    return patch::run(x);
}
