package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/course"
)

func tiny(t *testing.T) *course.Course {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"course.toml":         "title = \"T\"\n[[lesson]]\nfile = \"lessons/day001-a.md\"\n[[exercise]]\nid = \"a\"\nlesson = \"1\"\nstudent = \"exercises/a.cu\"\nsolution = \"solutions/a.cu\"\n[[exercise]]\nid = \"b\"\nlesson = \"1\"\nstudent = \"exercises/b.cu\"\nsolution = \"solutions/b.cu\"\n",
		"lessons/day001-a.md": "# A\n",
	}
	for _, f := range []string{"exercises/a.cu", "solutions/a.cu", "exercises/b.cu", "solutions/b.cu"} {
		files[f] = "x"
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSaveLoadNext(t *testing.T) {
	c := tiny(t)
	p, err := Load(c)
	if err != nil || len(p.Passed) != 0 {
		t.Fatalf("none yet: %+v, %v", p, err)
	}
	if id, ok := p.Next(c, ""); id != "a" || !ok {
		t.Errorf("first: %q %v", id, ok)
	}
	p.Passed["a"] = time.Now().UTC()
	if err := p.Save(c); err != nil {
		t.Fatal(err)
	}
	p, err = Load(c)
	if err != nil || len(p.Passed) != 1 {
		t.Fatalf("read back: %+v, %v", p, err)
	}
	if id, ok := p.Next(c, "b"); id != "" || ok {
		t.Errorf("after b, with a passed: %q %v (nothing else is left)", id, ok)
	}
	if id, _ := p.Next(c, ""); id != "b" {
		t.Errorf("next: %q", id)
	}
}

func TestSpoiltFileIsAnError(t *testing.T) {
	c := tiny(t)
	os.MkdirAll(filepath.Dir(File(c)), 0o755)
	os.WriteFile(File(c), []byte("{"), 0o644)
	if _, err := Load(c); err == nil || !strings.Contains(err.Error(), ".lessons/progress.json") {
		t.Errorf("err = %v", err)
	}
}
