package serve

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cudalessons/lessons/internal/course/coursetest"
)

func TestSiteFiles(t *testing.T) {
	root := coursetest.Tiny(t, []string{"pipe"}, nil)
	files := SiteFiles(root)
	if !slices.Contains(files, filepath.Join(root, "course.toml")) || len(files) < 2 {
		t.Fatalf("site files %q: want course.toml and the lesson", files)
	}
	// A course.toml that does not load: itself and the lessons folder's.
	os.WriteFile(filepath.Join(root, "course.toml"), []byte("title = \n"), 0o644)
	if got := SiteFiles(root); !slices.Contains(got, filepath.Join(root, "course.toml")) {
		t.Errorf("broken course.toml: %q", got)
	}
	if got := relList(root, []string{filepath.Join(root, "course.toml"), filepath.Join(root, "lessons", "a.md")}); got != "course.toml, lessons/a.md" {
		t.Errorf("relList %q", got)
	}
}
