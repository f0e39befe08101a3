package gpu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/cudalessons/lessons/internal/safefs"
)

// Tool is a program of the CUDA toolkit that was found.
type Tool struct {
	Path    string
	Version string // e.g. 13.0.88; empty when it could not be read
}

// ErrNoNVCC is returned when nvcc is nowhere to be found.
var ErrNoNVCC = errors.New(`nvcc not found on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin
	install the CUDA toolkit (on Debian: apt install nvidia-cuda-toolkit from non-free;
	elsewhere: NVIDIA's CUDA downloads), or set CUDA_HOME to where it is installed`)

// Find looks for a CUDA tool (nvcc, compute-sanitizer) on PATH, in
// $CUDA_HOME/bin, then in /usr/local/cuda/bin. skip is a folder to pass
// over on PATH (the folder of the tool's own nvcc wrapper). A tool that
// is this program itself (a link to lessons named nvcc) is passed over
// too: calling it would call itself again without end.
func Find(name, skip string) (string, error) {
	self, _ := os.Executable()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || (skip != "" && sameDir(dir, skip)) {
			continue
		}
		if p := filepath.Join(dir, name); isExec(p) && (self == "" || !sameDir(p, self)) {
			return p, nil
		}
	}
	var dirs []string
	if home := os.Getenv("CUDA_HOME"); home != "" {
		dirs = append(dirs, filepath.Join(home, "bin"))
	}
	for _, dir := range append(dirs, "/usr/local/cuda/bin") {
		if p := filepath.Join(dir, name); isExec(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

var releaseRE = regexp.MustCompile(`release [0-9.]+, V([0-9][0-9.]*)`)

// NVCC finds nvcc and reads its version.
func NVCC(ctx context.Context, skip string) (*Tool, error) {
	p, err := Find("nvcc", skip)
	if err != nil {
		return nil, ErrNoNVCC
	}
	return nvccVersion(ctx, p)
}

// NVCCCached is NVCC, the version kept in file and read from there while
// nvcc is the same file as when it was asked (its path with links
// followed, size, modification and change times): nvcc --version is a
// process of its own on every lessons run, and its answer changes only
// with the file, as ccache's default compiler check (mtime) also holds.
// A file that cannot be read or written is asked again, never an error.
func NVCCCached(ctx context.Context, skip, file string) (*Tool, error) {
	p, err := Find("nvcc", skip)
	if err != nil {
		return nil, ErrNoNVCC
	}
	key := fileKey(p)
	var saved struct{ Key, Path, Version string }
	if data, err := os.ReadFile(file); key != "" && err == nil && json.Unmarshal(data, &saved) == nil && saved.Key == key && saved.Path == p && saved.Version != "" {
		return &Tool{Path: p, Version: saved.Version}, nil
	}
	t, err := nvccVersion(ctx, p)
	if err != nil || key == "" {
		return t, err
	}
	saved.Key, saved.Path, saved.Version = key, p, t.Version
	if data, err := json.Marshal(saved); err == nil {
		_ = os.MkdirAll(filepath.Dir(file), 0o755)
		_ = safefs.WriteAtomic(file, data, 0o644)
	}
	return t, nil
}

// fileKey is what says that the file at p is unchanged: its real path,
// size, modification and change times ("" when it cannot be read).
func fileKey(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	st, err := os.Stat(real)
	if err != nil {
		return ""
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %d %d %d.%d %d", real, st.Size(), st.ModTime().UnixNano(), sys.Ctim.Sec, sys.Ctim.Nsec, sys.Ino)
}

func nvccVersion(ctx context.Context, p string) (*Tool, error) {
	out, err := exec.CommandContext(ctx, p, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %v: %s", p, err, strings.TrimSpace(string(out)))
	}
	t := &Tool{Path: p}
	if m := releaseRE.FindSubmatch(out); m != nil {
		t.Version = string(m[1])
	} else {
		return nil, fmt.Errorf("%s --version: cannot find the version in %q", p, strings.TrimSpace(string(out)))
	}
	return t, nil
}
