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

// A course that commits .lessons, or progress.json, as a link out: the
// progress is neither read from nor written to where it points.
func TestProgressLinkedOutRefused(t *testing.T) {
	for _, at := range []string{".lessons", ".lessons/progress.json"} {
		for _, kind := range []string{"absolute", "relative"} {
			t.Run(kind+"/"+at, func(t *testing.T) {
				c := tiny(t)
				outside := t.TempDir()
				victim := filepath.Join(outside, "progress.json")
				os.WriteFile(victim, []byte(`{"passed": {"a": "2020-01-01T00:00:00Z"}}`), 0o644)
				link := filepath.Join(c.Root, at)
				os.MkdirAll(filepath.Dir(link), 0o755)
				target := outside
				if at == ".lessons/progress.json" {
					target = victim
				}
				if kind == "relative" {
					target, _ = filepath.Rel(filepath.Dir(link), target)
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				if _, err := Load(c); err == nil {
					t.Errorf("Load read through the link")
				}
				p := &Progress{Passed: map[string]time.Time{"b": time.Now()}}
				err := p.Save(c)
				if data, _ := os.ReadFile(victim); !strings.Contains(string(data), "2020") {
					t.Errorf("written through the link: %s", data)
				}
				if at == ".lessons" && err == nil {
					t.Errorf("Save through a linked .lessons: no error")
				}
			})
		}
	}
}

// RevealHint holds the Gated hint back until a check has failed
// (Waiting), and gives it after Fail.
func TestRevealHintGated(t *testing.T) {
	x := &course.Exercise{ID: "pipe", Hints: []string{"think", "read", "nudge"}}
	p := &Progress{}
	for range 3 {
		p.RevealHint(x)
	}
	if shown, more := p.RevealHint(x); len(shown) != 2 || !more || !p.Waiting(x) {
		t.Errorf("before a failure: %q %v waiting %v", shown, more, p.Waiting(x))
	}
	p.Fail(x)
	if shown, more := p.RevealHint(x); len(shown) != 3 || more || p.Waiting(x) {
		t.Errorf("after a failure: %q %v waiting %v", shown, more, p.Waiting(x))
	}
	two := &course.Exercise{ID: "two", Hints: []string{"think", "read"}}
	p.RevealHint(two)
	if shown, _ := p.RevealHint(two); len(shown) != 2 || p.Waiting(two) {
		t.Errorf("two hints wait for nothing: %q", shown)
	}
}
