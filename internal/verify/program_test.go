package verify

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// programKey tells programs apart by what is loaded of them: a change to
// the symbol table's names or to the GNU build id (what differs between
// two builds of one file by nvcc) leaves the key, a change to a loaded
// byte changes it, and a file that is no ELF is compared whole.
func TestProgramKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := func(p string) string {
		k, err := programKey(p)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	// This test's own program: an ELF file with a symbol table.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(orig))
	if err != nil {
		t.Skipf("the test's program is no ELF file: %v", err)
	}
	base := key(write("orig", orig))
	if key(write("copy", orig)) != base {
		t.Fatal("two copies of one program have different keys")
	}
	changed := func(name string, at uint64) string {
		data := bytes.Clone(orig)
		data[at] ^= 0xff
		return key(write(name, data))
	}
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || s.Size == 0 {
			continue
		}
		mid := s.Offset + s.Size/2
		switch {
		case s.Name == ".strtab" || s.Name == ".symtab":
			if changed(s.Name, mid) != base {
				t.Errorf("a byte of %s (not loaded) changed the key", s.Name)
			}
		case s.Name == ".rodata" || s.Name == ".text" || s.Name == ".data":
			if changed(s.Name, mid) == base {
				t.Errorf("a byte of %s (loaded) left the key as it was", s.Name)
			}
		}
	}
	// The GNU build id, where a program of the machine's has one.
	for _, p := range []string{"/bin/true", "/usr/bin/true", "/bin/ls"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		g, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			continue
		}
		s := g.Section(".note.gnu.build-id")
		if s == nil {
			continue
		}
		k := key(write("id0", data))
		data = bytes.Clone(data)
		data[s.Offset+s.Size-1] ^= 0xff
		if key(write("id1", data)) != k {
			t.Errorf("%s: a change to its build id changed the key", p)
		}
		break
	}
	// No ELF: compared whole.
	a := key(write("a.sh", []byte("#!/bin/sh\necho 1\n")))
	if key(write("b.sh", []byte("#!/bin/sh\necho 1\n"))) != a || key(write("c.sh", []byte("#!/bin/sh\necho 2\n"))) == a {
		t.Error("scripts are not compared whole")
	}
	if _, err := programKey(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing program has a key")
	}
}

// With a real nvcc (compile and link only; nothing runs): one file built
// twice, in two folders, as verify --mutants builds a solution and its
// mutants, gives one key though the two programs differ (nvcc's
// temporary file's name, with its process id, is in the symbol table);
// a changed message does not.
func TestProgramKeyNVCC(t *testing.T) {
	nvcc, err := exec.LookPath("nvcc")
	if err != nil || testing.Short() {
		t.Skip("no nvcc here, or -short")
	}
	src := []byte(`#include <cstdio>
__global__ void twice(float* x) { x[threadIdx.x] *= 2; }
int main() {
    float* d;
    if (cudaMalloc(&d, 256) != cudaSuccess) { printf("%s:%d: no GPU\n", __FILE__, __LINE__); return 1; }
    twice<<<1, 64>>>(d);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
`)
	build := func(name string, src []byte) (string, []byte) {
		dir := filepath.Join(t.TempDir(), name, "src")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "x.cu"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(nvcc, "-cudart", "shared", "-o", filepath.Join(dir, "..", "prog"), "x.cu")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("nvcc cannot build here: %v\n%s", err, out)
		}
		p := filepath.Join(dir, "..", "prog")
		k, err := programKey(p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		return k, data
	}
	k1, p1 := build("solution", src)
	k2, p2 := build("mutant", src)
	if k1 != k2 {
		t.Errorf("one file built twice has two keys (programs the same: %v)", bytes.Equal(p1, p2))
	}
	k3, _ := build("other", bytes.Replace(src, []byte(`"done\n"`), []byte(`"Done\n"`), 1))
	if k3 == k1 {
		t.Error("a changed message left the key as it was")
	}
}
