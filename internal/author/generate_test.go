package author

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
)

func tinyCourse(t *testing.T, solution string) *course.Course {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"course.toml": `title = "Tiny"
[[lesson]]
file = "lessons/day001-pipe.md"
[[exercise]]
id = "pipe"
lesson = "1"
student = "exercises/pipe.cu"
solution = "solutions/pipe.cu"
`,
		"lessons/day001-pipe.md": "# Pipe\n",
		"solutions/pipe.cu":      solution,
		"exercises/pipe.cu":      "placeholder\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func states(fs []File) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString([]string{"up to date", "written", "edited", "unknown", "unmarked"}[f.State])
	}
	return b.String()
}

func TestGenerate(t *testing.T) {
	c := tinyCourse(t, pipeline)
	student := c.Path("exercises/pipe.cu")
	read := func() string {
		b, err := os.ReadFile(student)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// The placeholder was not written by generate: left alone.
	fs, err := Generate(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if states(fs) != "unknown" || read() != "placeholder\n" || !strings.Contains(fs[0].Why, SumFile) {
		t.Fatalf("first run: %+v, file %q", fs, read())
	}
	if _, err := Generate(c, Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	want := read()
	if !strings.Contains(want, "(void)d;") || strings.Contains(want, "cudaMallocAsync") {
		t.Fatalf("generated:\n%s", want)
	}
	if stale, err := Stale(c); err != nil || len(stale) != 0 {
		t.Fatalf("stale after generate: %v %v", stale, err)
	}

	// Idempotent: a second run writes nothing (the file keeps its time).
	st, _ := os.Stat(student)
	fs, _ = Generate(c, Options{})
	if st2, _ := os.Stat(student); states(fs) != "up to date" || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("second run: %+v", fs)
	}

	// A changed solution is stale, then written over the generated file.
	if err := os.WriteFile(c.Path("solutions/pipe.cu"), []byte(strings.Replace(pipeline, "(void)d;", "(void)d; (void)stream;", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if stale, _ := Stale(c); len(stale) != 1 || !strings.Contains(stale[0], "exercises/pipe.cu is out of date with solutions/pipe.cu") {
		t.Fatalf("stale = %q", stale)
	}
	if fs, _ = Generate(c, Options{DryRun: true}); states(fs) != "written" || read() != want {
		t.Fatalf("dry run wrote: %+v", fs)
	}
	if fs, _ = Generate(c, Options{}); states(fs) != "written" || !strings.Contains(read(), "(void)d; (void)stream;") {
		t.Fatalf("regenerate: %+v\n%s", fs, read())
	}

	// A hand edit is never overwritten without --force.
	edited := read() + "// mine\n"
	os.WriteFile(student, []byte(edited), 0o644)
	os.WriteFile(c.Path("solutions/pipe.cu"), []byte(pipeline), 0o644)
	fs, err = Generate(c, Options{})
	if err != nil || states(fs) != "edited" || read() != edited || !strings.Contains(fs[0].Why, "not what lessons generate last wrote from solutions/pipe.cu") {
		t.Fatalf("hand edit: %+v %v", fs, err)
	}
	if fs, _ = Generate(c, Options{Force: true}); states(fs) != "written" || read() != want {
		t.Fatalf("--force: %+v", fs)
	}
	// No temporary file is left behind.
	if ents, _ := os.ReadDir(filepath.Dir(student)); len(ents) != 1 {
		t.Errorf("exercises/ holds %d files", len(ents))
	}
}

func TestGenerateBadMarkersWritesNothing(t *testing.T) {
	c := tinyCourse(t, "// BEGIN SOLUTION\nx\n")
	_, err := Generate(c, Options{Force: true})
	if err == nil || !strings.Contains(err.Error(), "solutions/pipe.cu:1: BEGIN SOLUTION is never ended") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(c.Path("exercises/pipe.cu")); string(b) != "placeholder\n" {
		t.Errorf("student file is now %q", b)
	}
}

func TestGenerateUnmarked(t *testing.T) {
	c := tinyCourse(t, "int main() {}\n")
	fs, err := Generate(c, Options{Force: true})
	if err != nil || states(fs) != "unmarked" {
		t.Fatalf("%+v %v", fs, err)
	}
}
