package exercise

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/witness"
	"github.com/cudalessons/lessons/kernels"
)

// Toolkit is what builds and judges exercises: nvcc, the compile cache,
// compute-sanitizer, and the statistics library built with them.
type Toolkit struct {
	// NVCC is nvcc as the cache builds with it (Arch: the GPU's, or "").
	NVCC  buildcache.Compiler
	Cache *buildcache.Cache
	// Sanitizer is compute-sanitizer's path, "" when there is none.
	Sanitizer string
	// Driver, when set, watches what the GPU's driver sees of each run,
	// to cross-check the statistics record (gpu.DriverSampler where NVML
	// is there); nil: no cross-check.
	Driver gpu.Watcher
	// Python is the interpreter of Python exercises; "" is python3 on
	// the PATH.
	Python string
	// Witness, when set, counts each run's calls of CUDA's entry points
	// from outside the program (uprobes, where BPF may be loaded), to
	// compare with the statistics record; nil: no such count.
	Witness *witness.Witness
	// WitnessOff says, in parentheses, why Witness is nil where WatchRuns
	// asked for one (" (turned off by LESSONS_WITNESS=off)"): what a
	// verdict not witnessed says.
	WitnessOff string
	// BuildLimit is the wall-clock limit of one build of a job;
	// 0 is DefaultBuildLimit.
	BuildLimit time.Duration

	mu  sync.Mutex
	lib string // the statistics library, once built
	py  string // python3 as found, once asked
}

// NewToolkit is the toolkit of nvcc (built for arch, "" for nvcc's
// default) and cache, with the compute-sanitizer that machine.SanitizerPath finds.
func NewToolkit(nvcc buildcache.Compiler, cache *buildcache.Cache) *Toolkit {
	return &Toolkit{NVCC: nvcc, Cache: cache, Sanitizer: machine.SanitizerPath(nvcc.Path)}
}

// ToolkitFor is the toolkit of machine m, nvcc building for its GPU,
// with the driver's view of each run to cross-check the statistics
// record: what check, watch, the page, verify and a grade judge with.
func ToolkitFor(m *machine.Machine) *Toolkit {
	tk := NewToolkit(m.Compiler(), m.Cache)
	tk.Driver = DriverWatcher()
	return tk
}

func (tk *Toolkit) compiler() buildcache.Compiler { return tk.NVCC }

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// StatsLibrary builds kernels/allocstats.cu, with the headers it
// includes (kernels.Library), through the cache for the host alone (no
// -arch) and returns the library's path. It is built once;
// a build that failed, or was stopped with its caller's ctx, is tried
// again by the next caller.
func (tk *Toolkit) StatsLibrary(ctx context.Context) (string, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.lib != "" {
		return tk.lib, nil
	}
	lib, err := tk.buildStatsLibrary(ctx)
	if err != nil {
		return "", err
	}
	tk.lib = lib
	return lib, nil
}

// statsLibraryArgs are nvcc's arguments for the statistics library:
// its references to its own definitions bound inside it (-Bsymbolic),
// every import bound at load and its table of them read-only after
// (-z now, relro), so that nothing the program loads or defines later
// takes their place; and no symbol table (--strip-all): the names of
// its statics (the key, the hooks' pointers) are not in its file for a
// program to read.
func statsLibraryArgs(lib, src string) []string {
	// The cache keys a build by its source and flags: the sum of every
	// file of the library (the sections and timeline.h it includes) in a
	// flag rebuilds the library when only a header changed.
	sum := kernels.LibrarySum()
	return []string{"-x", "c++", "-shared", "-Xcompiler", "-fPIC", "-cudart", "none", "-DALLOCSTATS_SOURCE_SUM=" + hex.EncodeToString(sum[:8]),
		"-Xlinker", "-Bsymbolic", "-Xlinker", "-z,now", "-Xlinker", "-z,relro", "-Xlinker", "--strip-all", "-o", lib, src}
}

func (tk *Toolkit) buildStatsLibrary(ctx context.Context) (string, error) {
	comp := tk.NVCC
	comp.Arch = ""
	dir := filepath.Join(tk.Cache.Dir, "kernels")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Every part beneath the cache's folder, none through a link out of it.
	for _, f := range kernels.LibraryFiles() {
		if old, err := safefs.ReadFile(dir, f.Path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := safefs.WriteFile(dir, f.Path, f.Data, 0o644); err != nil {
			return "", err
		}
	}
	src := filepath.Join(dir, kernels.Main)
	lib := filepath.Join(dir, "liballocstats.so")
	var log bytes.Buffer
	b, err := tk.Cache.Build(ctx, runner.Exec{}, comp,
		statsLibraryArgs(lib, src), dir, nil, &log)
	if err != nil {
		return "", err
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if !b.Hit && !b.Run.OK() {
		return "", &failure.Tool{Err: fmt.Errorf("building the statistics library failed:\n%s", log.String())}
	}
	return lib, nil
}
