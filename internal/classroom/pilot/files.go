package pilot

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cudalessons/lessons/internal/safefs"
)

// Kept are a workspace's folders that stay where they are made: the
// cells' build cache, their temporary files and the nvcc wrapper are
// each machine's own, never sent.
var Kept = []string{".lessons-cache", ".tmp", ".lessons-bin"}

// The most a workspace sends with a run, or back with a result: a
// workspace that holds more (a cell that writes gigabytes) sends its
// first files up to the limits, and the result says it was cut.
const (
	MaxFiles     = 2000
	MaxFileBytes = 64 << 20
	MaxBytes     = 256 << 20
)

// ErrTooBig is a workspace past the limits.
var ErrTooBig = errors.New("pilot: the workspace holds more than a run carries")

// Snapshot is the regular files of dir (Kept left out, links never
// followed), with their content by hash.
func Snapshot(dir string) ([]File, map[string][]byte, error) {
	var files []File
	blobs := map[string][]byte{}
	var total int64
	var tooBig bool
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if kept(rel) {
			// SkipDir on a file would skip the rest of its folder: every
			// name after a Kept name made a file (".tmp" sorts first)
			// would read as removed, and be removed from the server's copy.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > MaxFileBytes || total+info.Size() > MaxBytes || len(files) >= MaxFiles {
			tooBig = true
			return nil
		}
		data, err := safefs.ReadFile(dir, rel)
		if err != nil {
			return err
		}
		total += int64(len(data))
		h := Hash(data)
		blobs[h] = data
		files = append(files, File{Name: rel, Mode: uint32(info.Mode().Perm()), Hash: h, Size: int64(len(data))})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("pilot: read the workspace %s: %w", dir, err)
	}
	if tooBig {
		return files, blobs, ErrTooBig
	}
	return files, blobs, nil
}

func kept(rel string) bool {
	top, _, _ := strings.Cut(rel, "/")
	for _, k := range Kept {
		if top == k {
			return true
		}
	}
	return false
}

// CheckName refuses a file's name that is not a plain relative path
// inside its folder (a worker's or a server's: each checks the other's).
func CheckName(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == "." || strings.HasPrefix(name, "../") || name == ".." || strings.ContainsRune(name, 0) || strings.Contains(name, "\\") {
		return fmt.Errorf("pilot: file name %q is not a plain path inside its folder", name)
	}
	return safefs.Local(name)
}

// Diff is what changed in dir since it held files: the files written or
// changed, with their content, and those removed.
func Diff(dir string, before []File) (changed []FileData, removed []string, cut bool, err error) {
	after, blobs, err := Snapshot(dir)
	if errors.Is(err, ErrTooBig) {
		cut, err = true, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	was := map[string]File{}
	for _, f := range before {
		was[f.Name] = f
	}
	for _, f := range after {
		if o, ok := was[f.Name]; !ok || o.Hash != f.Hash || o.Mode != f.Mode {
			changed = append(changed, FileData{Name: f.Name, Mode: f.Mode, Data: blobs[f.Hash]})
		}
		delete(was, f.Name)
	}
	if !cut {
		for n := range was {
			removed = append(removed, n)
		}
	}
	sort.Strings(removed)
	return changed, removed, cut, nil
}

// Apply writes a result's files into dir (the server's workspace) and
// removes those removed; every name is checked to lie inside dir.
func Apply(dir string, changed []FileData, removed []string) error {
	var errs []error
	for _, f := range changed {
		if err := CheckName(f.Name); err != nil || kept(f.Name) {
			errs = append(errs, fmt.Errorf("pilot: the worker sent %q: not written", f.Name))
			continue
		}
		if d := path.Dir(f.Name); d != "." {
			if _, err := safefs.Dir(dir, d); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if err := safefs.WriteFile(dir, f.Name, f.Data, fs.FileMode(f.Mode&0o755|0o600)); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range removed {
		if CheckName(n) != nil || kept(n) {
			continue
		}
		if err := safefs.Remove(dir, n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Tar is dir (the course) as a tar.gz: its regular files, folders whose
// names start with a dot left out (.git, the course's own caches), and
// the files blank names (slash-separated, from dir) empty: a node needs
// the solutions to exist (the course names them), not their text.
func Tar(dir string, blank []string) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && d.IsDir() {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if slices.Contains(blank, filepath.ToSlash(rel)) {
			return tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Typeflag: tar.TypeReg})
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Size: info.Size(), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyN(tw, f, info.Size())
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("pilot: pack the course %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}

// Untar unpacks a Tar into dir, every name checked.
func Untar(data []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("pilot: unpack the course: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("pilot: unpack the course: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := CheckName(h.Name); err != nil {
			return err
		}
		if d := path.Dir(h.Name); d != "." {
			if _, err := safefs.Dir(dir, d); err != nil {
				return err
			}
		}
		b, err := io.ReadAll(io.LimitReader(tr, MaxBytes))
		if err != nil {
			return fmt.Errorf("pilot: unpack the course: %w", err)
		}
		if err := safefs.WriteFile(dir, h.Name, b, fs.FileMode(h.Mode&0o755|0o600)); err != nil {
			return err
		}
	}
}
