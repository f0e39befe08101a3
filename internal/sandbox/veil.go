package sandbox

// A class's students are folders side by side (students/ann,
// students/bob), and a cell's run may pass through students/ to reach
// its own workspace: Landlock has no right for stat, so a cell saw a
// classmate's files by stat (their size and time: their progress). So,
// where the helper has a mount namespace of its own, Policy.Veil is
// covered there with an empty tmpfs holding only the way down to the
// run's folder, and the folder itself bound back in place: whatever else
// was under Veil is not there, even for stat.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// veil covers p.Veil with a tmpfs that holds only the path to p.Dir, the
// folder itself bound there. The caller must have a mount namespace of
// its own and CAP_SYS_ADMIN in it.
func veil(p Policy) error {
	rel, err := filepath.Rel(p.Veil, p.Dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return fmt.Errorf("veiling %s: the run's folder %s is not under it", p.Veil, p.Dir)
	}
	// Opened before the tmpfs hides it: bound back through its descriptor.
	dir, err := unix.Open(p.Dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("veiling %s: the run's folder: %w", p.Veil, err)
	}
	defer unix.Close(dir)
	if err := unix.Mount("tmpfs", p.Veil, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=64k,nr_inodes=64,mode=0711"); err != nil {
		return fmt.Errorf("veiling %s: %w", p.Veil, err)
	}
	at := p.Veil
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		if err := os.Mkdir(at, 0o711); err != nil {
			return &mountedError{fmt.Errorf("veiling %s: %w", p.Veil, err)}
		}
	}
	if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", dir), at, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return &mountedError{fmt.Errorf("veiling %s: binding the run's folder back: %w", p.Veil, err)}
	}
	// The tmpfs's folders are read-only from here on: the run makes
	// nothing beside its folder.
	if err := unix.Mount("", p.Veil, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return &mountedError{fmt.Errorf("veiling %s: %w", p.Veil, err)}
	}
	if cwd, err := os.Getwd(); err == nil {
		os.Chdir(cwd) // through the bound folder
	}
	return nil
}
