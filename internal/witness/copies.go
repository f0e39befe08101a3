package witness

import (
	"io/fs"
	"path/filepath"
	"sort"
	"syscall"
)

// maxWalk bounds how many entries Copies looks at, whatever the roots
// hold.
const maxWalk = 2_000_000

// Copies finds every copy of the libraries the probes watch under roots
// (folders a run may read and map code from): lib, given a file's base
// name, says which probes' library it is ("libcudart", "libcuda.so"), or
// "". A program that carries its own CUDA runtime, or loads a second one
// (a Python package's, another toolkit's) by dlopen, calls that copy's
// entry points: a probe on the runtime the program names alone would not
// see them. Each file is given once (by device and inode), links not
// followed, by its path; files are listed in order.
func Copies(roots []string, lib func(base string) string) map[string][]string {
	out := map[string][]string{}
	type id struct{ dev, ino uint64 }
	seen := map[id]bool{}
	n := 0
	for _, root := range roots {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if n++; n > maxWalk {
				return fs.SkipAll
			}
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			l := lib(d.Name())
			if l == "" {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			st, ok := info.Sys().(*syscall.Stat_t)
			if !ok || seen[id{uint64(st.Dev), st.Ino}] {
				return nil
			}
			seen[id{uint64(st.Dev), st.Ino}] = true
			out[l] = append(out[l], path)
			return nil
		})
	}
	for _, files := range out {
		sort.Strings(files)
	}
	return out
}
