package witness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// buildTramp makes testdata's trampoline library and its program.
func buildTramp(t *testing.T) (lib, prog string) {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("needs a C compiler")
	}
	dir := t.TempDir()
	lib, prog = filepath.Join(dir, "libtramp.so"), filepath.Join(dir, "tprog")
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-O1", "-Wl,-soname,libtramp.so", "-o", lib, "testdata/tramp.c"},
		{"-O0", "-o", prog, "testdata/tprog.c", "-L" + dir, "-ltramp", "-Wl,-rpath," + dir},
	} {
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %v: %v\n%s", args, err, out)
		}
	}
	return lib, prog
}

// A dispatch trampoline's probe sits behind it, on the function its slot
// holds: the offset moves there, and other entries stay.
func TestProbeBehindTrampoline(t *testing.T) {
	lib, _ := buildTramp(t)
	offs, err := entryOffsets(lib)
	if err != nil {
		t.Fatal(err)
	}
	moved := behindTrampolines(lib, offs)
	if len(offs["tramp_alloc"]) != 1 || len(moved["tramp_alloc"]) != 1 {
		t.Fatalf("tramp_alloc at %v, behind it %v: want one each", offs["tramp_alloc"], moved["tramp_alloc"])
	}
	if moved["tramp_alloc"][0] == offs["tramp_alloc"][0] {
		t.Fatalf("the probe stays on the trampoline's entry (%#x)", offs["tramp_alloc"][0])
	}
	if work := offs["tramp_alloc_work"]; len(work) == 1 && moved["tramp_alloc"][0] != work[0] {
		t.Errorf("behind tramp_alloc: %#x, want the work's %#x", moved["tramp_alloc"][0], work[0])
	}
	if got := behindTrampolines(lib, map[string][]uint64{"x": offs["tramp_alloc_work"]}); got["x"][0] != offs["tramp_alloc_work"][0] {
		t.Errorf("a plain function moved: %v", got)
	}
}

// The CUDA driver, where this machine has one: its entry points are such
// trampolines (driver 535 here), each with a function of its own behind.
func TestDriverTrampolines(t *testing.T) {
	found := false
	for _, f := range []string{"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1"} {
		if _, err := os.Stat(f); err != nil || found {
			continue
		}
		found = true
		if real, err := filepath.EvalSymlinks(f); err == nil {
			f = real
		}
		o, err := entryOffsets(f)
		if err != nil {
			continue
		}
		m := behindTrampolines(f, o)
		// Two names behind one function would count each other's calls.
		at := map[uint64]string{}
		for _, n := range []string{"cuMemAlloc_v2", "cuMemAlloc", "cuMemAllocPitch_v2", "cuMemFree_v2", "cuMemAllocManaged", "cuMemAllocHost_v2",
			"cuMemHostAlloc", "cuMemFreeHost", "cuMemAllocAsync", "cuMemAllocAsync_ptsz", "cuMemFreeAsync", "cuMemAllocFromPoolAsync", "cuMemPoolCreate",
			"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx"} {
			t.Logf("%s: %s at %#x, probed at %#x", f, n, o[n], m[n])
			for _, off := range m[n] {
				if other, ok := at[off]; ok && other != n {
					t.Errorf("%s and %s are probed at one address, %#x", other, n, off)
				}
				at[off] = n
			}
		}
	}
	if !found {
		t.Skip("no CUDA driver here")
	}
}

// Calls made straight to the function a trampoline's slot holds (read by
// the program from the trampoline's own bytes) are counted with the
// calls through the entry, once each.
func TestCountsCallsBehindTrampoline(t *testing.T) {
	lib, prog := buildTramp(t)
	w := open(t, []Probe{{Name: "allocs", Lib: "libtramp", Symbols: []string{"tramp_alloc"}}})
	if err := w.Attach("libtramp", lib); err != nil {
		t.Fatal(err)
	}
	dir, fd := cgroup(t)
	id, err := CgroupID(dir)
	if err != nil {
		t.Fatal(err)
	}
	watch, err := w.Start(id)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, strconv.Itoa(100), strconv.Itoa(50))
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if n := watch.Counts()["allocs"]; n != 150 {
		t.Errorf("counted %d calls, want 150 (100 through the entry, 50 behind it)", n)
	}
}
