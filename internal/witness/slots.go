package witness

import (
	"debug/elf"
	"encoding/binary"
)

// Where the driver's slots lead. Each function the CUDA driver exports
// reaches the function that does its work through a slot of the
// driver's own data (driver 535: a dispatch trampoline, `jmp
// *slot(%rip)`; driver 580: `call *slot(%rip)`), which a relocation
// fills at load. A program can read the slot (plain data) and call what
// it holds, so that the exported entry never runs
// (review/attack14/driver_table.cu): the function behind is probed too
// (exits.go), found here through the slot's relocation.

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
