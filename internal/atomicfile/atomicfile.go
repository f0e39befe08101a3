// Package atomicfile writes files whole or not at all: into a temporary
// file beside the target, synced, then renamed over it, and the rename
// synced, so that a reader (on this machine or, over a shared
// filesystem, another), a run killed half way or a machine that dies
// right after sees the old file or the new one, never half a file.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to name with perm, atomically.
func Write(name string, data []byte, perm os.FileMode) error {
	return WriteFrom(name, bytes.NewReader(data), perm)
}

// WriteFrom writes what r holds to name with perm, atomically.
func WriteFrom(name string, r io.Reader, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(name)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
