package witness

import (
	"bufio"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// driver580 reads testdata/driver580.txt: the first 64 bytes of driver
// 580.159.04's exported functions as the H200 machine's process had them
// (session 19), by name, with the offset each lies at in libcuda.so.
func driver580(t *testing.T) map[string]struct {
	off  uint64
	code []byte
} {
	t.Helper()
	f, err := os.Open("testdata/driver580.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]struct {
		off  uint64
		code []byte
	}{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[0] != "==" {
			continue
		}
		_, at, _ := strings.Cut(fields[3], "+")
		off, err := strconv.ParseUint(at, 0, 64)
		if err != nil || !sc.Scan() {
			t.Fatalf("testdata/driver580.txt: %q", sc.Text())
		}
		code, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatal(err)
		}
		out[fields[1]] = struct {
			off  uint64
			code []byte
		}{off, code}
	}
	return out
}

// Driver 580's entries (their first 64 bytes: the whole of the path a
// call that succeeds takes) decode to one `ret` among those bytes, and
// the slot of the `call *slot(%rip)` that reaches the work; the jumps to
// the torn-down path and the error path lie past the 64 bytes, so here
// they leave them.
func TestWaysOutDriver580(t *testing.T) {
	fns := driver580(t)
	if len(fns) != 10 {
		t.Fatalf("%d functions in testdata/driver580.txt, want 10", len(fns))
	}
	for name, fn := range fns {
		w, ok := waysOut(fn.code, fn.off, nil)
		if !ok {
			t.Errorf("%s does not decode", name)
			continue
		}
		// call *disp32(%rip): ff 15 and the displacement, at 0x1a (0x2f
		// in cuLaunchKernel, which pushes its stack arguments first).
		at := 0x1a
		if name == "cuLaunchKernel" {
			at = 0x2f
		}
		if fn.code[at] != 0xff || fn.code[at+1] != 0x15 {
			t.Fatalf("%s: no call *slot at %#x", name, at)
		}
		disp := int32(uint32(fn.code[at+2]) | uint32(fn.code[at+3])<<8 | uint32(fn.code[at+4])<<16 | uint32(fn.code[at+5])<<24)
		if want := uint64(int64(fn.off) + int64(at) + 6 + int64(disp)); w.slot != want {
			t.Errorf("%s: slot %#x, want %#x", name, w.slot, want)
		}
		if name != "cuLaunchKernel" && !slices.Equal(w.exits, []uint64{fn.off + 0x3e}) {
			t.Errorf("%s: ways out %#x, want its ret at +0x3e", name, w.exits)
		}
		if !slices.Contains(w.unprobed, fn.off+0x14) {
			t.Errorf("%s: unprobed %#x, want the torn-down jump at +0x14 among them (its target lies past these bytes)", name, w.unprobed)
		}
		t.Logf("%s: at %#x, slot %#x, ways out %#x", name, fn.off, w.slot, w.exits)
	}
}

// noCET builds the test libraries without endbr64 at each function's
// start, which Ubuntu's gcc adds by default: their functions are the
// drivers' shapes (no such mark), and the test programs that skip a
// first instruction skip a one-byte push %rbp.
const noCET = "-fcf-protection=none"

// Code built with indirect branch tracking (Ubuntu's gcc enables it by
// default; the GPU machine's test libraries were built so) starts each
// function with endbr64, which x86asm does not decode: it is stepped
// over, and the function's ways out are found as without it.
func TestWaysOutPastEndbr(t *testing.T) {
	for _, c := range []struct {
		name string
		code []byte
		exit uint64
	}{
		// endbr64; lea 0x1(%rdi),%eax; ret
		{"endbr64", []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x8d, 0x47, 0x01, 0xc3}, 0x1007},
		// endbr32; push %rbp; pop %rbp; ret
		{"endbr32", []byte{0xf3, 0x0f, 0x1e, 0xfb, 0x55, 0x5d, 0xc3}, 0x1006},
		// no mark: lea 0x1(%rdi),%eax; ret
		{"none", []byte{0x8d, 0x47, 0x01, 0xc3}, 0x1003},
	} {
		w, ok := waysOut(c.code, 0x1000, nil)
		if !ok || !slices.Equal(w.exits, []uint64{c.exit}) {
			t.Errorf("%s: decoded %v, ways out %#x, want its ret at %#x", c.name, ok, w.exits, c.exit)
		}
	}
}

// buildShapes makes testdata's library of the drivers' two shapes and
// its program; stripped, the library's work functions have no symbol
// left, and their bounds come from the unwind table.
func buildShapes(t *testing.T, strip bool) (lib, prog string) {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("needs a C compiler")
	}
	dir := t.TempDir()
	lib, prog = filepath.Join(dir, "libshapes.so"), filepath.Join(dir, "skipper")
	libArgs := []string{"-shared", "-fPIC", "-O1", noCET, "-fno-omit-frame-pointer", "-Wl,-soname,libshapes.so", "-o", lib, "testdata/shapes.c"}
	if strip {
		libArgs = append(libArgs, "-s")
	}
	for _, args := range [][]string{libArgs, {"-O0", "-o", prog, "testdata/skipper.c", "-L" + dir, "-lshapes", "-Wl,-rpath," + dir}} {
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %v: %v\n%s", args, err, out)
		}
	}
	return lib, prog
}

