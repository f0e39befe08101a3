package exercise

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// A uprobe belongs to its file's inode and offset, so the CUDA runtime's
// code run from anywhere else is counted by no probe of the outside
// witness. A program can carry that code in its own: an .incbin of the
// runtime's file in a section that is allocated and executable, which
// the linker puts in the program's text, so the kernel maps the copy
// executable at exec with the program; its data copied from the live
// runtime beside it, the copy's cudaMalloc ran a hundred times unprobed,
// with no executable mapping made and nothing written over code
// (corpus/moved_text.cu, round 22: passed as root with the witness on,
// in the plain runner and in the grading sandbox). So the program's file
// is read before the run for the CUDA runtime's and driver's code: a
// program whose file holds more than a few blocks of theirs is refused,
// wherever they lie in it (moved_self.cu kept its copy in read-only data
// and mapped it from its own file). x86 code runs at any byte's offset once its data keep their
// distance, so the program's code is looked at every byte: a rolling
// hash of each window of codeBlock bytes, held against the libraries'
// blocks at multiples of codeBlock (any run of their code twice that
// long holds one whole).

// codeBlock is the size of the blocks compared.
const codeBlock = 64

// embeddedBlocks is how many of a library's blocks a program's code may
// hold before it is refused: a few by chance (a compiler's idiom, the
// C runtime's start-up files, which a library and a program both carry
// with their own offsets), never a copy of a function.
const embeddedBlocks = 16

// rollBase is the rolling hash's multiplier (mod 2^64).
const rollBase = 0x100000001b3

// rollOut is rollBase^codeBlock, which takes the window's first byte out.
var rollOut = func() uint64 {
	p := uint64(1)
	for i := 0; i < codeBlock; i++ {
		p *= rollBase
	}
	return p
}()

func blockHash(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*rollBase + uint64(c) + 1
	}
	return h
}

// uniform says whether a block is one byte repeated (padding, int3s):
// it says nothing of where it came from.
func uniform(b []byte) bool {
	for _, c := range b[1:] {
		if c != b[0] {
			return false
		}
	}
	return true
}

// codeSegments are the bytes of f's executable segments, as the file
// holds them.
func codeSegments(f *elf.File) [][]byte {
	var out [][]byte
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 || p.Filesz == 0 || p.Filesz > 1<<30 {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(p.Open(), int64(p.Filesz)))
		if err == nil {
			out = append(out, data)
		}
	}
	return out
}

// blockSet is a library's blocks' hashes, sorted, behind a bitmap of
// their top bits: a window of a program's file is looked up with one
// bit's test, and searched only when the bit is set.
type blockSet struct {
	sorted []uint64
	bits   []uint64 // 1<<blockSetBits bits
}

const blockSetBits = 24

func newBlockSet(hashes []uint64) *blockSet {
	slices.Sort(hashes)
	s := &blockSet{sorted: slices.Compact(hashes), bits: make([]uint64, 1<<blockSetBits/64)}
	for _, h := range s.sorted {
		i := h >> (64 - blockSetBits)
		s.bits[i/64] |= 1 << (i % 64)
	}
	return s
}

func (s *blockSet) has(h uint64) bool {
	i := h >> (64 - blockSetBits)
	if s.bits[i/64]&(1<<(i%64)) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(s.sorted, h)
	return ok
}

var codeCache sync.Map // key: the file's identity → *blockSet

