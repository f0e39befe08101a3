package exercise

import (
	"debug/elf"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A library's code is found in a program's file at any byte's offset,
// across the reads' boundaries, and a few blocks of it are not enough
// (round 22: moved_text.cu and moved_self.cu of the corpus carry the
// runtime's file).
func TestHoldsAtAnyOffset(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	code := make([]byte, 64*codeBlock)
	rng.Read(code)
	var hashes []uint64
	for i := 0; i+codeBlock <= len(code); i += codeBlock {
		hashes = append(hashes, blockHash(code[i:i+codeBlock]))
	}
	blocks := newBlockSet(hashes)
	dir := t.TempDir()
	for _, c := range []struct {
		at, n int // where the copy starts in the file, and its bytes
		want  bool
	}{
		{0, len(code), true},
		{4096, len(code), true},
		{1<<20 - 37, len(code), true}, // across the first read's end
		{1<<20 - 5*codeBlock - 11, len(code), true},
		{777, (embeddedBlocks + 1) * codeBlock, true},  // at an odd offset
		{777, (embeddedBlocks+1)*codeBlock - 1, false}, // 16 whole blocks of the library's: not enough
		{0, embeddedBlocks * codeBlock, false},
		{0, (embeddedBlocks + 1) * codeBlock, true},
	} {
		data := make([]byte, c.at+c.n+999)
		copy(data[c.at:], code[:c.n])
		p := filepath.Join(dir, "prog")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := holds(p, blocks); got != c.want {
			t.Errorf("a copy of %d bytes at %d: holds %v, want %v", c.n, c.at, got, c.want)
		}
	}
	// Padding (one byte repeated) is no library's.
	pad := newBlockSet([]uint64{blockHash(make([]byte, codeBlock))})
	p := filepath.Join(dir, "zeros")
	os.WriteFile(p, make([]byte, 1<<21), 0o644)
	if holds(p, pad) {
		t.Error("a file of zeros holds a library's padding")
	}
}

// A library's blocks are read once and kept in the cache's folder by the
// file's identity: a later process (a student's next lessons check)
// reads them from there instead of hashing the driver's library again.
func TestLibraryBlocksKept(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	forget := func() {
		codeCache.Range(func(k, _ any) bool { codeCache.Delete(k); return true })
	}
	forget()
	dir := t.TempDir()
	first := libraryBlocks(exe, dir)
	if first == nil || len(first.sorted) == 0 {
		t.Fatal("no blocks in the test's own code")
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "codeblocks", "*"))
	if len(kept) != 1 {
		t.Fatalf("kept %v", kept)
	}
	forget()
	if again := libraryBlocks(exe, dir); !slices.Equal(again.sorted, first.sorted) || !again.has(first.sorted[0]) {
		t.Fatalf("read back %d blocks, %d made", len(again.sorted), len(first.sorted))
	}
	// What is kept is what is read: the file, not the library, answers.
	os.WriteFile(kept[0], []byte{42, 0, 0, 0, 0, 0, 0, 0}, 0o644)
	forget()
	if s := libraryBlocks(exe, dir); len(s.sorted) != 1 || !s.has(42) || s.has(first.sorted[0]) {
		t.Fatalf("read %v from the kept file", s.sorted)
	}
	forget()
}

