package witness

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// maxWalk and maxWalkTime bound how many entries Copies looks at, and
// for how long, whatever the roots hold (an /opt of a cluster's
// software modules).
const (
	maxWalk     = 2_000_000
	maxWalkTime = 5 * time.Second
)

// Copies finds every copy of the libraries the probes watch under roots
// (folders a run may read and map code from): lib, given a file's base
// name, says which probes' library it is ("libcudart", "libcuda.so"), or
// "". A program that carries its own CUDA runtime, or loads a second one
// (a Python package's, another toolkit's) by dlopen, calls that copy's
// entry points: a probe on the runtime the program names alone would not
// see them. Each file is given once (by device and inode), links not
// followed, by its path; files are listed in order. Each root is walked
// on its own file system alone, within maxWalkTime in all.
func Copies(roots []string, lib func(base string) string) map[string][]string {
	out := map[string][]string{}
	type id struct{ dev, ino uint64 }
	seen := map[id]bool{}
	n := 0
	deadline := time.Now().Add(maxWalkTime)
	for _, root := range roots {
		var rootDev uint64
		if st, err := os.Stat(root); err == nil {
			if sys, ok := st.Sys().(*syscall.Stat_t); ok {
				rootDev = uint64(sys.Dev)
			}
		}
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if n++; n > maxWalk || n%1024 == 0 && time.Now().After(deadline) {
				return fs.SkipAll
			}
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() && path != root {
				// A network file system mounted below (a cluster's
				// software modules) is not walked; a local one (the
				// driver's folder bound into a container) is.
				if info, err := d.Info(); err == nil {
					if sys, ok := info.Sys().(*syscall.Stat_t); ok && uint64(sys.Dev) != rootDev && remote(path) {
						return fs.SkipDir
					}
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

// remoteFS are the magic numbers (statfs's f_type) of network and FUSE
// file systems: NFS, SMB, CIFS, SMB2, Lustre, GPFS, Ceph, AFS, FUSE,
// autofs.
var remoteFS = map[int64]bool{0x6969: true, 0x517b: true, 0xff534d42: true, 0xfe534d42: true, 0x0bd00bd0: true,
	0x47504653: true, 0x00c36400: true, 0x5346414f: true, 0x65735546: true, 0x0187: true}

// remote says whether dir is on a network (or FUSE) file system.
func remote(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && remoteFS[int64(st.Type)]
}
