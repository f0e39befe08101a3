package sandbox

// A run's folder was a folder of the grading disk: a program could make
// files in it until the file system had no inode left (the size limit
// caps a file, not how many), and every build and run beside it, a
// classmate's, then failed. So, where the helper has a mount namespace of
// its own (a root grader's worker user, or a user grader's pid
// namespace), the folder is a tmpfs of its own there, of at most
// DirFiles files and DirBytes bytes, holding a copy of what the grader
// put in it; it ends with the run's last process. The grader reads
// nothing the program writes there (its record comes over a pipe, the
// sanitizer's log is in a folder beside), and the tmpfs's pages are
// charged to the run's cgroup, within its memory limit.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ownMounts makes the run's folder and /dev its own where p says so.
// Where a mount is refused (a container's rules), the run goes on
// without it, in the folder and /dev the grader gave it: Landlock still
// keeps it to the files its policy names, and the probe of the sandbox,
// which starts the same way, says what it found (Report.DirFiles,
// Report.OwnDev), never what was merely asked for.
func ownMounts(p Policy) error {
	if p.Veil != "" {
		// Before the folder's own file system: that is mounted on the
		// folder bound under the veil.
		_ = undoing(p.Veil, veil(p))
	}
	if p.OwnDir {
		_ = undoing(p.Dir, ownDir(p))
	}
	if p.OwnDev && p.DevDir != "" {
		_ = undoing(p.DevDir, ownDev(p))
	}
	return nil
}

// undoing takes back a mount on dir that failed half way, leaving what
// was there before it.
func undoing(dir string, err error) error {
	var m *mountedError
	if errors.As(err, &m) {
		unix.Unmount(dir, unix.MNT_DETACH)
	}
	return err
}

// mountedError is an error after the mount was made.
type mountedError struct{ err error }

func (e *mountedError) Error() string { return e.err.Error() }
func (e *mountedError) Unwrap() error { return e.err }

// ownDir mounts p.Dir's tmpfs over it, with a copy of what it held, and
// enters it again where this process was (its working folder is in it).
// The caller must have a mount namespace of its own and CAP_SYS_ADMIN in
// it.
func ownDir(p Policy) error {
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("the run's folder: %w", err)
	}
	// Opened before the mount hides it: the copy is read through it.
	old, err := os.OpenRoot(p.Dir)
	if err != nil {
		return fmt.Errorf("the run's folder: %w", err)
	}
	defer old.Close()
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0700,uid=%d,gid=%d", p.DirBytes, p.DirFiles, os.Getuid(), os.Getgid())
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV)
	if p.NoWriteExec {
		// Nothing the program writes there is mapped executable
		// (mmap's PROT_EXEC, dlopen, execve): only what the grader put
		// there runs (runnable below).
		flags |= unix.MS_NOEXEC
	}
	if err := unix.Mount("tmpfs", p.Dir, "tmpfs", flags, opts); err != nil {
		return fmt.Errorf("mounting the run's folder %s (%s): %w", p.Dir, opts, err)
	}
	err = fs.WalkDir(old.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		to := filepath.Join(p.Dir, name)
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm())
		case info.Mode().IsRegular():
			perm := info.Mode().Perm()
			if !p.NoWriteExec || !runnable(name, perm) {
				return copyInto(old, name, to, perm)
			}
			if filepath.Ext(name) != ".so" && isELF(old, name) {
				// A script is read by its interpreter: it stays readable.
				perm = 0o111
			}
			if err := copyInto(old, name, to, perm); err != nil {
				return err
			}
			return runnableMount(to)
		}
		return nil // the grader puts no other kind there
	})
	if err != nil {
		return &mountedError{fmt.Errorf("copying the run's folder into its own file system: %w", err)}
	}
	if err := os.Chdir(cwd); err != nil {
		return &mountedError{err}
	}
	return nil
}

// runnable says whether a file the grader put in the run's folder is
// code: the program (executable) or the statistics library (.so).
func runnable(name string, perm os.FileMode) bool {
	return perm&0o111 != 0 || filepath.Ext(name) == ".so"
}

// runnableMount makes the file at path, in the run's noexec file system,
// a read-only mount of its own that may be executed: the program cannot
// change, rename or remove it (nor, the program's binary being
// executable only, chmod it to be read: a binary its user cannot read
// makes the process that runs it not dumpable, so that its /proc/PID/mem
// and those of its children are root's, and ptrace_may_access refuses
// them; the kernel reads the binary all the same).
func runnableMount(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND, ""); err != nil {
		return &mountedError{fmt.Errorf("binding %s: %w", path, err)}
	}
	if err := unix.Mount("", path, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		unix.Unmount(path, unix.MNT_DETACH)
		return &mountedError{fmt.Errorf("making %s read-only and runnable: %w", path, err)}
	}
	return nil
}

// isELF says whether the file name in root starts as an ELF object does.
func isELF(root *os.Root, name string) bool {
	f, err := root.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == "\x7fELF"
}

func copyInto(from *os.Root, name, to string, mode os.FileMode) error {
	in, err := from.Open(name)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if e := out.Close(); err == nil {
		err = e
	}
	return err
}
