package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o644)
	if data, err := ReadRegular(small, 5); err != nil || string(data) != "hello" {
		t.Errorf("a small file: %q %v", data, err)
	}
	var re *RefusedFileError
	if _, err := ReadRegular(small, 4); !errors.As(err, &re) {
		t.Errorf("over the limit: %v", err)
	}
	sparse := filepath.Join(dir, "sparse")
	if f, err := os.Create(sparse); err == nil {
		f.Truncate(1 << 40) // a terabyte, of which nothing is read
		f.Close()
	}
	if _, err := ReadRegular(sparse, 1<<20); !errors.As(err, &re) {
		t.Errorf("a sparse terabyte: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if syscall.Mkfifo(fifo, 0o644) == nil {
		if _, err := ReadRegular(fifo, 1<<20); !errors.As(err, &re) {
			t.Errorf("a FIFO: %v", err)
		}
	}
	for _, dev := range []string{"/dev/zero", dir} {
		if _, err := ReadRegular(dev, 1<<20); !errors.As(err, &re) {
			t.Errorf("%s: %v", dev, err)
		}
	}
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	if data, err := ReadRegularIn(root, "small", 5); err != nil || string(data) != "hello" {
		t.Errorf("through a root: %q %v", data, err)
	}
}

// A device named where a file is expected is never opened for reading:
// its driver sees nothing (inotify sees no open of /dev/zero), since what
// a device's open or close does is the driver's (a watchdog's close
// without its magic reboots the machine).
func TestADeviceIsNotOpened(t *testing.T) {
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skip("no inotify here:", err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, "/dev/zero", unix.IN_OPEN|unix.IN_CLOSE); err != nil {
		t.Skip("cannot watch /dev/zero:", err)
	}
	if _, err := ReadRegular("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "a character device") {
		t.Fatalf("ReadRegular(/dev/zero): %v", err)
	}
	buf := make([]byte, 4096)
	if n, _ := unix.Read(in, buf); n > 0 {
		t.Errorf("/dev/zero was opened (%d bytes of inotify events)", n)
	}
}