// A copy that holds only the bytes its run passes holds no 64-byte block
// of the library, but its runs keep their distances: several of the
// library's 16-byte blocks at one distance from their places, over more
// than a function's span, refuse it (round 23: sparse_text.cu of the
// corpus); the same runs each at a distance of its own, or all within
// one function's span, do not.
func TestHoldsLayout(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	code := make([]byte, 256<<10)
	rng.Read(code)
	var blocks []placedBlock
	for i := 0; i+layoutBlock <= len(code); i += layoutBlock {
		blocks = append(blocks, placedBlock{rollHash(code[i : i+layoutBlock]), int64(i)})
	}
	lib := newLayoutSet(blocks)
	dir := t.TempDir()
	// Runs of 5 to 78 bytes, as sparse_text.cu's are.
	runs := [][2]int{{0xebd0, 6}, {0x241f0, 0x21}, {0x24218, 5}, {0x26390, 0x23}, {0x30ca0, 0x4e}, {0x30e1f, 0x12}, {0x385d0, 0x18}}
	for _, c := range []struct {
		name  string
		place func(i, at int) int // where run i (at its place at) lies in the file
		want  bool
	}{
		{"at their distances", func(_, at int) int { return 4096 + at }, true},
		{"at an odd distance", func(_, at int) int { return 777 + at }, true},
		{"across the first read's end", func(_, at int) int { return 1<<20 - 0x30000 + at }, true},
		{"each at a distance of its own", func(i, at int) int { return 4096 + i*1000 + (at & 0xff) }, false},
	} {
		data := make([]byte, 2<<20)
		for i, r := range runs {
			copy(data[c.place(i, r[0]):], code[r[0]:r[0]+r[1]])
		}
		p := filepath.Join(dir, "prog")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := holdsLayout(p, lib, layoutSpan); got != c.want {
			t.Errorf("runs %s: holds %v, want %v", c.name, got, c.want)
		}
	}
	// The driver's entry and the work it jumps to, 13 KiB apart
	// (sparse_driver.cu): past the driver's span, short of the runtime's.
	data0 := make([]byte, 64<<10)
	for _, r := range [][2]int{{0x2d60, 0x12}, {0x5860, 0x44}, {0x58b8, 0x43}, {0x5a6d, 0x18}} {
		copy(data0[1000+r[0]:], code[r[0]:r[0]+r[1]])
	}
	p0 := filepath.Join(dir, "prog")
	os.WriteFile(p0, data0, 0o644)
	if !holdsLayout(p0, lib, driverLayoutSpan) {
		t.Error("an entry and its work 13 KiB apart: not held within the driver's span")
	}
	if holdsLayout(p0, lib, layoutSpan) {
		t.Error("an entry and its work 13 KiB apart: held within the runtime's span")
	}
	// One block of the library repeated (a bound on what is kept).
	rep := make([]byte, 0, (layoutMatches+1)*layoutBlock)
	for len(rep) < cap(rep) {
		rep = append(rep, code[0x1000:0x1000+layoutBlock]...)
	}
	pr := filepath.Join(dir, "repeated")
	os.WriteFile(pr, rep, 0o644)
	if !holdsLayout(pr, lib, layoutSpan) {
		t.Error("a block of the library repeated past layoutMatches: not held")
	}
	// A function both compile alike: one place, many blocks.
	data := make([]byte, 64<<10)
	copy(data[1000:], code[0x20000:0x20000+2048])
	p := filepath.Join(dir, "prog")
	os.WriteFile(p, data, 0o644)
	if holdsLayout(p, lib, layoutSpan) {
		t.Error("2 KiB of the library in one place holds its layout")
	}
}

// TestBuiltProgramsHoldNoCopy reads every CUDA program under the folder
// LESSONS_TEST_BUILT_PROGRAMS (a build cache, `~/.cache/lessons`) as the
// inspection does, and wants none refused for holding the runtime's or
// the driver's code; it logs, for each library, the most of its blocks
// found at one distance and how far apart, against the bounds (round
// 23: 203 programs here, at most 19 of the runtime's over 960 bytes and
// 5 of the driver's over 64). For the GPU machine, whose CUDA 13 and
// driver 580 no one has measured.
func TestBuiltProgramsHoldNoCopy(t *testing.T) {
	root := os.Getenv("LESSONS_TEST_BUILT_PROGRAMS")
	if root == "" {
		t.Skip("LESSONS_TEST_BUILT_PROGRAMS names no folder of built programs")
	}
	programs, most := 0, map[string][2]int64{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := elf.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		needed, _ := f.ImportedLibraries()
		if !slices.ContainsFunc(needed, func(so string) bool { return strings.HasPrefix(so, "libcudart") }) {
			return nil
		}
		programs++
		if so := embeddedLibrary(f, p, ""); so != "" {
			t.Errorf("%s: refused, it holds %s's code", p, so)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, so := range append(slices.DeleteFunc(slices.Clone(needed), func(so string) bool { return !strings.HasPrefix(so, "libcudart") }), "libcuda.so.1") {
			lib := codeLayout(findLibrary(so, searchDirs(f, p)))
			if lib == nil {
				continue
			}
			n, span := mostAtOneDistance(data, lib)
			if m := most[so]; n > m[0] || n == m[0] && span > m[1] {
				most[so] = [2]int64{n, span}
			}
		}
		return nil
	})
	for so, m := range most {
		t.Logf("%s: at most %d blocks at one distance, %d bytes apart", so, m[0], m[1])
	}
	t.Logf("%d CUDA programs under %s", programs, root)
}

// mostAtOneDistance is the most of lib's blocks that data holds at one
// distance from their places, and how far apart the first and the last.
func mostAtOneDistance(data []byte, lib *layoutSet) (int64, int64) {
	type run struct {
		seen   map[int64]bool
		lo, hi int64
	}
	by := map[int64]*run{}
	for i := 0; i+layoutBlock <= len(data); i++ {
		if uniform(data[i : i+layoutBlock]) {
			continue
		}
		for _, p := range lib.places(rollHash(data[i : i+layoutBlock])) {
			r := by[int64(i)-p.at]
			if r == nil {
				r = &run{seen: map[int64]bool{}, lo: p.at, hi: p.at}
				by[int64(i)-p.at] = r
			}
			r.seen[p.at] = true
			r.lo, r.hi = min(r.lo, p.at), max(r.hi, p.at)
		}
	}
	var n, span int64
	for _, r := range by {
		if k := int64(len(r.seen)); k > n || k == n && r.hi-r.lo > span {
			n, span = k, r.hi-r.lo
		}
	}
	return n, span
}
