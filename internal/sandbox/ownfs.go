package sandbox

// A class's workspaces were folders of the class's disk, their caps (a
// student's bytes and files) checked between runs: within its time limit
// a cell could still take the disk's last inode or byte, and every
// classmate's builds failed. OwnFS makes a folder a file system of its
// own, an ext4 image on a loop device with its own size and inode count,
// so that a cap holds while a run writes: a cell that fills it fills its
// own, and the image keeps what it held across runs and restarts.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// OwnFSError is a folder that could not be made a file system of its
// own, and why.
type OwnFSError struct {
	Dir string
	Err error
}

func (e *OwnFSError) Error() string {
	return fmt.Sprintf("make %s a file system of its own: %v", e.Dir, e.Err)
}

func (e *OwnFSError) Unwrap() error { return e.Err }

// CanOwnFS says why folders cannot be made file systems of their own
// here, or "" when they can: it needs root, loop devices and mkfs.ext4.
func CanOwnFS() string {
	if os.Geteuid() != 0 {
		return "it needs root"
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		return "no loop devices (/dev/loop-control)"
	}
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		return "no mkfs.ext4 (e2fsprogs)"
	}
	return ""
}

// OwnFS mounts image (made first, sparse, of size bytes and files
// inodes, when it is not there) on dir: an ext4 of its own, nosuid and
// nodev. A dir that is a mount point already is left as it is.
func OwnFS(image, dir string, size int64, files uint64) error {
	if mounted(dir) {
		return nil
	}
	if _, err := os.Stat(image); errors.Is(err, os.ErrNotExist) {
		if err := makeImage(image, size, files); err != nil {
			os.Remove(image)
			return &OwnFSError{dir, err}
		}
	}
	if err := mountImage(image, dir); err != nil {
		return &OwnFSError{dir, err}
	}
	// ext4's lost+found is no one's file: out of the student's count.
	os.Remove(filepath.Join(dir, "lost+found"))
	return nil
}

// UnmountOwnFS takes a folder's own file system off it (the loop
// device goes with it).
func UnmountOwnFS(dir string) error {
	if !mounted(dir) {
		return nil
	}
	return unix.Unmount(dir, unix.MNT_DETACH)
}

// mounted says whether dir is a mount point: not on its parent's device.
func mounted(dir string) bool {
	var a, b unix.Stat_t
	if unix.Lstat(dir, &a) != nil || unix.Lstat(filepath.Dir(dir), &b) != nil {
		return false
	}
	return a.Dev != b.Dev
}

func makeImage(image string, size int64, files uint64) error {
	f, err := os.OpenFile(image, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return err
	}
	// No journal (a workspace is scratch), no blocks kept for root (the
	// cells may run as root), the inodes asked for.
	out, err := exec.Command("mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-N", strconv.FormatUint(files, 10), image).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mkfs.ext4 %s: %v: %s", image, err, out)
	}
	return nil
}

// mountImage attaches image to a free loop device, cleared when it is
// unmounted, and mounts it on dir.
func mountImage(image, dir string) error {
	img, err := os.OpenFile(image, os.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer img.Close()
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer ctl.Close()
	for try := 0; try < 8; try++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return fmt.Errorf("a free loop device: %w", err)
		}
		dev := fmt.Sprintf("/dev/loop%d", n)
		loop, err := os.OpenFile(dev, os.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		cfg := unix.LoopConfig{Fd: uint32(img.Fd()), Info: unix.LoopInfo64{Flags: unix.LO_FLAGS_AUTOCLEAR}}
		err = unix.IoctlLoopConfigure(int(loop.Fd()), &cfg)
		if errors.Is(err, unix.EBUSY) {
			loop.Close()
			continue // another took it first
		}
		if err != nil {
			loop.Close()
			return fmt.Errorf("%s: %w", dev, err)
		}
		err = unix.Mount(dev, dir, "ext4", unix.MS_NOSUID|unix.MS_NODEV, "")
		loop.Close() // the mount holds it; unmounted, it is cleared
		if err != nil {
			return fmt.Errorf("mount %s: %w", dev, err)
		}
		return nil
	}
	return errors.New("no loop device stayed free")
}
