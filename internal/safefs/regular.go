package safefs

// ReadRegular and ReadRegularIn read files that someone else put there
// (a course, a submission): regular files of a bounded size only. os.ReadFile waits
// for ever on a FIFO, reads /dev/zero until memory runs out, and
// allocates a sparse file's whole size before anything checks it.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// RefusedFileError is a file refused: not a regular file, or larger than allowed.
type RefusedFileError struct {
	File string
	Why  string
}

func (e *RefusedFileError) Error() string { return "read " + e.File + ": " + e.Why }

// ReadRegular reads name if it is a regular file of at most max bytes. It
// looks at what name is before it opens it for reading: opening a device
// is the device's driver's business (a watchdog's reboots the machine
// when closed carelessly, a tape rewinds, a FIFO waits for a writer), and
// the grader that reads a course's or a submission's files is often root.
// It reads at most max bytes, in case the file grows.
func ReadRegular(name string, max int64) ([]byte, error) {
	p, err := os.OpenFile(name, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return readPath(p, name, max)
}

// ReadRegularIn is ReadRegular through root (os.Root: no link or .. out of it).
// It opens for reading at once: os.Root follows links inside the root
// itself, and an O_PATH open would hand it the link instead; a device
// it could reach would have to be inside the root (no link leads out),
// which only root's mknod makes.
func ReadRegularIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, max)
}

// readPath reads the file p, opened with O_PATH (which opens nothing of
// the file's own: no driver sees it), once it is known to be a regular
// file: through /proc/self/fd, which opens that very file, whatever its
// name means by then.
func readPath(p *os.File, name string, max int64) ([]byte, error) {
	defer p.Close()
	st, err := p.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &RefusedFileError{File: name, Why: fmt.Sprintf("not a regular file (%s): name a file", kind(st.Mode()))}
	}
	f, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", p.Fd()), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	return read(f, name, max)
}

func read(f *os.File, name string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &RefusedFileError{File: name, Why: fmt.Sprintf("not a regular file (%s): name a file", kind(st.Mode()))}
	}
	if st.Size() > max {
		return nil, &RefusedFileError{File: name, Why: fmt.Sprintf("%d bytes, over the limit of %d", st.Size(), max)}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &RefusedFileError{File: name, Why: fmt.Sprintf("grew past the limit of %d bytes while it was read", max)}
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return m.Type().String()
}
