package rig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/sandbox"
)

const fakeGPU = "Fake H100,9.0,85899345920"

func TestStudentNeedsAGPU(t *testing.T) {
	machinetest.Fake(t, "none")
	_, err := Student(context.Background(), "check")
	var miss *machine.Missing
	if !errors.As(err, &miss) || miss.NoGPU == nil || miss.Machine == nil {
		t.Fatalf("a student's rig without a GPU: %v; want a *machine.Missing that says the GPU and keeps the machine", err)
	}
	var tool *failure.Tool
	if !errors.As(err, &tool) {
		t.Errorf("%v is not a *failure.Tool", err)
	}
}

func TestStudentWithAGPU(t *testing.T) {
	nvcc := machinetest.Fake(t, fakeGPU)
	r, err := Student(context.Background(), "check")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Machine.NVCC.Path != nvcc || r.Toolkit == nil || r.Toolkit.NVCC.Arch != "sm_90" {
		t.Errorf("the student's rig: nvcc %s, toolkit %+v; want %s building for sm_90", r.Machine.NVCC.Path, r.Toolkit, nvcc)
	}
	if r.Sandbox != nil {
		t.Error("a student's rig has a sandbox: a student's own runs are theirs")
	}
	if d := r.Devices(); len(d) != 1 || d[0] != "0" {
		t.Errorf("devices %v, want [0]", d)
	}
}

func TestPageWithoutAGPUCompilesOnly(t *testing.T) {
	machinetest.Fake(t, "none")
	r, err := Page(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Machine.GPUErr == nil || r.Devices() != nil {
		t.Errorf("the page's rig without a GPU: GPUErr %v, devices %v", r.Machine.GPUErr, r.Devices())
	}
}

func TestPageWithoutNVCC(t *testing.T) {
	machinetest.Fake(t, fakeGPU)
	t.Setenv("PATH", t.TempDir())
	if _, err := Page(context.Background()); err == nil {
		t.Error("the page's rig without nvcc: no error")
	}
	if _, err := Lesson(context.Background(), ""); err == nil || !errors.As(err, new(*failure.Tool)) {
		t.Errorf("lessons run's machine without nvcc: %v, want a *failure.Tool", err)
	}
	if _, err := BuildNode(context.Background(), "9.0", "rig-test-"); err == nil || !errors.As(err, new(*failure.Tool)) {
		t.Errorf("a build node without nvcc: %v, want a *failure.Tool", err)
	}
}

func TestAuthor(t *testing.T) {
	machinetest.Fake(t, "none")
	if _, err := Author(context.Background(), false); err == nil || !errors.As(err, new(*failure.Tool)) {
		t.Errorf("verify without a GPU: %v, want a *failure.Tool", err)
	}
	r, err := Author(context.Background(), true)
	if err != nil || r.Machine.GPUErr == nil {
		t.Errorf("verify --compile-only without a GPU: %v", err)
	}
	m, err := Look(context.Background())
	if err != nil || m.GPUErr == nil {
		t.Errorf("Look: %v, GPU error %v", err, m.GPUErr)
	}
}

func TestGraderHasASandboxThatCloseRemoves(t *testing.T) {
	machinetest.Fake(t, fakeGPU)
	t.Setenv("LESSONS_WITNESS", "off")
	t.Setenv("TMPDIR", t.TempDir())
	r, err := Grader(context.Background(), "grade", "rig-test-")
	if err != nil {
		t.Fatal(err)
	}
	if r.Sandbox == nil || r.Toolkit.Driver == nil && os.Getenv("LESSONS_DRIVER_CHECK") == "" {
		t.Errorf("a grader's rig: sandbox %v, driver %v", r.Sandbox, r.Toolkit.Driver)
	}
	if r.Witness == "" {
		t.Error("a grader's rig does not say whether runs are witnessed")
	}
	scratch, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "rig-test-*"))
	if len(scratch) != 1 {
		t.Fatalf("the sandbox's folder: %v", scratch)
	}
	r.Close()
	r.Close() // twice is fine
	if _, err := os.Stat(scratch[0]); !os.IsNotExist(err) {
		t.Errorf("%s is still there after Close", scratch[0])
	}
}

