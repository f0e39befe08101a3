package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree is a course root beside a folder outside it, which no call may
// change or read.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "course"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "a", "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func untouched(t *testing.T, outside string) {
	t.Helper()
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside holds %d entries, want only victim", len(entries))
	}
	if data, err := os.ReadFile(filepath.Join(outside, "victim")); err != nil || string(data) != "keep" {
		t.Errorf("outside/victim = %q, %v: changed", data, err)
	}
}

// links are the two ways a committed link leads out: absolute, and
// relative with ../.
func links(root, outside, at string) map[string]string {
	rel, _ := filepath.Rel(filepath.Dir(filepath.Join(root, at)), outside)
	return map[string]string{"absolute": outside, "relative": rel}
}

// Every position of a path: the first part, a middle one, the last.
var positions = []struct{ link, name string }{
	{"a", "a/b/victim"},
	{"a/b", "a/b/victim"},
	{"a/b/victim", "a/b/victim"},
}

func TestLinksOutRefused(t *testing.T) {
	ops := map[string]func(root, name string) error{
		"WriteFile": func(root, name string) error { return WriteFile(root, name, []byte("pwned"), 0o644) },
		"ReadFile":  func(root, name string) error { _, err := ReadFile(root, name); return err },
		"Stat":      func(root, name string) error { _, err := Stat(root, name); return err },
		"RemoveAll": func(root, name string) error { return RemoveAll(root, filepath.Dir(name)+"/victim") },
		"Dir":       func(root, name string) error { _, err := Dir(root, name); return err },
		"NoLinks":   func(root, name string) error { return NoLinks(root, name) },
	}
	for opName, op := range ops {
		for _, pos := range positions {
			for kind := range links("/", "/", pos.link) {
				t.Run(opName+"/"+kind+"/"+pos.link, func(t *testing.T) {
					root, outside := tree(t)
					target := links(root, outside, pos.link)[kind]
					if pos.link == "a/b/victim" {
						target = filepath.Join(target, "victim")
					}
					at := filepath.Join(root, pos.link)
					os.RemoveAll(at)
					if err := os.Symlink(target, at); err != nil {
						t.Fatal(err)
					}
					err := op(root, pos.name)
					untouched(t, outside)
					// A link in the last place is replaced by a write or
					// removed by RemoveAll, never followed: that is safe.
					last := pos.link == pos.name
					if last && (opName == "WriteFile" || opName == "RemoveAll") {
						if err != nil {
							t.Fatalf("%s through a last link: %v", opName, err)
						}
						return
					}
					if err == nil {
						t.Fatalf("%s %s with %s a %s link out: no error", opName, pos.name, pos.link, kind)
					}
					var be *Error
					if opName != "ReadFile" && opName != "Stat" && !errors.As(err, &be) {
						t.Errorf("error %T %v, want *safefs.Error", err, err)
					}
				})
			}
		}
	}
}

func TestDotDotAndAbsoluteRefused(t *testing.T) {
	root, outside := tree(t)
	for _, name := range []string{"../outside/victim", "a/../../outside/victim", outside + "/victim", "", "a/b/../../../outside/victim"} {
		if err := WriteFile(root, name, []byte("pwned"), 0o644); err == nil {
			t.Errorf("WriteFile %q: no error", name)
		}
		if err := RemoveAll(root, name); err == nil {
			t.Errorf("RemoveAll %q: no error", name)
		}
		if _, err := Dir(root, name); err == nil {
			t.Errorf("Dir %q: no error", name)
		}
		if err := Local(name); err == nil {
			t.Errorf("Local %q: no error", name)
		}
	}
	untouched(t, outside)
}

// A link that stays inside the root is followed (a course may link one
// of its files to another), but not in lessons' own folders.
func TestLinksInside(t *testing.T) {
	root, _ := tree(t)
	if err := os.Symlink("a/b", filepath.Join(root, "in")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "in/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a/b/f")); string(data) != "x" {
		t.Errorf("a/b/f = %q", data)
	}
	if _, err := Dir(root, "in/w"); err == nil || !strings.Contains(err.Error(), "in is a link") {
		t.Errorf("Dir through a link inside: %v", err)
	}
	p, err := Dir(root, "x/y/z")
	if err != nil || p != filepath.Join(root, "x/y/z") {
		t.Fatalf("Dir = %q, %v", p, err)
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		t.Errorf("x/y/z not made: %v", err)
	}
}

func TestWriteFileAtomicAndMode(t *testing.T) {
	root, _ := tree(t)
	if err := WriteFile(root, "new/dir/f.cu", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "new/dir/f.cu", []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, "new/dir/f.cu"))
	st, _ := os.Stat(filepath.Join(root, "new/dir/f.cu"))
	if string(data) != "two" || st.Mode().Perm() != 0o600 {
		t.Errorf("read %q mode %v", data, st.Mode())
	}
	entries, _ := os.ReadDir(filepath.Join(root, "new/dir"))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// FuzzWriteFile: whatever name a course gives, a write lands inside the
// root or is refused; nothing outside changes, through a link out that
// the root holds (l) or otherwise.
func FuzzWriteFile(f *testing.F) {
	for _, s := range []string{"a/b/x", "../outside/victim", "l/victim", "a/../l/x", "/tmp/x", "a/./b/../../../x", "l", ".", "a//b"} {
		f.Add(s)
	}
	base := f.TempDir()
	root, outside := filepath.Join(base, "course"), filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "victim"), []byte("keep"), 0o644)
	os.Symlink(outside, filepath.Join(root, "l"))
	f.Fuzz(func(t *testing.T, name string) {
		err := WriteFile(root, name, []byte("x"), 0o644)
		untouched(t, outside)
		if err == nil && Local(name) != nil {
			t.Errorf("%q is not local, yet written", name)
		}
	})
}

// DirAgain makes the folder again where a file or a link (to a folder
// outside, here) took its place, and keeps a folder that is there with
// what it holds.
func TestDirAgain(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link"))
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "dir", "kept"), []byte("x"), 0o644)
	for _, name := range []string{"file", "link", "dir", "new"} {
		p, err := DirAgain(root, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st, err := os.Lstat(p); err != nil || !st.IsDir() {
			t.Errorf("%s is not a folder: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "dir", "kept")); err != nil {
		t.Errorf("the folder's file went: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("what the link pointed to went: %v", err)
	}
	if _, err := DirAgain(root, "../x"); err == nil {
		t.Error("a name out of the root was taken")
	}
}
