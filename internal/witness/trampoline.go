package witness

import (
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
)

// Dispatch trampolines. Each function the CUDA driver exports
// (libcuda.so, driver 535 read here) is a few bytes that jump through a
// slot of the driver's own data to the function that does the work:
//
//	cmpl $0x321cba00, flag(%rip)  ; the driver torn down?
//	je   deinit                    ; then answer CUDA_ERROR_DEINITIALIZED
//	jmp  *slot(%rip)               ; else the work, wherever the slot points
//
// A program can read the slot (plain data) and call what it holds: the
// exported entry, where a probe by the symbol's address sits, never runs,
// and the calls go uncounted (review/attack14/driver_table.cu: a hundred
// cuMemAlloc unseen by the statistics library and the witness alike).
// So where an entry is such a trampoline, the probe goes behind it, on
// the function its slot holds in the file (its relocation): every call
// through the entry reaches it once, and so does a call of the slot's
// function made straight.

// behindTrampolines is offsets (a file's function entries, as file
// offsets) with each entry that is a dispatch trampoline replaced by the
// file offset of the function its slot holds. Entries of another shape,
// and every entry of a file that is not x86-64, are kept as they are.
func behindTrampolines(file string, offsets map[string][]uint64) map[string][]uint64 {
	f, err := elf.Open(file)
	if err != nil {
		return offsets
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return offsets
	}
	raw, err := os.Open(file)
	if err != nil {
		return offsets
	}
	defer raw.Close()
	relative := relativeRelocs(f)
	out := make(map[string][]uint64, len(offsets))
	for name, offs := range offsets {
		var moved []uint64
		for _, off := range offs {
			if to, ok := trampolineTarget(f, raw, relative, off); ok {
				off = to
			}
			dup := false
			for _, o := range moved {
				dup = dup || o == off
			}
			if !dup {
				moved = append(moved, off)
			}
		}
		out[name] = moved
	}
	return out
}

// relativeRelocs maps each address an R_X86_64_RELATIVE relocation of f
// writes to the address it writes there (the addend: the object's base
// is added at load).
func relativeRelocs(f *elf.File) map[uint64]uint64 {
	out := map[uint64]uint64{}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		data, err := s.Data()
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			at := binary.LittleEndian.Uint64(data[i:])
			info := binary.LittleEndian.Uint64(data[i+8:])
			addend := binary.LittleEndian.Uint64(data[i+16:])
			if elf.R_X86_64(info&0xffffffff) == elf.R_X86_64_RELATIVE {
				out[at] = addend
			}
		}
	}
	return out
}

// trampolineTarget is the file offset of the function the dispatch
// trampoline at file offset off jumps to, read from its slot's
// relocation (or the slot's bytes in the file, where it has none).
func trampolineTarget(f *elf.File, raw io.ReaderAt, relative map[uint64]uint64, off uint64) (uint64, bool) {
	code := make([]byte, 32)
	if n, _ := raw.ReadAt(code, int64(off)); n < len(code) {
		return 0, false
	}
	vaddr, ok := fileToAddr(f, off)
	if !ok {
		return 0, false
	}
	i := 0
	if code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa { // endbr64
		i = 4
	}
	if code[i] == 0x81 && code[i+1] == 0x3d { // cmpl $imm32, disp32(%rip)
		i += 10
		switch {
		case code[i] == 0x74: // je rel8
			i += 2
		case code[i] == 0x0f && code[i+1] == 0x84: // je rel32
			i += 6
		default:
			return 0, false
		}
	}
	if i+6 > len(code) || code[i] != 0xff || code[i+1] != 0x25 { // jmp *disp32(%rip)
		return 0, false
	}
	disp := int32(binary.LittleEndian.Uint32(code[i+2:]))
	slot := vaddr + uint64(i+6) + uint64(int64(disp))
	target, ok := relative[slot]
	if !ok {
		at, ok := addrToFile(f, slot, false)
		if !ok {
			return 0, false
		}
		b := make([]byte, 8)
		if n, _ := raw.ReadAt(b, int64(at)); n < 8 {
			return 0, false
		}
		target = binary.LittleEndian.Uint64(b)
	}
	return addrToFile(f, target, true)
}

// fileToAddr is the address of file offset off in an executable segment.
func fileToAddr(f *elf.File, off uint64) (uint64, bool) {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Off <= off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// addrToFile is the file offset of address a, in an executable segment
// where exec says so, else in any loaded segment's bytes in the file.
func addrToFile(f *elf.File, a uint64, exec bool) (uint64, bool) {
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || (exec && p.Flags&elf.PF_X == 0) {
			continue
		}
		if p.Vaddr <= a && a < p.Vaddr+p.Filesz {
			return a - p.Vaddr + p.Off, true
		}
	}
	return 0, false
}
