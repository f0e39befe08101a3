//go:build !cgo

package sandbox

import "syscall"

// execve replaces this process with prog. Without cgo this binary is
// static: nothing is preloaded into it to see the exec.
func execve(prog string, argv, env []string) error { return syscall.Exec(prog, argv, env) }
