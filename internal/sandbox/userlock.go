package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// A run's own user is killed whole when the run ends (killUser): two runs
// as one user, from two graders or class servers on one machine (two GPU
// pilots of one node, a class and a grade), would kill each other's
// processes. Each run holds its user's lock, a file lock the kernel drops
// with the process, from its start to the end of its user's kill; those
// who choose a user take one nobody holds (UserFree).

// userLockDir is where the users' locks are: root's alone (only root runs
// as other users), never where a run may write.
func userLockDir() string {
	for _, d := range []string{"/run/lessons-users", filepath.Join(os.TempDir(), "lessons-users")} {
		if err := os.MkdirAll(d, 0o700); err == nil {
			if st, err := os.Lstat(d); err == nil && st.IsDir() && st.Mode().Perm() == 0o700 {
				if s, ok := st.Sys().(*syscall.Stat_t); ok && s.Uid == 0 {
					return d
				}
			}
		}
	}
	return ""
}

// lockUser takes uid's lock, waiting for it when wait, and returns its
// release; ok is false when another holds it (not waiting) or there is
// no place for locks (then nothing is held and release does nothing).
func lockUser(uid int, wait bool) (release func(), ok bool) {
	nothing := func() {}
	d := userLockDir()
	if d == "" {
		return nothing, true
	}
	f, err := os.OpenFile(filepath.Join(d, strconv.Itoa(uid)), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nothing, true
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nothing, false
	}
	return func() { f.Close() }, true
}

// UserFree tells whether uid may be a new run's user now: no process is
// left of it (zombies included: they count against its process limit)
// and no run holds it.
func UserFree(uid int) bool {
	if Busy(uid) {
		return false
	}
	release, ok := lockUser(uid, false)
	release()
	return ok
}
