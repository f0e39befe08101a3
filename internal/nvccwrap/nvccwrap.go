// Package nvccwrap is the compile cache's nvcc wrapper: what runs when a
// lesson's cell calls nvcc (a link that internal/workspace puts first on
// the cell's PATH, to cmd/lessons-nvcc where it is installed beside
// lessons, else to lessons itself). It imports only the cache, the
// toolchain finder and the runner, so that the small lessons-nvcc starts
// without the package initialisation of the whole program (the
// highlighter's lexers and styles alone cost more than the rest).
package nvccwrap

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/runner"
)

// Main is the nvcc wrapper: what lessons-nvcc (or lessons run as nvcc)
// does when a cell runs nvcc. It builds through the cache with the real
// nvcc that the cell's variables name (LESSONS_REAL_NVCC,
// LESSONS_NVCC_VERSION), and returns nvcc's exit status.
func Main(args []string) int {
	began := time.Now()
	real := os.Getenv("LESSONS_REAL_NVCC")
	version := os.Getenv("LESSONS_NVCC_VERSION")
	if real == "" || version == "" {
		self, _ := os.Executable()
		t, err := gpu.NVCC(context.Background(), filepath.Dir(self))
		if err != nil {
			fmt.Fprintln(os.Stderr, "lessons nvcc:", err)
			return 127
		}
		real, version = t.Path, t.Version
	}
	if isSelf(real) {
		// An nvcc that is this wrapper again (a PATH where the only nvcc
		// is a link to lessons) would call itself without end.
		fmt.Fprintf(os.Stderr, "lessons nvcc: %s is this wrapper, not nvcc: put the CUDA toolkit's bin folder on the PATH\n", real)
		return 127
	}
	cache, err := buildcache.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lessons nvcc:", err)
		return 2
	}
	args = ForTrace(args, os.Getenv("LESSONS_STATS_CELL"))
	dir, _ := os.Getwd()
	comp := buildcache.Compiler{Path: real, Version: version, Arch: os.Getenv("LESSONS_ARCH")}
	// The class server's shared cache: read only, its builds the
	// server's own (buildcache's shared.go).
	if sharedDir := os.Getenv("LESSONS_SHARED_CACHE"); sharedDir != "" {
		shared := &buildcache.Cache{Dir: sharedDir}
		if log, ok := shared.GetShared(comp, args, dir, os.Environ()); ok {
			os.Stderr.Write(log)
			logBuild(true)
			noteTimes(began, true)
			return 0
		}
	}
	res, err := cache.BuildStreams(context.Background(), sameGroup{}, comp, args, dir, nil, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lessons nvcc:", err)
		return 2
	}
	logBuild(res.Hit)
	noteTimes(began, res.Hit)
	if res.Hit || res.Run.OK() {
		return 0
	}
	if res.Run.ExitCode > 0 {
		return res.Run.ExitCode
	}
	return 1
}

// logBuild appends "hit" or "miss" to $LESSONS_BUILD_LOG when it is set:
// the page tells by it that a cell's builds came from the cache, which the
// cache's counters cannot say while other cells build beside it.
func logBuild(hit bool) {
	file := os.Getenv("LESSONS_BUILD_LOG")
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	word := "miss\n"
	if hit {
		word = "hit\n"
	}
	f.WriteString(word)
}

// noteTimes appends when the wrapper began and ended, and whether the
// build was a hit, to $LESSONS_TRACE_NVCC when it is set: the class
// server's trace of where a cell's time goes (internal/classroom/cells' NewTrace).
func noteTimes(began time.Time, hit bool) {
	file := os.Getenv("LESSONS_TRACE_NVCC")
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	word := "miss"
	if hit {
		word = "hit"
	}
	fmt.Fprintf(f, "%d %d %s\n", began.UnixNano(), time.Now().UnixNano(), word)
}

// sameGroup runs nvcc in the wrapper's own process group, which the cell's
// runner kills whole on a timeout.
type sameGroup struct{}

func (sameGroup) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	spec.SameGroup = true
	return runner.Exec{}.Run(ctx, spec, out)
}

// isSelf says whether p is this program, or the lessons or lessons-nvcc
// beside it (through links): either would run this wrapper again.
func isSelf(p string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	b, err := os.Stat(p)
	if err != nil {
		return false
	}
	for _, q := range []string{self, filepath.Join(filepath.Dir(self), "lessons"), filepath.Join(filepath.Dir(self), Binary)} {
		if a, err := os.Stat(q); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	return false
}

// Binary is the small wrapper's file name, installed beside lessons
// (go install ./cmd/...): a cell's nvcc links to it when it is there.
const Binary = "lessons-nvcc"

// ForTrace is nvcc's arguments in a cell traced for its timeline (cell:
// $LESSONS_STATS_CELL, set by internal/notebook): built with the shared
// CUDA runtime, which the statistics library preloaded into the cell
// sees (nvcc links the static one by default, whose calls no library
// can follow), unless the command names a runtime itself.
func ForTrace(args []string, cell string) []string {
	if cell == "" || cell == "0" {
		return args
	}
	for _, a := range args {
		if a == "-cudart" || a == "--cudart" || strings.HasPrefix(a, "-cudart=") || strings.HasPrefix(a, "--cudart=") {
			return args
		}
	}
	return append(args[:len(args):len(args)], "-cudart", "shared")
}
