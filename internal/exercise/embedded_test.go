package exercise

import (
	"math/rand"
	"os"
	"path/filepath"
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
	blocks := map[uint64]bool{}
	for i := 0; i+codeBlock <= len(code); i += codeBlock {
		blocks[blockHash(code[i:i+codeBlock])] = true
	}
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
	pad := map[uint64]bool{}
	zero := make([]byte, codeBlock)
	pad[blockHash(zero)] = true
	p := filepath.Join(dir, "zeros")
	os.WriteFile(p, make([]byte, 1<<21), 0o644)
	if holds(p, pad) {
		t.Error("a file of zeros holds a library's padding")
	}
}
