package nvccwrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An nvcc on the PATH that is lessons itself must not be called: it would
// call itself again without end (seen: 1,680 wrappers of one cell).
func TestMainRefusesItself(t *testing.T) {
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
	if code := Main([]string{"-o", "x", "x.cu"}); code != 127 {
		t.Fatalf("Main with itself as nvcc: exit %d, want 127", code)
	}
}

// In a cell traced for its timeline, builds use the shared CUDA runtime
// (the statistics library cannot see the static one's calls), unless the
// command names a runtime; elsewhere the arguments are nvcc's own.
func TestForTrace(t *testing.T) {
	for _, c := range []struct {
		args []string
		cell string
		want string
	}{
		{[]string{"-o", "x", "x.cu"}, "", "-o x x.cu"},
		{[]string{"-o", "x", "x.cu"}, "0", "-o x x.cu"},
		{[]string{"-o", "x", "x.cu"}, "1", "-o x x.cu -cudart shared"},
		{[]string{"-cudart", "static", "-o", "x", "x.cu"}, "1", "-cudart static -o x x.cu"},
		{[]string{"--cudart=none", "x.cu"}, "1", "--cudart=none x.cu"},
	} {
		if got := strings.Join(ForTrace(c.args, c.cell), " "); got != c.want {
			t.Errorf("%q with LESSONS_STATS_CELL=%q: %q, want %q", c.args, c.cell, got, c.want)
		}
	}
}
