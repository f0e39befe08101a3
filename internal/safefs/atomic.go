package safefs

// The WriteAtomic functions write files whole or not at all: into a
// temporary file beside the target, synced, then renamed over it, and the rename
// synced, so that a reader (on this machine or, over a shared
// filesystem, another), a run killed half way or a machine that dies
// right after sees the old file or the new one, never half a file.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAtomic writes data to name with perm, atomically.
func WriteAtomic(name string, data []byte, perm os.FileMode) error {
	return WriteAtomicFrom(name, bytes.NewReader(data), perm)
}

// WriteAtomicWith writes to name with perm, atomically, what f writes; nothing
// when f fails.
func WriteAtomicWith(name string, f func(io.Writer) error, perm os.FileMode) error {
	var buf bytes.Buffer
	if err := f(&buf); err != nil {
		return err
	}
	return WriteAtomic(name, buf.Bytes(), perm)
}

// WriteAtomicFrom writes what r holds to name with perm, atomically.
func WriteAtomicFrom(name string, r io.Reader, perm os.FileMode) error {
	return writeFrom(name, r, perm, true)
}

// ReplaceFrom writes what r holds to name with perm, as WriteAtomicFrom
// does but without waiting for the disk: for a file that is made again
// whenever it is missing or wrong (a build copied out of the compile
// cache into a workspace, on every warm run of a cell). A reader or a
// run killed half way still sees the old file or the new one; a machine
// that dies right after may leave it empty, and the next build copies it
// again. Two syncs on each cache hit were most of a warm build's time
// on a virtual machine's disk.
func ReplaceFrom(name string, r io.Reader, perm os.FileMode) error {
	return writeFrom(name, r, perm, false)
}

func writeFrom(name string, r io.Reader, perm os.FileMode, sync bool) error {
	root, err := os.OpenRoot(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer root.Close()
	err = writeIn(root, filepath.Base(name), r, perm, sync)
	if pe, ok := err.(*fs.PathError); ok {
		pe.Path = filepath.Join(filepath.Dir(name), pe.Path)
	}
	return err
}

// WriteAtomicIn writes what r holds to name beneath root with perm, atomically.
// Every step goes through root, so that a name (or a link on its way)
// that leads out of root is refused rather than followed: the one write
// for files whose names come from a course or a lesson.
func WriteAtomicIn(root *os.Root, name string, r io.Reader, perm os.FileMode) error {
	return writeIn(root, name, r, perm, true)
}

func writeIn(root *os.Root, name string, r io.Reader, perm os.FileMode, sync bool) error {
	dir, base := filepath.Split(name)
	b := make([]byte, 6)
	rand.Read(b)
	tmp := filepath.Join(dir, "."+base+"."+hex.EncodeToString(b)+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if err == nil && sync {
		err = f.Sync()
	}
	if err == nil {
		// Through the descriptor, not the name: a name can be swapped
		// for a link between two calls.
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	if !sync {
		return nil
	}
	if dir == "" {
		dir = "."
	}
	if d, err := root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteNamed is what a command's "write it to NAME" does: nothing for "",
// f to stdout for "-", else the file written whole or not at all, and
// "wrote NAME" said to log.
func WriteNamed(name string, stdout, log io.Writer, f func(io.Writer) error) error {
	switch name {
	case "":
		return nil
	case "-":
		return f(stdout)
	}
	if err := WriteAtomicWith(name, f, 0o644); err != nil {
		return err
	}
	_, err := fmt.Fprintf(log, "wrote %s\n", name)
	return err
}
