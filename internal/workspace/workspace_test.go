package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
)

// For makes .lessons/work/NAME in the course, and refuses a link anywhere
// on its way, absolute or relative; nothing is made where it points.
func TestForRefusesLinks(t *testing.T) {
	l := &lesson.Lesson{Path: "lessons/day001-a.md"}
	root := t.TempDir()
	ws, err := For(&course.Course{Root: root}, l)
	if err != nil || ws != filepath.Join(root, ".lessons", "work", "day001-a") {
		t.Fatalf("For = %q, %v", ws, err)
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		t.Fatalf("not made: %v", err)
	}
	for _, at := range []string{".lessons", ".lessons/work", ".lessons/work/day001-a"} {
		for _, kind := range []string{"absolute", "relative"} {
			root, outside := t.TempDir(), t.TempDir()
			link := filepath.Join(root, at)
			os.MkdirAll(filepath.Dir(link), 0o755)
			target := outside
			if kind == "relative" {
				target, _ = filepath.Rel(filepath.Dir(link), outside)
			}
			os.Symlink(target, link)
			if _, err := For(&course.Course{Root: root}, l); err == nil || !strings.Contains(err.Error(), at+" is a link") {
				t.Errorf("%s %s: %v", kind, at, err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("%s %s: made %v outside", kind, at, entries)
			}
		}
	}
}

// The wrapper's folder linked elsewhere: no nvcc is put where it points.
func TestMakeWrapperRefusesALinkedFolder(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(ws, WrapperName))
	if err := MakeWrapper(ws); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Lstat(filepath.Join(outside, "nvcc")); err == nil {
		t.Error("an nvcc was put outside the workspace")
	}
	ws = t.TempDir()
	if err := MakeWrapper(ws); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Readlink(filepath.Join(WrapperDir(ws), "nvcc")); err != nil {
		t.Error(err)
	}
}
