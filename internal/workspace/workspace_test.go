package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/nvccwrap"
)

// For makes .lessons/work/NAME in the course, and refuses a link anywhere
// on its way, absolute or relative; nothing is made where it points.
func TestForRefusesLinks(t *testing.T) {
	l := &lesson.Lesson{Path: "lessons/day001-a.md"}
	root := t.TempDir()
	ws, err := For(&course.Course{Root: root}, l)
	if err != nil || ws != filepath.Join(root, ".lessons", "work", "day001-a") {
		t.Fatalf("For = %q, %v", ws, err)
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		t.Fatalf("not made: %v", err)
	}
	for _, at := range []string{".lessons", ".lessons/work", ".lessons/work/day001-a"} {
		for _, kind := range []string{"absolute", "relative"} {
			root, outside := t.TempDir(), t.TempDir()
			link := filepath.Join(root, at)
			os.MkdirAll(filepath.Dir(link), 0o755)
			target := outside
			if kind == "relative" {
				target, _ = filepath.Rel(filepath.Dir(link), outside)
			}
			os.Symlink(target, link)
			if _, err := For(&course.Course{Root: root}, l); err == nil || !strings.Contains(err.Error(), at+" is a link") {
				t.Errorf("%s %s: %v", kind, at, err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("%s %s: made %v outside", kind, at, entries)
			}
		}
	}
}

// The wrapper's folder linked elsewhere: no nvcc is put where it points.
func TestMakeWrapperRefusesALinkedFolder(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(ws, WrapperName))
	if err := MakeWrapper(ws); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Lstat(filepath.Join(outside, "nvcc")); err == nil {
		t.Error("an nvcc was put outside the workspace")
	}
	ws = t.TempDir()
	if err := MakeWrapper(ws); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Readlink(filepath.Join(WrapperDir(ws), "nvcc")); err != nil {
		t.Error(err)
	}
}

