package exercise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxRecord bounds what is read back from a run's folder: a sanitizer's
// log is small, and a program may have made it anything.
const maxRecord = 16 << 20

// readRunFile reads a file the run left in its folder (a sanitizer's log,
// where the grader could not keep it out of the run's reach). The folder belongs to the program, which a
// grade does not trust: a link there could point the grader at a file
// the program itself may not read (a solution's secret spec), so links
// and anything but a plain file are refused, and at most maxRecord bytes
// are read.
func readRunFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a link, not the file the run writes", path)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a plain file", path)
	}
	return io.ReadAll(io.LimitReader(f, maxRecord))
}
