// Package coursetest writes small courses for tests.
package coursetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes files (a path from the folder → its contents) into a new
// temporary folder, and returns the folder.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Tiny writes a course of one lesson (day 1) and an exercise of each id:
// exercises/ID.cu with its spec (one check, exit = 0) and solutions/ID.cu.
// extra files are written too, over those.
func Tiny(t testing.TB, ids []string, extra map[string]string) string {
	t.Helper()
	var manifest strings.Builder
	manifest.WriteString("title = \"Tiny\"\n[[lesson]]\nfile = \"lessons/day001-a.md\"\n")
	files := map[string]string{"lessons/day001-a.md": "# A\n"}
	for _, id := range ids {
		fmt.Fprintf(&manifest, "[[exercise]]\nid = %q\nlesson = \"1\"\nstudent = \"exercises/%s.cu\"\nsolution = \"solutions/%s.cu\"\n", id, id, id)
		files["exercises/"+id+".cu"] = "int main() {}\n"
		files["exercises/"+id+".toml"] = "[[check]]\nexit = 0\n"
		files["solutions/"+id+".cu"] = "int main() {}\n"
	}
	files["course.toml"] = manifest.String()
	for name, text := range extra {
		files[name] = text
	}
	return Write(t, files)
}