func TestGraderNeedsAGPU(t *testing.T) {
	machinetest.Fake(t, "none")
	if _, err := Grader(context.Background(), "grade", "rig-test-"); err == nil || !errors.As(err, new(*machine.Missing)) {
		t.Errorf("a grader without a GPU: %v, want a *machine.Missing", err)
	}
	if _, err := RunNode(context.Background(), "pilot", "rig-test-"); err == nil || !errors.As(err, new(*machine.Missing)) {
		t.Errorf("a run node without a GPU: %v, want a *machine.Missing", err)
	}
}

func TestBuildNodeBuildsForTheNodesGPU(t *testing.T) {
	machinetest.Fake(t, "none")
	t.Setenv("TMPDIR", t.TempDir())
	r, err := BuildNode(context.Background(), "8.6", "rig-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Toolkit.NVCC.Arch != "sm_86" || Capability(r.Machine) != "8.6" || r.Sandbox == nil {
		t.Errorf("a build node for 8.6: arch %q, capability %q, sandbox %v", r.Toolkit.NVCC.Arch, Capability(r.Machine), r.Sandbox)
	}
	if r.Toolkit.Driver != nil {
		t.Error("a build node watches a driver it runs nothing on")
	}
	for _, bad := range []string{"", "9", "x.y", "-1.0", "9.0; rm -rf /"} {
		_, err := BuildNode(context.Background(), bad, "rig-test-")
		if !errors.Is(err, ErrCapability) {
			t.Errorf("a build node for %q: %v, want ErrCapability", bad, err)
		}
	}
}

func TestBuildForIsStrict(t *testing.T) {
	for in, ok := range map[string]bool{"9.0": true, "7.5": true, "10.0": true, "": false, "9": false, ".5": false, "0.0": false, "a.b": false} {
		m := &machine.Machine{GPUErr: errors.New("none")}
		err := BuildFor(m, in)
		if (err == nil) != ok {
			t.Errorf("BuildFor(%q): %v", in, err)
			continue
		}
		if ok && Capability(m) != in {
			t.Errorf("BuildFor(%q) then Capability: %q", in, Capability(m))
		}
	}
	if Capability(nil) != "" || Capability(&machine.Machine{GPUErr: errors.New("x")}) != "" {
		t.Error("Capability of no GPU is not empty")
	}
}

func TestRunNodeBuildsTheLibraryFirst(t *testing.T) {
	machinetest.Fake(t, fakeGPU)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("LESSONS_DRIVER_CHECK", "off")
	r, err := RunNode(context.Background(), "pilot", "rig-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	lib := filepath.Join(os.Getenv("LESSONS_CACHE"), "kernels", "allocstats.cu")
	if _, err := os.Stat(lib); err != nil {
		t.Errorf("the statistics library's source was not written before the first run: %v", err)
	}
	if r.Sandbox == nil {
		t.Error("a run node without a sandbox")
	}
}

func TestCellsOpenTheCgroupsOnce(t *testing.T) {
	t.Setenv("LESSONS_SANDBOX_CGROUPS", "off")
	r := &Rig{}
	run := r.Cells([]string{"/opt/cuda"}, "")
	if run == nil || r.NoMemoryBound() != "LESSONS_SANDBOX_CGROUPS=off" {
		t.Errorf("cells with cgroups off: why %q", r.NoMemoryBound())
	}
	r.Cells(nil, "")
	if len(r.closers) != 0 {
		t.Errorf("closers %d with no cgroups", len(r.closers))
	}
	ru, ok := run(t.TempDir(), 3).(ownedRunner)
	if !ok {
		t.Fatalf("the cells' runner is %T", run(t.TempDir(), 3))
	}
	if ru.pol.Veil == "" || len(ru.pol.Read) < 2 || ru.pol.Read[0] != "/opt/cuda" {
		t.Errorf("the cells' policy: veil %q, read %v", ru.pol.Veil, ru.pol.Read)
	}
	r.Close()
}

// recordMode notes, as a run sees it, who owns the workspace and its mode.
type recordMode struct{ uid, mode *string }

func (r recordMode) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	st, _ := os.Stat(spec.Dir)
	*r.uid, *r.mode = fmt.Sprint(st.Sys().(*syscall.Stat_t).Uid), st.Mode().Perm().String()
	return &runner.Result{}, nil
}

