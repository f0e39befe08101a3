package settings

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/reference/settings.md")

var root = filepath.Join("..", "..")

// sourceExt are the sources scanned for LESSONS_* names: Go, C and CUDA,
// shell, Python and testscripts. Files without an extension count when
// they start with #! (.ci/run).
var sourceExt = map[string]bool{".go": true, ".c": true, ".h": true, ".cu": true, ".cuh": true, ".cpp": true, ".sh": true, ".py": true, ".txtar": true}

var nameRE = regexp.MustCompile(`LESSONS_[A-Z0-9_]+`)

// used maps each LESSONS_* name in the sources to the first file that
// has it; this package's own files are left out, so that declaring a
// name is not a use of it.
func used(t *testing.T) map[string]string {
	t.Helper()
	self, _ := filepath.Abs(".")
	names := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(path); abs == self {
				return filepath.SkipDir
			}
			switch d.Name() {
			case ".git", "bin", "carry", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if ext := filepath.Ext(path); !sourceExt[ext] && !(ext == "" && bytes.HasPrefix(data, []byte("#!"))) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range nameRE.FindAll(data, -1) {
			if _, ok := names[string(m)]; !ok {
				names[string(m)] = filepath.ToSlash(rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestEveryNameDeclared(t *testing.T) {
	names := used(t)
	var missing []string
	for n, file := range names {
		if _, ok := Lookup(n); !ok {
			missing = append(missing, n+" (in "+file+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s is not declared: add it to All in internal/settings/settings.go (its kind, meaning and reader), then go test ./internal/settings -update", m)
	}
}

func TestEveryDeclaredNameUsed(t *testing.T) {
	names := used(t)
	for _, s := range All {
		found := false
		for n := range names {
			if n == s.Name || s.Prefix && strings.HasPrefix(n, s.Name) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s is declared in internal/settings but no source uses it any more: remove it from All, then go test ./internal/settings -update", s.Name)
		}
	}
}

func TestDeclaredOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All {
		if seen[s.Name] {
			t.Errorf("%s is declared twice", s.Name)
		}
		seen[s.Name] = true
		if !nameRE.MatchString(s.Name) || nameRE.FindString(s.Name) != s.Name {
			t.Errorf("%q is not a LESSONS_* name", s.Name)
		}
		if s.Meaning == "" {
			t.Errorf("%s has no meaning", s.Name)
		}
		if s.Kind != Example && s.ReadBy == "" {
			t.Errorf("%s says no reader", s.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	if s, ok := Lookup("LESSONS_CACHE"); !ok || s.Kind != User {
		t.Errorf("Lookup(LESSONS_CACHE) = %v, %v", s, ok)
	}
	if s, ok := Lookup("LESSONS_SANDBOX_LD_PRELOAD"); !ok || !s.Prefix {
		t.Errorf("Lookup of a name under a prefix = %v, %v", s, ok)
	}
	if _, ok := Lookup("LESSONS_NO_SUCH_THING"); ok {
		t.Error("an undeclared name was found")
	}
}

// TestReferencePage fails when docs/reference/settings.md is not what
// Markdown makes of All.
func TestReferencePage(t *testing.T) {
	page := filepath.Join(root, "docs", "reference", "settings.md")
	got := Markdown()
	if *update {
		if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(page, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v (make it with go test ./internal/settings -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what internal/settings declares: run go test ./internal/settings -update", page)
	}
}
