//go:build !amd64

package runner

var archSyscallNames = map[int]string{}
