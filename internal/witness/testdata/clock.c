// clock asks to set the realtime clock in a way the kernel refuses
// (tv_nsec out of range, or no CAP_SYS_TIME), by the system call its
// argument names, or reads it by adjtimex (read); TestCountsClockSettings.
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *way = argc > 1 ? argv[1] : "read";
    struct timespec bad = {0, -1};
    struct timeval badv = {0, -1};
    struct timex tx;
    memset(&tx, 0, sizeof tx);
    if (!strcmp(way, "settime")) return syscall(SYS_clock_settime, CLOCK_REALTIME, &bad) == 0;
    if (!strcmp(way, "settimeofday")) return syscall(SYS_settimeofday, &badv, NULL) == 0;
    if (!strcmp(way, "adjtime")) {
        tx.modes = ADJ_SETOFFSET | ADJ_NANO;
        tx.time.tv_usec = -1;  // out of range: refused
        return syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx) == 0;
    }
    return syscall(SYS_adjtimex, &tx) < 0;
}
