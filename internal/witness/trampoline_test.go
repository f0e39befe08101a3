package witness

import (
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
		{"-shared", "-fPIC", "-O1", noCET, "-Wl,-soname,libtramp.so", "-o", lib, "testdata/tramp.c"},
		{"-O0", "-o", prog, "testdata/tprog.c", "-L" + dir, "-ltramp", "-Wl,-rpath," + dir},
	} {
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %v: %v\n%s", args, err, out)
		}
	}
	return lib, prog
}

// A dispatch trampoline's function behind it is probed too, on the
// function its slot holds, with the ways out of both.
func TestProbeBehindTrampoline(t *testing.T) {
	lib, _ := buildTramp(t)
	offs, err := entryOffsets(lib)
	if err != nil {
		t.Fatal(err)
	}
	im, done := openImage(lib)
	defer done()
	if im == nil {
		t.Skip("not x86-64")
	}
	sh := im.shapeAt(offs["tramp_alloc"][0])
	if !sh.decoded || len(sh.exits) != 2 {
		t.Fatalf("tramp_alloc: %+v: want decoded, two ways out (the jump through its slot, the torn-down path's ret)", sh)
	}
	if work := offs["tramp_alloc_work"]; len(work) != 1 || sh.work != work[0] {
		t.Errorf("behind tramp_alloc: %#x, want the work's %v", sh.work, work)
	}
	if plain := im.shapeAt(offs["tramp_alloc_work"][0]); plain.work != 0 || len(plain.exits) != 1 {
		t.Errorf("a plain function: %+v, want its one ret and nothing behind it", plain)
	}
}

// Calls made straight to the function a trampoline's slot holds (read by
// the program from the trampoline's own bytes) are counted with the
// calls through the entry, once each.
func TestCountsCallsBehindTrampoline(t *testing.T) {
	lib, prog := buildTramp(t)
	w := open(t, []Probe{{Name: "allocs", Lib: "libtramp", Symbols: []string{"tramp_alloc"}, Behind: true}})
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
	if p := watch.Past(); len(p) != 1 || p[0].Counts != [siteKinds]uint64{100, 100, 150, 150} {
		t.Errorf("past the entry: %v, want allocs entered 100, left 100, its work entered and left 150", p)
	}
}