// Prepare readies a lesson's run in its workspace: the machine's nvcc and
// GPU, a compiler for the GPU's architecture (or the one asked for), and
// cells whose nvcc is the workspace's wrapper, building through the cache.
func TestPrepare(t *testing.T) {
	nvcc := machinetest.Fake(t, "Fake H100,9.0,1024")
	root := t.TempDir()
	l, err := lesson.Parse("lessons/day001-a.md", []byte("# Day 1\n\n```sh run\necho ran > ran.txt\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &course.Course{Root: root}
	r, err := Prepare(t.Context(), c, l, "", "", machine.Find)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, ".lessons", "work", "day001-a")
	if r.Dir != ws || r.Machine.GPUErr != nil {
		t.Fatalf("dir %q, GPU %v", r.Dir, r.Machine.GPUErr)
	}
	if r.Compiler.Path != nvcc || r.Compiler.Version != machinetest.Version || r.Compiler.Arch != "sm_90" {
		t.Errorf("compiler %+v", r.Compiler)
	}
	if r.Env.Wrapper != WrapperDir(ws) {
		t.Errorf("cells' nvcc from %q, want the wrapper in %q", r.Env.Wrapper, WrapperDir(ws))
	}
	if _, err := os.Readlink(filepath.Join(WrapperDir(ws), "nvcc")); err != nil {
		t.Errorf("no wrapper: %v", err)
	}
	for _, v := range []string{"LESSONS_REAL_NVCC=" + nvcc, "LESSONS_NVCC_VERSION=" + machinetest.Version, "LESSONS_ARCH=sm_90", "LESSONS_CACHE=" + os.Getenv("LESSONS_CACHE")} {
		if !slices.Contains(r.Env.Vars, v) {
			t.Errorf("cells' environment %q lacks %q", r.Env.Vars, v)
		}
	}
	if h := r.Header(false); !strings.Contains(h, "Day 1\nworkspace "+ws+"\nnvcc "+machinetest.Version+" ("+nvcc+"), GPU Fake H100 (sm_90)\n") || strings.Contains(h, "No GPU") {
		t.Errorf("header %q", h)
	}
	outcomes, sum, err := r.Cells(t.Context(), notebook.Options{}, io.Discard)
	if err != nil || len(outcomes) != 1 || !outcomes[0].OK || !strings.HasPrefix(sum, "1 cells: ") {
		t.Fatalf("cells %+v, %q, %v", outcomes, sum, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err != nil {
		t.Errorf("the cell did not run in the workspace: %v", err)
	}

	// A lesson without Python cells does not look for Python (python3
	// asked its version is a process on every run); one with them does.
	if r.Env.PythonWay != "" || r.Env.StartPython != nil || r.Env.NoPython != "" {
		t.Errorf("a lesson without Python looked for it: %q %q", r.Env.PythonWay, r.Env.NoPython)
	}
	py, err := lesson.Parse("lessons/day002-py.md", []byte("# Day 2\n\n```python run\nprint(1)\n```\n"))
	if err != nil || !py.HasPython() {
		t.Fatalf("%v: the Python lesson has no Python cell", err)
	}
	rp, err := Prepare(t.Context(), c, py, "", "", machine.Find)
	if err != nil || rp.Env.PythonWay == "" {
		t.Errorf("a lesson with Python cells: way %q, %v", rp.Env.PythonWay, err)
	}

	// A folder given (relative) is made absolute; an architecture given
	// is built for.
	t.Chdir(root)
	r, err = Prepare(t.Context(), nil, l, "elsewhere", "sm_80", machine.Find)
	if err != nil || r.Dir != filepath.Join(root, "elsewhere") || r.Compiler.Arch != "sm_80" {
		t.Errorf("dir %q, arch %q, %v", r.Dir, r.Compiler.Arch, err)
	}
}

// Without a GPU the run is prepared to compile only, and its header says
// so unless compiling was what was asked; without nvcc it is a tool's
// failure that says what lessons run needs.
func TestPrepareWithoutGPUOrNVCC(t *testing.T) {
	machinetest.Fake(t, "none")
	l := &lesson.Lesson{Path: "lessons/day001-a.md", Title: "Day 1"}
	r, err := Prepare(t.Context(), &course.Course{Root: t.TempDir()}, l, "", "", machine.Find)
	if err != nil {
		t.Fatal(err)
	}
	if r.Machine.GPUErr == nil || r.Compiler.Arch != "" {
		t.Errorf("GPU %v, arch %q", r.Machine.GPUErr, r.Compiler.Arch)
	}
	if h := r.Header(false); !strings.Contains(h, "No GPU found (") || !strings.Contains(h, "Compiling every cell; running them needs a GPU.") {
		t.Errorf("header %q", h)
	}
	if h := r.Header(true); strings.Contains(h, "No GPU") {
		t.Errorf("compile-only header %q", h)
	}

	// Without nvcc, the finder's error (rig.Lesson's *failure.Tool) as it is.
	noNVCC := failure.Toolf("lessons run needs nvcc")
	_, err = Prepare(t.Context(), &course.Course{Root: t.TempDir()}, l, "", "", func(context.Context, string) (*machine.Machine, error) { return nil, noNVCC })
	if !errors.Is(err, noNVCC) {
		t.Errorf("without nvcc: %v", err)
	}
}

// A class's cells build with the class's nvcc through the workspace's
// wrapper, with the class's variables after.
func TestClassEnv(t *testing.T) {
	ws := t.TempDir()
	env, err := ClassEnv(buildcache.Compiler{Path: "/usr/local/cuda/bin/nvcc", Version: "13.0", Arch: "sm_90"}, []string{"CUDA_DEVICE_MAX_CONNECTIONS=2"})(ws)
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.Join(env.Vars, " ")
	if env.Wrapper != WrapperDir(ws) || !strings.Contains(vars, "LESSONS_REAL_NVCC=/usr/local/cuda/bin/nvcc") || !strings.Contains(vars, "LESSONS_ARCH=sm_90") || !strings.HasSuffix(vars, "CUDA_DEVICE_MAX_CONNECTIONS=2") {
		t.Errorf("a class's cells' environment: wrapper %q, vars %q", env.Wrapper, vars)
	}
	if _, err := os.Stat(filepath.Join(WrapperDir(ws), "nvcc")); err != nil {
		t.Errorf("no nvcc wrapper in the workspace: %v", err)
	}
}

// TestWrapperTargetPrefersTheSmallWrapper: a cell's nvcc links to
// lessons-nvcc when it sits beside this program as an executable of the
// same build, and to this program otherwise (none there, not executable,
// or another build).
func TestWrapperTargetPrefersTheSmallWrapper(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	small := filepath.Join(filepath.Dir(self), nvccwrap.Binary)
	if _, err := os.Lstat(small); err == nil {
		t.Skipf("%s is there already", small)
	}
	if got, _ := WrapperTarget(); got != self {
		t.Errorf("none beside: %s, want %s", got, self)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, data, 0o644); err != nil {
		t.Skipf("cannot write beside the test binary: %v", err)
	}
	defer os.Remove(small)
	if got, _ := WrapperTarget(); got != self {
		t.Errorf("not executable: %s, want %s", got, self)
	}
	os.Chmod(small, 0o755)
	if got, _ := WrapperTarget(); got != small {
		t.Errorf("the same build beside: %s, want %s", got, small)
	}
	ws := t.TempDir()
	if err := MakeWrapper(ws); err != nil {
		t.Fatal(err)
	}
	if cur, _ := os.Readlink(filepath.Join(WrapperDir(ws), "nvcc")); cur != small {
		t.Errorf("the cell's nvcc links to %s, want %s", cur, small)
	}
	// Another build (here: a file that is no Go program at all).
	os.WriteFile(small, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	if got, _ := WrapperTarget(); got != self {
		t.Errorf("another build beside: %s, want %s", got, self)
	}
}
