package verify

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// programKey is what a built program does, as bytes: two programs with
// the same key behave alike whatever they are given (Trivial Compiler
// Equivalence, Papadakis et al., ICSE 2015: a mutant whose program is
// the original's is equivalent to it; two mutants whose programs are one
// need one run). For an ELF file it hashes what is loaded and how: the
// file's type, machine and entry point, each program header, and the
// name, address, flags and contents of each section that is loaded, the
// GNU build id (.note.gnu.build-id) apart. What is not loaded (the
// symbol table and its names, among them nvcc's temporary file's, which
// holds its process id) is left out, since it differs between two builds
// of one file. Any other file (a script, a stand-in compiler's program)
// is hashed whole.
func programKey(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the program %s to compare it: %w", path, err)
	}
	h := sha256.New()
	if !bytes.HasPrefix(data, []byte(elf.ELFMAG)) {
		h.Write([]byte("file\x00"))
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("reading the program %s to compare it: %w", path, err)
	}
	word := func(vs ...uint64) {
		for _, v := range vs {
			binary.Write(h, binary.LittleEndian, v)
		}
	}
	h.Write([]byte("elf\x00"))
	word(uint64(f.Class), uint64(f.Data), uint64(f.Type), uint64(f.Machine), f.Entry)
	for _, p := range f.Progs {
		word(uint64(p.Type), uint64(p.Flags), p.Vaddr, p.Filesz, p.Memsz, p.Align)
	}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Name == ".note.gnu.build-id" {
			continue
		}
		h.Write([]byte(s.Name + "\x00"))
		word(uint64(s.Type), uint64(s.Flags), s.Addr, s.Size)
		if s.Type == elf.SHT_NOBITS {
			continue
		}
		if _, err := io.Copy(h, s.Open()); err != nil {
			return "", fmt.Errorf("reading the program %s's section %s to compare it: %w", path, s.Name, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
