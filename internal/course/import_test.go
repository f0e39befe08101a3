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

// TestImportSameNames: notebooks of one name from two folders (a course
// that has notebooks/reduction.ipynb and notebooks_cupy/reduction.ipynb)
// get slugs that differ by their folder, so that each slug names one
// lesson; the course is named after the folder that holds them all.
func TestImportSameNames(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "lesson", "testdata", "ipynb", "colab-pinned.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "gpu-course")
	var srcs []string
	for _, rel := range []string{"notebooks/reduction.ipynb", "notebooks_cupy/reduction.ipynb", "third/reduction.ipynb", "more/third/reduction.ipynb"} {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
		srcs = append(srcs, p)
	}
	dir := t.TempDir()
	var wrote []string
	if err := Import(ImportOptions{Sources: srcs, Dir: dir, Wrote: func(path, from string, n int) { wrote = append(wrote, filepath.Base(path)) }}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(wrote, " "); got != "day001-notebooks-reduction.ipynb day002-notebooks-cupy-reduction.ipynb day003-third-reduction.ipynb day004-reduction-2.ipynb course.toml" {
		t.Errorf("wrote %s", got)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Gpu course" {
		t.Errorf("title %q, want the folder that holds every notebook", c.Title)
	}
}

// TestFindEntryOneSlugTwice: a course.toml that names two lessons of one
// slug (day 9 and day 11 both "reduction") gets no guess for the slug.
func TestFindEntryOneSlugTwice(t *testing.T) {
	c := &Course{Lessons: []*Entry{{Day: 9, Slug: "reduction", File: "lessons/day009-reduction.md"}, {Day: 11, Slug: "reduction", File: "lessons/day011-reduction.md"}}}
	_, err := c.FindEntry("reduction")
	if err == nil || err.Error() != `"reduction" matches 2 lessons: day009-reduction, day011-reduction; say which, by its day (9) or its whole name` {
		t.Errorf("FindEntry(reduction) = %v", err)
	}
	if e, err := c.FindEntry("day011-reduction"); err != nil || e.Day != 11 {
		t.Errorf("FindEntry(day011-reduction) = %v, %v", e, err)
	}
}