// libraryBlocks are the hashes of the blocks of a library's executable
// segments at multiples of codeBlock, uniform ones left out: read once
// a process, and kept in cacheDir (when not "") by the file's identity,
// so that a lessons check of one program does not hash the driver's
// library again (about 100 MB with driver 580).
func libraryBlocks(path, cacheDir string) *blockSet {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	var ino, dev uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino, dev = sys.Ino, uint64(sys.Dev)
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%d\x00%d\x00%d", path, st.Size(), st.ModTime().UnixNano(), ino, dev, codeBlock)
	if v, ok := codeCache.Load(key); ok {
		return v.(*blockSet)
	}
	var file string
	if cacheDir != "" {
		sum := sha256.Sum256([]byte(key))
		file = filepath.Join(cacheDir, "codeblocks", hex.EncodeToString(sum[:12]))
	}
	var hashes []uint64
	if data, err := os.ReadFile(file); file != "" && err == nil && len(data)%8 == 0 {
		hashes = make([]uint64, len(data)/8)
		for i := range hashes {
			hashes[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
	} else {
		if f, err := elf.Open(path); err == nil {
			for _, seg := range codeSegments(f) {
				for i := 0; i+codeBlock <= len(seg); i += codeBlock {
					if b := seg[i : i+codeBlock]; !uniform(b) {
						hashes = append(hashes, blockHash(b))
					}
				}
			}
			f.Close()
		}
		if file != "" {
			keepBlocks(file, hashes)
		}
	}
	s := newBlockSet(hashes)
	codeCache.Store(key, s)
	return s
}

// keepBlocks writes hashes to file, whole or not at all.
func keepBlocks(file string, hashes []uint64) {
	data := make([]byte, 8*len(hashes))
	for i, h := range hashes {
		binary.LittleEndian.PutUint64(data[8*i:], h)
	}
	if os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".blocks-")
	if err != nil {
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// embeddedLibrary names the CUDA runtime or driver whose code the
// program's file holds (more than embeddedBlocks distinct blocks of it),
// or "".
func embeddedLibrary(f *elf.File, prog, cacheDir string) string {
	dirs := searchDirs(f, prog)
	var libs []string
	needed, _ := f.ImportedLibraries()
	for _, so := range needed {
		if strings.HasPrefix(so, "libcudart") {
			libs = append(libs, so)
		}
	}
	libs = append(libs, "libcuda.so.1")
	for _, so := range libs {
		path := findLibrary(so, dirs)
		if path == "" {
			continue
		}
		if blocks := libraryBlocks(path, cacheDir); blocks != nil && len(blocks.sorted) > 0 && holds(prog, blocks) {
			return so
		}
		span := int64(layoutSpan)
		if so == "libcuda.so.1" {
			span = driverLayoutSpan
		}
		if holdsLayout(prog, codeLayout(path), span) {
			return so
		}
	}
	return ""
}

// holds says whether the file at prog holds more than embeddedBlocks
// distinct blocks of blocks, at any byte's offset: the whole file, not
// only its code (a copy kept in its data, or in a section never loaded,
// is mapped executable from the file itself: moved_self.cu, from
// /proc/self/exe), read as a stream (a build may be large).
func holds(prog string, blocks *blockSet) bool {
	f, err := os.Open(prog)
	if err != nil {
		return false
	}
	defer f.Close()
	seen := map[uint64]bool{}
	check := func(h uint64, b []byte) bool {
		if blocks.has(h) && !seen[h] && !uniform(b) {
			seen[h] = true
		}
		return len(seen) > embeddedBlocks
	}
	buf := make([]byte, 0, 1<<20+codeBlock)
	var h uint64
	for started := false; ; {
		n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if !started {
			if len(buf) < codeBlock {
				return false
			}
			h, started = blockHash(buf[:codeBlock]), true
			if check(h, buf[:codeBlock]) {
				return true
			}
		}
		// The window at 0 is checked (the first, or the last one of the
		// bytes read before): roll on.
		i := 0
		for ; i+codeBlock < len(buf); i++ {
			h = h*rollBase + uint64(buf[i+codeBlock]) + 1 - rollOut*(uint64(buf[i])+1)
			if check(h, buf[i+1:i+1+codeBlock]) {
				return true
			}
		}
		if err != nil {
			return false
		}
		buf = append(buf[:0], buf[i:]...)
	}
}

// A copy need not be whole: one that holds only the bytes its run passes
// (cudaMalloc's way, the functions it calls, a PLT stub: seven runs of
// 5 to 78 bytes, zeros around them) holds no 64-byte block of the
// runtime's (corpus/sparse_text.cu, round 23: passed as root with the
// witness on, in the plain runner and in the grading sandbox). Its runs
// keep their distances, for the calls between them are relative: so the
// runtime's smaller blocks are looked for too, and a program is refused
// where several of them lie at one distance from their places in the
// library over a span that no one function of the library covers (a
// function both compile alike, a header's inline one, is one place, not
// a span).

// layoutBlock is the size of the smaller blocks.
const layoutBlock = 16

// layoutBlocks is how many distinct smaller blocks at one distance, and
// layoutSpan how far apart in the library the first and the last of
// them, refuse a program. nvcc links pieces of the runtime's own code
// into every program (its `__cudart` functions): in 203 CUDA programs of
// this machine, up to 19 of the runtime's blocks lay at one distance,
// never more than 960 bytes apart. Nothing of the driver is linked into
// a program, and there no more than 5 lay at one distance, within 64
// bytes: driverLayoutSpan is the driver's (sparse_driver.cu of the
// corpus, its entry and the work it jumps to, spans 13 KiB).
const (
	layoutBlocks     = 4
	layoutSpan       = 16 << 10
	driverLayoutSpan = 4 << 10
)

// layoutMatches is how many windows of a library's smaller blocks a
// program may hold in all before it is refused whatever their distances.
const layoutMatches = 1 << 16

// layoutCommon is how many places of the library a smaller block may
// have and still say where it came from.
const layoutCommon = 4

// layoutSet is a library's smaller blocks: their hashes, sorted, each
// beside its place (an offset in the library's file), behind a bitmap of
// their top bits. About 16 bytes a block: 5 MB for driver 535's code.
type layoutSet struct {
	set    *blockSet
	blocks []placedBlock
}

type placedBlock struct {
	hash uint64
	at   int64
}

// places are the offsets in the library of the block whose hash is h.
func (l *layoutSet) places(h uint64) []placedBlock {
	if !l.set.has(h) {
		return nil
	}
	i, _ := slices.BinarySearchFunc(l.blocks, h, func(b placedBlock, h uint64) int { return cmpHash(b.hash, h) })
	j := i
	for j < len(l.blocks) && l.blocks[j].hash == h {
		j++
	}
	return l.blocks[i:j]
}

func cmpHash(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func rollHash(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*rollBase + uint64(c) + 1
	}
	return h
}

func rollPower(n int) uint64 {
	p := uint64(1)
	for i := 0; i < n; i++ {
		p *= rollBase
	}
	return p
}

// newLayoutSet is the layoutSet of blocks, a block found at more than
// layoutCommon places left out.
func newLayoutSet(blocks []placedBlock) *layoutSet {
	slices.SortFunc(blocks, func(a, b placedBlock) int { return cmpHash(a.hash, b.hash) })
	kept := blocks[:0]
	var hashes []uint64
	for i := 0; i < len(blocks); {
		j := i
		for j < len(blocks) && blocks[j].hash == blocks[i].hash {
			j++
		}
		if j-i <= layoutCommon {
			kept = append(kept, blocks[i:j]...)
			hashes = append(hashes, blocks[i].hash)
		}
		i = j
	}
	return &layoutSet{set: newBlockSet(hashes), blocks: slices.Clip(kept)}
}

// codeLayout reads path's executable segments into a layoutSet, once
// a process.
func codeLayout(path string) *layoutSet {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	key := fmt.Sprintf("layout\x00%s\x00%d\x00%d\x00%d", path, st.Size(), st.ModTime().UnixNano(), layoutBlock)
	if v, ok := codeCache.Load(key); ok {
		return v.(*layoutSet)
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var blocks []placedBlock
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 || p.Filesz == 0 || p.Filesz > 1<<30 {
			continue
		}
		seg, err := io.ReadAll(io.LimitReader(p.Open(), int64(p.Filesz)))
		if err != nil {
			continue
		}
		for i := 0; i+layoutBlock <= len(seg); i += layoutBlock {
			if b := seg[i : i+layoutBlock]; !uniform(b) {
				blocks = append(blocks, placedBlock{rollHash(b), int64(p.Off) + int64(i)})
			}
		}
	}
	ls := newLayoutSet(blocks)
	codeCache.Store(key, ls)
	return ls
}

// holdsLayout says whether the file at prog holds layoutBlocks distinct
// smaller blocks of lib at one distance from their places in the
// library, spanning span bytes of it or more, or more than layoutMatches
// windows of the library's blocks in all (no honest program comes near:
// a bound on what is kept for a file of one block repeated). Read as a
// stream, as holds reads it.
func holdsLayout(prog string, lib *layoutSet, span int64) bool {
	if lib == nil {
		return false
	}
	f, err := os.Open(prog)
	if err != nil {
		return false
	}
	defer f.Close()
	// The windows at one distance are met in the order of their places,
	// so a place greater than the last is a block not counted yet.
	type run struct {
		n            int
		lo, hi, last int64
	}
	byDistance := map[int64]*run{}
	matches := 0
	// check looks at the window at the file's offset at, whose hash is h.
	check := func(h uint64, b []byte, at int64) bool {
		ps := lib.places(h)
		if len(ps) == 0 || uniform(b) {
			return false
		}
		if matches += len(ps); matches > layoutMatches {
			return true
		}
		for _, p := range ps {
			r := byDistance[at-p.at]
			if r == nil {
				r = &run{lo: p.at, hi: p.at, last: -1}
				byDistance[at-p.at] = r
			}
			if p.at > r.last {
				r.n, r.last = r.n+1, p.at
			}
			r.lo, r.hi = min(r.lo, p.at), max(r.hi, p.at)
			if r.n >= layoutBlocks && r.hi-r.lo >= span {
				return true
			}
		}
		return false
	}
	out := rollPower(layoutBlock)
	buf := make([]byte, 0, 1<<20+layoutBlock)
	var h uint64
	var pos int64 // the file's offset of buf[0]
	for started := false; ; {
		n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if !started {
			if len(buf) < layoutBlock {
				return false
			}
			h, started = rollHash(buf[:layoutBlock]), true
			if check(h, buf[:layoutBlock], 0) {
				return true
			}
		}
		// The window at 0 is looked at: roll on.
		i := 0
		for ; i+layoutBlock < len(buf); i++ {
			h = h*rollBase + uint64(buf[i+layoutBlock]) + 1 - out*(uint64(buf[i])+1)
			if check(h, buf[i+1:i+1+layoutBlock], pos+int64(i)+1) {
				return true
			}
		}
		if err != nil {
			return false
		}
		pos += int64(i)
		buf = append(buf[:0], buf[i:]...)
	}
}
