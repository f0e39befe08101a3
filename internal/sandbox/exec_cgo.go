//go:build cgo

package sandbox

/*
#include <stdlib.h>
#include <unistd.h>
*/
import "C"

import "unsafe"

// execve replaces this process with prog through the C library's
// execve, not the raw system call: in a binary linked with the C
// library, compute-sanitizer's launcher is preloaded into the helper too,
// and follows its target across the exec only when it sees it there (on
// the H100, through the raw call it reported "Target application
// terminated before first instrumented API call", and found nothing).
func execve(prog string, argv, env []string) error {
	cargv, cenv := cStrings(argv), cStrings(env)
	cprog := C.CString(prog)
	_, err := C.execve(cprog, &cargv[0], &cenv[0])
	// Still here: it failed.
	C.free(unsafe.Pointer(cprog))
	for _, p := range append(cargv, cenv...) {
		C.free(unsafe.Pointer(p))
	}
	return err
}

// cStrings is a NULL-terminated array of C strings.
func cStrings(ss []string) []*C.char {
	out := make([]*C.char, len(ss)+1)
	for i, s := range ss {
		out[i] = C.CString(s)
	}
	return out
}
