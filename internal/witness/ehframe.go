package witness

import (
	"encoding/binary"
	"sort"
)

// The bounds of a function that has no symbol (the CUDA driver's
// internal functions, behind its exported entries) are those of the
// unwind table's entry (a DWARF call frame's FDE, in .eh_frame) that
// covers it: every function a C compiler emits has one, so that a C++
// exception or a debugger can unwind through it.

// span is a function's addresses, [lo, hi).
type span struct{ lo, hi uint64 }

// frameSpans reads the FDEs of an .eh_frame section loaded at addr: the
// address ranges of the functions they describe, sorted. An entry that
// does not parse ends the walk: the ranges read before it are kept.
func frameSpans(data []byte, addr uint64) []span {
	var out []span
	encs := map[int]byte{} // CIE offset -> its FDEs' pointer encoding
	for off := 0; off+8 <= len(data); {
		length := uint64(binary.LittleEndian.Uint32(data[off:]))
		hdr := 4
		if length == 0 {
			break // the terminator
		}
		if length == 0xffffffff {
			if off+12 > len(data) {
				break
			}
			length, hdr = binary.LittleEndian.Uint64(data[off+4:]), 12
		}
		end := uint64(off) + uint64(hdr) + length
		if length < 4 || end > uint64(len(data)) {
			break
		}
		body := data[off+hdr : end]
		id := binary.LittleEndian.Uint32(body)
		if id == 0 {
			encs[off] = cieEncoding(body[4:])
		} else if cie := off + hdr - int(id); cie >= 0 {
			enc, ok := encs[cie]
			if !ok {
				enc = 0
				if cie+8 <= len(data) {
					if l := int(binary.LittleEndian.Uint32(data[cie:])); l >= 4 && cie+4+l <= len(data) {
						enc = cieEncoding(data[cie+8 : cie+4+l])
						encs[cie] = enc
					}
				}
			}
			at := addr + uint64(off+hdr+4)
			lo, n, ok := readPointer(body[4:], enc, at)
			if ok {
				rng, _, ok2 := readPointer(body[4+n:], enc&0x0f, 0)
				if ok2 && lo != 0 && rng != 0 && lo+rng > lo {
					out = append(out, span{lo, lo + rng})
				}
			}
		}
		off = int(end)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	return out
}

// cieEncoding is the pointer encoding a CIE (its bytes after the id)
// gives its FDEs: its augmentation's 'R', else an absolute pointer.
func cieEncoding(b []byte) byte {
	if len(b) < 2 {
		return 0
	}
	version := b[0]
	i := 1
	aug := i
	for i < len(b) && b[i] != 0 {
		i++
	}
	if i >= len(b) {
		return 0
	}
	augmentation := string(b[aug:i])
	i++
	_, i = uleb(b, i) // code alignment
	_, i = uleb(b, i) // data alignment (signed: its length is all that matters)
	if version == 1 {
		i++
	} else {
		_, i = uleb(b, i)
	}
	if len(augmentation) == 0 || augmentation[0] != 'z' {
		return 0
	}
	_, i = uleb(b, i)
	for _, c := range augmentation[1:] {
		if i >= len(b) {
			return 0
		}
		switch c {
		case 'R':
			return b[i]
		case 'L':
			i++
		case 'P':
			enc := b[i]
			_, n, ok := readPointer(b[i+1:], enc, 0)
			if !ok {
				return 0
			}
			i += 1 + n
		case 'S', 'B':
		default:
			return 0
		}
	}
	return 0
}

// uleb reads an unsigned LEB128 number at b[i:]: it and the index after.
func uleb(b []byte, i int) (uint64, int) {
	var v uint64
	for shift := 0; i < len(b); shift += 7 {
		c := b[i]
		i++
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c&0x80 == 0 {
			break
		}
	}
	return v, i
}

// readPointer reads a pointer of DWARF's exception-header encoding enc
// at the start of b, which lies at address at (for a PC-relative one):
// the value, its length in bytes.
func readPointer(b []byte, enc byte, at uint64) (uint64, int, bool) {
	if enc == 0xff { // DW_EH_PE_omit
		return 0, 0, false
	}
	var v uint64
	var n int
	switch enc & 0x0f {
	case 0x00, 0x04, 0x0c: // absptr, udata8, sdata8
		if len(b) < 8 {
			return 0, 0, false
		}
		v, n = binary.LittleEndian.Uint64(b), 8
	case 0x03: // udata4
		if len(b) < 4 {
			return 0, 0, false
		}
		v, n = uint64(binary.LittleEndian.Uint32(b)), 4
	case 0x0b: // sdata4
		if len(b) < 4 {
			return 0, 0, false
		}
		v, n = uint64(int64(int32(binary.LittleEndian.Uint32(b)))), 4
	case 0x02: // udata2
		if len(b) < 2 {
			return 0, 0, false
		}
		v, n = uint64(binary.LittleEndian.Uint16(b)), 2
	case 0x0a: // sdata2
		if len(b) < 2 {
			return 0, 0, false
		}
		v, n = uint64(int64(int16(binary.LittleEndian.Uint16(b)))), 2
	default:
		return 0, 0, false
	}
	switch enc & 0x70 {
	case 0x00:
	case 0x10: // pcrel
		v += at
	default:
		return 0, 0, false
	}
	return v, n, true
}

// spanAt is the span of spans (sorted) that holds a, if one does.
func spanAt(spans []span, a uint64) (span, bool) {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].lo > a })
	if i > 0 && spans[i-1].lo <= a && a < spans[i-1].hi {
		return spans[i-1], true
	}
	return span{}, false
}