// Both shapes, with the work functions' symbols and without (the
// unwind table's bounds): each entry's ways out, the work behind it
// through its slot, and the work's one ret.
func TestShapes(t *testing.T) {
	for _, strip := range []bool{false, true} {
		lib, _ := buildShapes(t, strip)
		offs, err := entryOffsets(lib)
		if err != nil {
			t.Fatal(err)
		}
		im, done := openImage(lib)
		if im == nil {
			t.Skip("not x86-64")
		}
		for name, exits := range map[string]int{"shape535": 2, "shape580": 2} {
			sh := im.shapeAt(offs[name][0])
			if !sh.decoded || len(sh.exits) != exits || sh.work == 0 || len(sh.workExits) != 1 {
				t.Errorf("stripped %v: %s: %+v: want decoded, %d ways out, a work function with one", strip, name, sh, exits)
			}
			if w := offs[name+"_work"]; !strip && (len(w) != 1 || w[0] != sh.work) {
				t.Errorf("%s: work at %#x, want %v", name, sh.work, w)
			}
		}
		done()
	}
}

// The CUDA driver of this machine (535 here: trampolines): every entry
// the witness probes decodes, has a function behind it with a way out,
// no jump that may leave either unprobed, and no two names share an
// address.
func TestDriverShapes(t *testing.T) {
	file := ""
	for _, f := range []string{"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"} {
		if _, err := os.Stat(f); err == nil {
			file = f
			break
		}
	}
	if file == "" {
		t.Skip("no CUDA driver here")
	}
	offs, err := entryOffsets(file)
	if err != nil {
		t.Fatal(err)
	}
	im, done := openImage(file)
	defer done()
	if im == nil {
		t.Skip("not x86-64")
	}
	at := map[uint64]string{}
	for _, n := range []string{"cuMemAlloc_v2", "cuMemAlloc", "cuMemAllocPitch_v2", "cuMemFree_v2", "cuMemAllocManaged", "cuMemAllocHost_v2",
		"cuMemHostAlloc", "cuMemFreeHost", "cuMemAllocAsync", "cuMemAllocAsync_ptsz", "cuMemFreeAsync", "cuMemAllocFromPoolAsync", "cuMemPoolCreate",
		"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuMemCreate", "cuMemMap",
		"cuMemAddressReserve", "cuMemSetAccess", "cuMemUnmap", "cuMemRelease", "cuMemAddressFree"} {
		for _, off := range offs[n] {
			sh := im.shapeAt(off)
			t.Logf("%s: entry %#x, ways out %#x; behind it %#x, its ways out %#x; jumps that may leave unprobed %#x", n, sh.entry, sh.exits, sh.work, sh.workExits, sh.unprobed)
			if !sh.decoded || len(sh.exits) == 0 || sh.work == 0 || len(sh.workExits) == 0 {
				t.Errorf("%s: %+v: want decoded, with ways out, a function behind with ways out", n, sh)
			}
			if len(sh.unprobed) > 0 {
				t.Errorf("%s: jumps at %#x may leave the entry or its work unprobed: a way out the witness does not count", n, sh.unprobed)
			}
			for _, a := range append(append([]uint64{sh.entry, sh.work}, sh.exits...), sh.workExits...) {
				if other, ok := at[a]; ok && other != n {
					t.Errorf("%s and %s are probed at one address, %#x", other, n, a)
				}
				at[a] = n
			}
		}
	}
}

// A real process's calls, counted at every kind of site: an honest call
// passes each once, and a call made behind the entry, or past its first
// instruction (the entry's or the work's), counts more at some site
// than at the entry: Past names the probe.
func TestCountsPast(t *testing.T) {
	lib, prog := buildShapes(t, true)
	w := open(t, []Probe{
		{Name: "535", Lib: "libshapes", Symbols: []string{"shape535"}, Behind: true},
		{Name: "580", Lib: "libshapes", Symbols: []string{"shape580"}, Behind: true},
	})
	if err := w.Attach("libshapes", lib); err != nil {
		t.Fatal(err)
	}
	dir, fd := cgroup(t)
	id, err := CgroupID(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape, how string
		want       [siteKinds]uint64
	}{
		{"535", "entry", [siteKinds]uint64{30, 30, 30, 30}},
		{"580", "entry", [siteKinds]uint64{30, 30, 30, 30}},
		{"535", "behind", [siteKinds]uint64{0, 0, 30, 30}},
		{"580", "behind", [siteKinds]uint64{0, 0, 30, 30}},
		{"580", "past", [siteKinds]uint64{0, 30, 30, 30}},
		{"535", "deep", [siteKinds]uint64{0, 0, 0, 30}},
		{"580", "deep", [siteKinds]uint64{0, 0, 0, 30}},
	} {
		watch, err := w.Start(id)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(prog, c.shape, c.how, "30")
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v: %s", c.shape, c.how, err, out)
		}
		got := watch.Counts()
		past := watch.Past()
		if got[c.shape] != 30 {
			t.Errorf("%s %s: counted %d, want 30", c.shape, c.how, got[c.shape])
		}
		if c.how == "entry" {
			if len(past) != 0 {
				t.Errorf("%s %s: an honest run named past its entry: %v", c.shape, c.how, past)
			}
			continue
		}
		if len(past) != 1 || past[0].Probe != c.shape || past[0].Counts != c.want {
			t.Errorf("%s %s: past %v, want %s with %v", c.shape, c.how, past, c.shape, c.want)
		}
	}
}

