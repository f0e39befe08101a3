package runner

import "golang.org/x/sys/unix"

// archSyscallNames are the calls only this architecture has (arm64 has
// ppoll and epoll_pwait alone).
var archSyscallNames = map[int]string{
	unix.SYS_POLL: "poll", unix.SYS_SELECT: "select", unix.SYS_EPOLL_WAIT: "epoll_wait",
	unix.SYS_PAUSE: "pause",
}
