package exercise

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

// A course that commits .lessons, .lessons/check or the exercise's check
// folder (or its src) as a link out, absolute or relative: lessons check
// refuses it, and neither removes nor writes anything there.
func TestCheckFolderLinkedOutRefused(t *testing.T) {
	for _, at := range []string{".lessons", ".lessons/check", ".lessons/check/a", ".lessons/check/a/src"} {
		for _, kind := range []string{"absolute", "relative"} {
			t.Run(kind+"/"+at, func(t *testing.T) {
				root := coursetest.Tiny(t, []string{"a"}, map[string]string{
					"exercises/a.toml": "files = [\"h.h\"]\n[[check]]\nexit = 0\n",
					"exercises/h.h":    "h",
				})
				outside := t.TempDir()
				for _, f := range []string{"victim", "a.cu", "h.h"} {
					os.WriteFile(filepath.Join(outside, f), []byte("keep"), 0o644)
				}
				link := filepath.Join(root, at)
				os.MkdirAll(filepath.Dir(link), 0o755)
				target := outside
				if kind == "relative" {
					target, _ = filepath.Rel(filepath.Dir(link), outside)
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				c, err := course.Load(root)
				if err != nil {
					t.Fatal(err)
				}
				x, _ := c.Exercise("a")
				j, err := NewJob(c, x, c.Path(x.Student))
				if err != nil {
					t.Fatal(err)
				}
				_, err = Plain{}.build(context.Background(), nil, j, 0)
				// A link in src's place is removed as a link and src made
				// anew: safe, as long as nothing outside changes.
				if at != ".lessons/check/a/src" && (err == nil || !strings.Contains(err.Error(), "is a link")) {
					t.Errorf("build: %v, want the link refused", err)
				}
				entries, _ := os.ReadDir(outside)
				if len(entries) != 3 {
					t.Errorf("outside holds %d entries", len(entries))
				}
				for _, e := range entries {
					if data, _ := os.ReadFile(filepath.Join(outside, e.Name())); string(data) != "keep" {
						t.Errorf("outside/%s = %q", e.Name(), data)
					}
				}
			})
		}
	}
}

// A spec, or a file it names, committed as a link out of the course
// (absolute or relative) is refused, never read or built.
func TestSpecLinksOutRefused(t *testing.T) {
	for _, at := range []string{"exercises/h.h", "exercises/a.toml", "solutions/a.toml"} {
		for _, kind := range []string{"absolute", "relative"} {
			t.Run(kind+"/"+at, func(t *testing.T) {
				root := coursetest.Tiny(t, []string{"a"}, map[string]string{
					"exercises/a.toml": "files = [\"h.h\"]\n[[check]]\nexit = 0\n",
				})
				outside := t.TempDir()
				secret := filepath.Join(outside, "id_rsa")
				os.WriteFile(secret, []byte("files = [\"x\"]\nSECRET"), 0o644)
				link := filepath.Join(root, at)
				os.Remove(link)
				target := secret
				if kind == "relative" {
					target, _ = filepath.Rel(filepath.Dir(link), secret)
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				c, err := course.Load(root)
				if err != nil {
					t.Fatal(err)
				}
				x, _ := c.Exercise("a")
				_, err = LoadSpec(c, x)
				if err == nil || !strings.Contains(err.Error(), "leads out of the folder") || strings.Contains(err.Error(), "SECRET") {
					t.Errorf("LoadSpec: %v", err)
				}
			})
		}
	}
}