// The readers of a library's bytes never fail on any input: at worst
// they find nothing.
func FuzzWaysOut(f *testing.F) {
	f.Add([]byte{0x55, 0x48, 0x89, 0xe5, 0xff, 0x15, 0, 0, 0, 0, 0xc9, 0xc3})
	f.Add([]byte{0x81, 0x3d, 1, 2, 3, 4, 0, 0xba, 0x1c, 0x32, 0x74, 0x0c, 0xff, 0x25, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, code []byte) {
		w, ok := waysOut(code, 0x1000, map[uint64]bool{0x2000: true})
		for _, a := range w.exits {
			if ok && (a < 0x1000 || a >= 0x1000+uint64(len(code))) {
				t.Fatalf("a way out at %#x, outside the function", a)
			}
		}
	})
}

func FuzzFrameSpans(f *testing.F) {
	// The C library's unwind table, as a seed: real CIEs and FDEs.
	if exe, err := elf.Open("/lib/x86_64-linux-gnu/libc.so.6"); err == nil {
		if sec := exe.Section(".eh_frame"); sec != nil {
			if data, err := sec.Data(); err == nil {
				f.Add(data[:min(len(data), 4096)])
			}
		}
		exe.Close()
	}
	f.Add([]byte{0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x1c, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range frameSpans(data, 0x4000) {
			if s.hi <= s.lo {
				t.Fatalf("span %#x..%#x", s.lo, s.hi)
			}
		}
	})
}

// A call can leave a probed function by a fault that the program
// catches (review/attack15/fault_exit.cu): the kernel counts the fault
// signals a run's threads catch in handlers of their own, and no other
// signal.
func TestCountsCaughtFaults(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("needs a C compiler")
	}
	prog := filepath.Join(t.TempDir(), "faults")
	if out, err := exec.Command(cc, "-O0", "-o", prog, "testdata/faults.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	w := open(t, []Probe{{Name: "x", Lib: "libnothing", Symbols: []string{"x"}}})
	if w.FaultsOff() != "" {
		t.Skipf("faults are not counted here: %s", w.FaultsOff())
	}
	dir, fd := cgroup(t)
	id, _ := CgroupID(dir)
	watch, err := w.Start(id)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "25")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if out, err := exec.Command(prog, "5").CombinedOutput(); err != nil { // another cgroup's
		t.Fatalf("%v: %s", err, out)
	}
	watch.Counts()
	if n, ok := watch.Faults(); !ok || n != 25 {
		t.Errorf("caught faults %d (counted %v), want 25", n, ok)
	}
	if n := watch.Signals(); n != 25 {
		t.Errorf("other signals caught %d, want 25 (SIGUSR1's)", n)
	}
}

// A probe of its entries alone (a count kept for measuring) gets one
// site a definition; a probe of a driver's function gets its ways out
// and the work behind, and without Behind, its ways out alone.
func TestSitesOfAProbe(t *testing.T) {
	lib, _ := buildShapes(t, true)
	offs, err := entryOffsets(lib)
	if err != nil {
		t.Fatal(err)
	}
	w := &Witness{missing: map[string][]string{}, probes: []Probe{
		{Name: "all", Lib: "libshapes", Symbols: []string{"shape580"}, Behind: true},
		{Name: "exits", Lib: "libshapes", Symbols: []string{"shape580"}},
		{Name: "entry", Lib: "libshapes", Symbols: []string{"shape580"}, EntryOnly: true},
		{Name: "size", Lib: "libshapes", Symbols: []string{"shape580"}, Arg: 1, Behind: true},
	}}
	kinds := map[int][]int{}
	for _, s := range w.sites("libshapes", lib, offs) {
		kinds[s.probe] = append(kinds[s.probe], s.kind)
	}
	for i, want := range [][]int{{atEntry, entryOut, entryOut, atWork, workOut}, {atEntry, entryOut, entryOut}, {atEntry}, {atEntry}} {
		if !slices.Equal(kinds[i], want) {
			t.Errorf("%s: sites of kinds %v, want %v", w.probes[i].Name, kinds[i], want)
		}
	}
}
