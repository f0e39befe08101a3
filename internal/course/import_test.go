package course

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImport: notebooks named by day come in day order, each file written
// is told, and what exists is not overwritten without Force.
func TestImport(t *testing.T) {
	src := filepath.Join("..", "lesson", "testdata", "ipynb")
	nb := t.TempDir()
	for name, from := range map[string]string{"Day_10_streams.ipynb": "jupyterlab-streams.ipynb", "day3-pinned.ipynb": "colab-pinned.ipynb"} {
		data, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(nb, name), data, 0o644)
	}
	dir := t.TempDir()
	var wrote []string
	opts := ImportOptions{Sources: []string{nb}, To: "ipynb", Dir: dir, Wrote: func(path, from string, n int) {
		rel, _ := filepath.Rel(dir, path)
		wrote = append(wrote, rel)
	}}
	if err := Import(opts); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(wrote, " "); got != "lessons/day003-pinned.ipynb lessons/day010-streams.ipynb course.toml" {
		t.Errorf("wrote %s", got)
	}
	c, err := Load(dir)
	if err != nil || len(c.Lessons) != 2 || c.Lessons[0].Day != 3 {
		t.Fatalf("the course made: %+v, %v", c, err)
	}
	if err := Import(opts); err == nil || !strings.Contains(err.Error(), "already exist") {
		t.Errorf("again without Force: %v", err)
	}
}
