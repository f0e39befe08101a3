package witness

import (
	"debug/elf"
	"encoding/binary"
	"io"
	"os"

	"golang.org/x/arch/x86/x86asm"
)

// A probe on a function's first instruction counts the calls that start
// there; a program that does that instruction itself and jumps to the
// second (corpus/driver_skip.cu) is not counted. Every call, wherever it
// entered, leaves the function by one of its ways out: a `ret`, or a jump
// to another function (a tail call). So each way out is probed as well,
// and its count compared with the entry's: a function left more often
// than it was entered was entered past its first instruction.
//
// The CUDA driver's exported entries do their work in a function of the
// driver's own, reached through a slot of its data: driver 535's entry
// is a dispatch trampoline (`jmp *slot(%rip)`), driver 580's a small
// function that calls the work (`call *slot(%rip)`) and checks its
// answer. A program can call that function straight (corpus/driver_table.cu),
// and past its first instruction: it is probed too, its entry and its
// ways out.
//
// The instructions are decoded by golang.org/x/arch/x86/x86asm (the Go
// project's own disassembler, which its objdump uses), not by hand: the
// ways out of a function are found only by decoding every instruction
// from its start to its end, and x86's lengths depend on prefixes,
// ModRM and SIB bytes that a hand decoder of a few patterns gets wrong
// in silence. A function that does not decode (an instruction x86asm
// does not know) keeps its entry probe alone, as does every function of
// a file that is not x86-64 (arm64's drivers).

// The kinds of a probe's sites, each counted on its own.
const (
	atEntry  = iota // an entry point's first instruction
	entryOut        // a way out of the entry point
	atWork          // the first instruction of the function behind it
	workOut         // a way out of that function
	siteKinds
)

// kindNames say what a site of each kind is, as a report names it.
var kindNames = [siteKinds]string{"entered", "left", "work entered", "work left"}

// shape is what is probed of one exported function: file offsets.
type shape struct {
	entry     uint64
	exits     []uint64
	work      uint64 // 0: no function found behind the entry
	workExits []uint64
	// decoded is false where the entry's code was not decoded: its
	// first instruction alone is probed.
	decoded bool
	// unprobed are the jumps of the entry and the work that may leave
	// them unprobed (ways.unprobed), as addresses.
	unprobed []uint64
}

// image is a library file read for its functions' shapes.
type image struct {
	f        *elf.File
	raw      io.ReaderAt
	relative map[uint64]uint64
	sizes    map[uint64]uint64 // a function symbol's address -> its size
	spans    []span            // the unwind table's functions
	held     map[uint64]int    // an address -> how many relocated pointers hold it
	// starts are where a named function starts: a jump there is a tail
	// call. Not the unwind table's entries: GCC gives a function's cold
	// part an entry of its own, and the jump there comes back.
	starts map[uint64]bool
}

// openImage reads file for shapes, or nil where its code is not x86-64.
func openImage(file string) (*image, func()) {
	f, err := elf.Open(file)
	if err != nil {
		return nil, func() {}
	}
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		f.Close()
		return nil, func() {}
	}
	raw, err := os.Open(file)
	if err != nil {
		f.Close()
		return nil, func() {}
	}
	im := &image{f: f, raw: raw, relative: relativeRelocs(f), sizes: map[uint64]uint64{}, starts: map[uint64]bool{}, held: map[uint64]int{}}
	for _, to := range im.relative {
		im.held[to]++
	}
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, s := range append(syms, dyn...) {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			im.starts[s.Value] = true
			if s.Size > im.sizes[s.Value] {
				im.sizes[s.Value] = s.Size
			}
		}
	}
	if sec := f.Section(".eh_frame"); sec != nil {
		if data, err := sec.Data(); err == nil {
			im.spans = frameSpans(data, sec.Addr)
		}
	}
	return im, func() { raw.Close(); f.Close() }
}

// bounds are the addresses of the function that starts at a: its
// symbol's size, else the unwind table's entry that covers it.
func (im *image) bounds(a uint64) (span, bool) {
	if n := im.sizes[a]; n > 0 {
		return span{a, a + n}, true
	}
	if s, ok := spanAt(im.spans, a); ok {
		return span{a, s.hi}, true
	}
	return span{}, false
}

// spanStarts says whether an unwind entry starts at a.
func (im *image) spanStarts(a uint64) bool {
	s, ok := spanAt(im.spans, a)
	return ok && s.lo == a
}

// code is the bytes of the function at s.
func (im *image) code(s span) ([]byte, bool) {
	off, ok := addrToFile(im.f, s.lo, true)
	if !ok || s.hi-s.lo > 1<<20 {
		return nil, false
	}
	b := make([]byte, s.hi-s.lo)
	if n, _ := im.raw.ReadAt(b, int64(off)); n < len(b) {
		return nil, false
	}
	return b, true
}

// decode is what decoding the function that starts at address a found
// (waysOut), where its bounds and bytes are known.
func (im *image) decode(a uint64) (ways, bool) {
	b, ok := im.bounds(a)
	if !ok {
		return ways{}, false
	}
	code, ok := im.code(b)
	if !ok {
		return ways{}, false
	}
	return waysOut(code, a, im.starts)
}