// A slot's user runs every student's cells in turn: where there is no
// Landlock, a workspace left to it (0755) was open to the next student's
// run on the slot and to every other slot's user meanwhile.
func TestWorkspaceClosedToOtherRunsUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the run users are root's to hand folders to")
	}
	ws := filepath.Join(t.TempDir(), "ws")
	os.MkdirAll(ws, 0o755)
	var uid, mode string
	r := ownedRunner{pol: sandbox.Policy{Dir: ws, UID: cellUID + 3, GID: cellUID + 3}, inner: recordMode{&uid, &mode}}
	if _, err := r.Run(context.Background(), runner.Spec{Dir: ws}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if uid != fmt.Sprint(cellUID+3) || mode != "-rwx------" {
		t.Errorf("the workspace during the run: uid %s, %s; want the slot's user's, closed to others", uid, mode)
	}
	st, _ := os.Stat(ws)
	if o := st.Sys().(*syscall.Stat_t).Uid; o != 0 || st.Mode().Perm() != 0o700 {
		t.Errorf("the workspace after the run: uid %d, %s; want the server's, closed", o, st.Mode().Perm())
	}
}

func FuzzBuildFor(f *testing.F) {
	for _, s := range []string{"9.0", "7.5", "10.0", "", "9", "9.0 ", "+9.0", "09.0", "9.0; x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m := &machine.Machine{GPUErr: errors.New("none")}
		if err := BuildFor(m, in); err != nil {
			if !errors.Is(err, ErrCapability) || m.GPUErr == nil {
				t.Fatalf("BuildFor(%q) failed as %v and left the machine %+v", in, err, m)
			}
			return
		}
		if got := Capability(m); got != in || m.Arch() == "" {
			t.Fatalf("BuildFor(%q): the machine builds for %q (arch %q)", in, got, m.Arch())
		}
	})
}

// The toolkit's folders are the sandbox's to read, as
// named and as their links lead.
func TestToolRoots(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "cuda-13.0", "bin", "nvcc")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, nil, 0o755)
	os.Symlink(filepath.Join(dir, "cuda-13.0"), filepath.Join(dir, "cuda"))
	roots := ToolRoots(filepath.Join(dir, "cuda", "bin", "nvcc"))
	if len(roots) != 2 || roots[0] != filepath.Join(dir, "cuda") || !strings.HasSuffix(roots[1], "cuda-13.0") {
		t.Errorf("the toolkit's folders: %q", roots)
	}
}

func TestStatsLibraryOfTheLessonsMachine(t *testing.T) {
	machinetest.Fake(t, fakeGPU)
	m, err := Lesson(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := StatsLibrary(m)(context.Background())
	if err != nil || filepath.Base(lib) != "liballocstats.so" {
		t.Errorf("the statistics library: %q %v", lib, err)
	}
}

// TestNoGraderWithoutLandlockAsItsOwnUser: with no Landlock, a grader
// whose students' programs run as its own user refuses to start (they
// could write its gradebook and the other submissions); with Landlock,
// or with users of their own, it starts.
func TestNoGraderWithoutLandlockAsItsOwnUser(t *testing.T) {
	defer func(f func() int) { landlockABI = f }(landlockABI)
	for _, tc := range []struct {
		abi      int
		ownUsers bool
		refused  bool
	}{{0, false, true}, {0, true, false}, {6, false, false}, {6, true, false}} {
		landlockABI = func() int { return tc.abi }
		why := writesOutside(tc.ownUsers)
		if (why != "") != tc.refused {
			t.Errorf("Landlock %d, users of their own %v: %q", tc.abi, tc.ownUsers, why)
		}
	}
	landlockABI = func() int { return 0 }
	t.Setenv("LESSONS_SANDBOX_SHARED_USER", "accept")
	if why := writesOutside(false); why != "" {
		t.Errorf("accepted, still refused: %q", why)
	}
	t.Setenv("LESSONS_SANDBOX_SHARED_USER", "")
	r := &Rig{}
	err := r.sandbox("lessons-rig-test-")
	defer r.Close()
	var tool *failure.Tool
	switch {
	case os.Geteuid() == 0 && os.Getenv("LESSONS_SANDBOX_USERS") != "off":
		if err != nil {
			t.Errorf("as root with users of their own: %v", err)
		}
	case !errors.As(err, &tool) || !strings.Contains(err.Error(), "gradebook"):
		t.Errorf("as the grader's own user without Landlock: %v, want a *failure.Tool naming the gradebook", err)
	}
}
