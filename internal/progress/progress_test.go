package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

func tiny(t *testing.T) *course.Course {
	t.Helper()
	c, err := course.Load(coursetest.Tiny(t, []string{"a", "b"}, nil))
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
