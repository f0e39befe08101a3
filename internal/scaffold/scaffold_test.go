package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
)

func TestNewCourseThenExercise(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gpu-course")
	m, err := New(dir, "", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].State != author.Written || m.Files[0].Student != "exercises/day001/vector_add.cu" {
		t.Fatalf("generated %+v", m.Files)
	}
	c, err := course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Gpu course" || len(c.Exercises) != 1 || len(c.Exercises[0].Hints) != 2 {
		t.Errorf("course = %+v", c)
	}
	if errs, _ := author.Lint(c, nil); len(errs) > 0 {
		t.Errorf("a new course does not lint: %v", errs)
	}
	if _, err := New(dir, "", "", "", ""); err == nil || !strings.Contains(err.Error(), "the folder is not empty") {
		t.Errorf("a second new course in the same folder: %v", err)
	}

	m, err = New("", "", dir, "scan", "day001")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Written, " ") != "solutions/day001/scan.cu exercises/day001/scan.toml course.toml" {
		t.Errorf("wrote %q", m.Written)
	}
	c, err = course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Exercise("scan")
	if err != nil || x.Lesson.Day != 1 {
		t.Fatalf("the new exercise: %v, %v", x, err)
	}
	if errs, _ := author.Lint(c, nil); len(errs) > 0 {
		t.Errorf("the course with a new exercise does not lint: %v", errs)
	}
	for id, want := range map[string]string{"scan": "already has an exercise", "Scan": "not an exercise id", "../x": "not an exercise id"} {
		if _, err := AddExercise(c, id, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddExercise(%q) = %v, want %q", id, err, want)
		}
	}
	os.WriteFile(filepath.Join(dir, "solutions", "day001", "fill.cu"), []byte("mine\n"), 0o644)
	if _, err := AddExercise(c, "fill", ""); err == nil || !strings.Contains(err.Error(), "solutions/day001/fill.cu: the file is already there") {
		t.Errorf("AddExercise over a file: %v", err)
	}
}

// Whatever the title, course.toml parses and keeps it.
func FuzzTitle(f *testing.F) {
	f.Add(`GPU "Memory" \ day`)
	f.Add("tab\there\x00\x7f")
	f.Fuzz(func(t *testing.T, title string) {
		data, err := fill("t", []byte(`title = "{{.Title}}"`+"\n"), map[string]string{"Title": tomlString(title)})
		if err != nil {
			t.Fatal(err)
		}
		m, err := course.ParseManifest("course.toml", data)
		if err != nil {
			t.Fatalf("title %q: %v\n%s", title, err, data)
		}
		plain := utf8.ValidString(title) && !strings.ContainsFunc(title, func(r rune) bool { return r < 0x20 || r == 0x7f })
		if plain && m.Title != title {
			t.Errorf("title %q came back %q", title, m.Title)
		}
	})
}
