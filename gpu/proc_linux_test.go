package gpu

import "syscall"

func newGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
