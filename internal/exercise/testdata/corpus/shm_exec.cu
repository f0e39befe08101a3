// System V shared memory attached twice: once writable, once executable
// (SHM_EXEC), so that no one mapping is both. The grading sandbox
// refuses SHM_EXEC; elsewhere the witness or the scan.
// needs: witness
// want: the statistics record does not match what the kernel saw|exit status 71|shmat|the program ran code from a file written during its run
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include "patch.h"

int main() {
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0700);
    if (id < 0) return patch::refused("shmget");
    void* w = shmat(id, NULL, 0);
    void* x = shmat(id, NULL, SHM_EXEC | SHM_RDONLY);
    shmctl(id, IPC_RMID, NULL);
    if (w == (void*)-1 || x == (void*)-1) return patch::refused("shmat");
    memcpy(w, patch::code, sizeof patch::code);
    return patch::run(x);
}