// shapeAt is the shape of the exported function at file offset off.
func (im *image) shapeAt(off uint64) shape {
	sh := shape{entry: off}
	a, ok := fileToAddr(im.f, off)
	if !ok {
		return sh
	}
	w, ok := im.decode(a)
	if !ok {
		return sh
	}
	sh.decoded = true
	sh.exits = im.toFile(w.exits)
	sh.unprobed = w.unprobed
	if w.slot == 0 {
		return sh
	}
	work, ok := im.slotTarget(w.slot)
	if !ok || work == a {
		return sh
	}
	// The work of this entry alone: held by its slot and by no other
	// pointer of the file (driver 535: each function behind an entry is
	// held by one relocation, and called directly from nowhere), and
	// where it has no symbol, the start of an unwind entry. A helper that
	// other code reaches too would count more calls than the entry.
	if im.held[work] > 1 || (im.sizes[work] == 0 && !im.spanStarts(work)) {
		return sh
	}
	if ww, ok := im.decode(work); ok {
		sh.workExits = im.toFile(ww.exits)
		sh.unprobed = append(sh.unprobed, ww.unprobed...)
	}
	sh.work, _ = addrToFile(im.f, work, true)
	return sh
}

func (im *image) toFile(addrs []uint64) []uint64 {
	var out []uint64
	for _, a := range addrs {
		if off, ok := addrToFile(im.f, a, true); ok {
			out = append(out, off)
		}
	}
	return out
}

// slotTarget is the address a slot of the file's data holds at load: its
// relocation's, else the slot's bytes in the file.
func (im *image) slotTarget(slot uint64) (uint64, bool) {
	if t, ok := im.relative[slot]; ok {
		return t, true
	}
	at, ok := addrToFile(im.f, slot, false)
	if !ok {
		return 0, false
	}
	b := make([]byte, 8)
	if n, _ := im.raw.ReadAt(b, int64(at)); n < 8 {
		return 0, false
	}
	t := binary.LittleEndian.Uint64(b)
	if _, ok := addrToFile(im.f, t, true); !ok {
		return 0, false
	}
	return t, true
}

// ways is what decoding a function found.
type ways struct {
	// exits are the addresses of its ways out: each `ret`, and each jump
	// to the start of another function (a tail call, direct or through
	// a slot).
	exits []uint64
	// slot is the address of the slot of the function's first transfer
	// of control, where that is `jmp *slot(%rip)` or `call *slot(%rip)`
	// within its first slotWithin bytes (the work behind a driver's
	// entry point); 0 otherwise.
	slot uint64
	// unprobed are jumps that may leave the function but are not
	// probed: a conditional jump out of it (probed, it would count the
	// calls that do not take it), a jump through a register or a table
	// (a switch's, mostly), a jump to code outside it that no symbol
	// names (a cold part of the function, which comes back, or a
	// function of a stripped library).
	unprobed []uint64
}

// slotWithin is how far into an entry its call or jump through a slot
// may end to be the way to its work: the drivers' are at 18 bytes (535)
// and 53 (580's cuLaunchKernel, which pushes its stack arguments first).
// A function whose first transfer of control comes later is a function
// of its own, not an entry in front of one.
const slotWithin = 64

// waysOut decodes code, a whole function loaded at addr, instruction by
// instruction; starts are the addresses where functions start. ok is
// false where an instruction does not decode.
func waysOut(code []byte, addr uint64, starts map[uint64]bool) (w ways, ok bool) {
	end := addr + uint64(len(code))
	first := true
	for i := 0; i < len(code); {
		if endbr(code[i:]) {
			// endbr64 (endbr32): the landing mark of indirect branch
			// tracking, which compilers that enable it by default (Ubuntu's
			// gcc) put at each function's start; x86asm reads it as a
			// lone REP prefix and fails on the rest.
			i += 4
			continue
		}
		in, err := x86asm.Decode(code[i:], 64)
		if err != nil || in.Len == 0 {
			return w, false
		}
		pc := addr + uint64(i)
		next := pc + uint64(in.Len)
		i += in.Len
		switch in.Op {
		case x86asm.RET, x86asm.LRET:
			w.exits = append(w.exits, pc)
			first = false
		case x86asm.CALL:
			if m, isMem := in.Args[0].(x86asm.Mem); isMem && m.Base == x86asm.RIP && first && i <= slotWithin {
				w.slot = uint64(int64(next) + m.Disp)
			}
			first = false
		case x86asm.JMP:
			switch t := in.Args[0].(type) {
			case x86asm.Rel:
				to := uint64(int64(next) + int64(t))
				switch {
				case to >= addr && to < end:
				case starts[to]:
					w.exits = append(w.exits, pc)
				default:
					w.unprobed = append(w.unprobed, pc)
				}
			case x86asm.Mem:
				if t.Base == x86asm.RIP && t.Index == 0 {
					if first && i <= slotWithin {
						w.slot = uint64(int64(next) + t.Disp)
					}
					w.exits = append(w.exits, pc)
				} else {
					w.unprobed = append(w.unprobed, pc)
				}
			default:
				w.unprobed = append(w.unprobed, pc)
			}
			first = false
		case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JCXZ, x86asm.JE, x86asm.JECXZ, x86asm.JG, x86asm.JGE,
			x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JRCXZ, x86asm.JS,
			x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE, x86asm.XBEGIN:
			if t, isRel := in.Args[0].(x86asm.Rel); isRel {
				if to := uint64(int64(next) + int64(t)); to < addr || to >= end {
					w.unprobed = append(w.unprobed, pc)
				}
			}
		}
	}
	return w, true
}

// endbr is whether code starts with endbr64 or endbr32 (f3 0f 1e fa,
// f3 0f 1e fb).
func endbr(code []byte) bool {
	return len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb)
}
