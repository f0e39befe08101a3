package exercise

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWorkspace holds the job's workspace for one check at a time and
// returns its release: two checks of one exercise in one course (lessons
// watch and lessons check, two terminals, the page's Check beside either)
// build into one folder and run its program, and each must run the
// program built from its own file. A second check waits for the first;
// ctx ends the wait. Where no lock can be made (a read-only workspace is
// the build's error to report) nothing is held.
func lockWorkspace(ctx context.Context, j *Job) (release func(), err error) {
	nothing := func() {}
	if err := makeDir(j); err != nil {
		return nothing, nil
	}
	f, err := os.OpenFile(filepath.Join(j.Dir, ".lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nothing, nil
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nothing, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nothing, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
