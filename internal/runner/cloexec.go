package runner

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseOnExec marks every descriptor of this process above 2
// close-on-exec, so that a program started next gets its ExtraFiles
// (exec.Cmd puts them in place without the mark) and none of the tool's
// others. Go opens its own with O_CLOEXEC; a C library (NVML, the CUDA
// driver) or the tool's own parent may not have, and a program of a
// course or a student run without a sandbox would read or write through
// them. Marked, not closed: the tool goes on using them. A descriptor a
// C library opens between this and the fork can still pass; nothing of
// Go's can.
func CloseOnExec() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	// Before Linux 5.11: one by one.
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
