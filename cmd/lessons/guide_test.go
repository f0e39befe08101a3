package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuthorsGuideStartsACourse follows "Starting a course" in
// docs/authors.md: its files, written as the page shows them, make a
// course that generates, lints clean and lists its day, so the guide's
// first course cannot drift from what lessons accepts.
func TestAuthorsGuideStartsACourse(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "authors.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	start := strings.Index(page, "\n## Starting a course\n")
	end := strings.Index(page, "\n## The course on disk\n")
	if start < 0 || end < start {
		t.Fatal(`docs/authors.md has no "## Starting a course" before "## The course on disk"`)
	}
	section := page[start:end]
	dir := t.TempDir()
	for _, f := range []struct{ label, fence, path string }{
		{"`course.toml`:", "```", "course.toml"},
		{"`lessons/day001-hello.md`", "````", "lessons/day001-hello.md"},
		{"`solutions/day001/hello.cu`", "```", "solutions/day001/hello.cu"},
		{"`exercises/day001/hello.toml`", "```", "exercises/day001/hello.toml"},
	} {
		body, ok := blockAfter(section, f.label, f.fence)
		if !ok {
			t.Fatalf("docs/authors.md, Starting a course: no %s block after %s", f.fence, f.label)
		}
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// touch exercises/day001/hello.cu, as the page says.
	if err := os.WriteFile(filepath.Join(dir, "exercises", "day001", "hello.cu"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"generate", "--force"}, {"lint"}, {"list"}, {"show", "1", "--plain"}} {
		code, out, errOut := lessonsRun(append([]string{"--course", dir}, args...)...)
		if code != 0 {
			t.Fatalf("lessons %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		if args[0] == "list" && !strings.Contains(out, "hello") {
			t.Errorf("lessons list does not show the day's exercise:\n%s", out)
		}
	}
	student, err := os.ReadFile(filepath.Join(dir, "exercises", "day001", "hello.cu"))
	if err != nil || !strings.Contains(string(student), "// TODO: launch hello") || strings.Contains(string(student), "cudaDeviceSynchronize") {
		t.Errorf("the generated student file is not the stub:\n%s (%v)", student, err)
	}
}

// blockAfter is the body of the first fenced block (opened by fence and
// a language, closed by fence alone) after label in text.
func blockAfter(text, label, fence string) (string, bool) {
	i := strings.Index(text, label)
	if i < 0 {
		return "", false
	}
	open := strings.Index(text[i:], "\n"+fence)
	if open < 0 {
		return "", false
	}
	body := i + open + 1
	nl := strings.Index(text[body:], "\n")
	if nl < 0 {
		return "", false
	}
	body += nl + 1
	end := strings.Index(text[body:], "\n"+fence+"\n")
	if end < 0 {
		return "", false
	}
	return text[body : body+end+1], true
}
