package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// An nvcc on the PATH that is lessons itself must not be called: it would
// call itself again without end (seen: 1,680 wrappers of one cell).
func TestNVCCMainRefusesItself(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	link := filepath.Join(t.TempDir(), "nvcc")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LESSONS_REAL_NVCC", link)
	t.Setenv("LESSONS_NVCC_VERSION", "12.4.131")
	t.Setenv("LESSONS_CACHE", t.TempDir())
	if code := NVCCMain([]string{"-o", "x", "x.cu"}); code != 127 {
		t.Fatalf("NVCCMain with itself as nvcc: exit %d, want 127", code)
	}
}
