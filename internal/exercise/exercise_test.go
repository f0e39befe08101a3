package exercise

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/kernels"
)

// fakeNVCC is an nvcc that builds a shell script from the source's
// "// fake: " lines, fails on "// fake-error", and makes an empty library
// for -shared (a preload of it is ignored, with a warning).
const fakeNVCC = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0; fi
if [ -n "$FAKE_NVCC_FAIL" ]; then echo "${FAKE_NVCC_SAY:-nvcc: broken}" >&2; exit 1; fi
if [ -n "$FAKE_NVCC_FAIL_ONCE" ] && [ -e "$FAKE_NVCC_FAIL_ONCE" ]; then rm -f "$FAKE_NVCC_FAIL_ONCE"; echo "$FAKE_NVCC_SAY" >&2; exit 1; fi
out=""; srcs=""; shared=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    -shared) shared=1 ;;
    *.cu) srcs="$srcs $1" ;;
  esac
  shift
done
if [ -n "$shared" ]; then : > "$out"; exit 0; fi
for s in $srcs; do
  if grep -q '^// fake-fill' "$s"; then i=0; while [ $i -lt 1200 ] && : > "$(dirname "$out")/f$i" 2>/dev/null; do i=$((i+1)); done; echo "nvcc: No space left on device" >&2; exit 2; fi
  if grep -q '^#error' "$s"; then grep '^#error' "$s" | sed "s|^#error|$s(1): error: #error directive:|" >&2; exit 2; fi
  if grep -q '^// fake-error' "$s"; then echo "$s(3): error: expected a \";\"" >&2; exit 2; fi
done
printf '#!/bin/sh\n' > "$out"
for s in $srcs; do sed -n 's|^// fake: ||p' "$s" >> "$out"; done
chmod +x "$out"
`

func toolkit(t *testing.T) *Toolkit {
	t.Helper()
	t.Setenv("LESSONS_SANITIZER", "none")
	dir := t.TempDir()
	nvcc := filepath.Join(dir, "nvcc")
	if err := os.WriteFile(nvcc, []byte(fakeNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := &buildcache.Cache{Dir: filepath.Join(dir, "cache"), MaxBytes: 1 << 30}
	return NewToolkit(buildcache.Compiler{Path: nvcc, Version: "13.0.88", Arch: "sm_90"}, cache)
}

func spec(t *testing.T, text string) *checker.Spec {
	t.Helper()
	s, err := checker.ParseSpec("x.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// job writes files (name → contents) into a folder and makes a job of
// them, the first named main.
func job(t *testing.T, s *checker.Spec, files ...string) *Job {
	t.Helper()
	src := t.TempDir()
	j := &Job{ID: "x", Spec: s, Dir: filepath.Join(t.TempDir(), "ws")}
	for i := 0; i < len(files); i += 2 {
		p := filepath.Join(src, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		j.Files = append(j.Files, File{Name: files[i], Path: p})
	}
	return j
}

func TestCheckPassesAndFails(t *testing.T) {
	tk := toolkit(t)
	s := spec(t, "[[check]]\nexit = 0\n[[check]]\ncontains = \"12 iterations\"\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: echo 12 iterations\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() || !strings.Contains(v.Output, "12 iterations") {
		t.Errorf("a passing file: %+v", v)
	}
	v, err = Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: echo 3 iterations; exit 1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() || len(v.Results) != 2 || v.Results[0].Got != "exit status 1" {
		t.Errorf("a failing file: %+v", v.Results)
	}
}

func TestCompileErrorIsACheck(t *testing.T) {
	tk := toolkit(t)
	var log bytes.Buffer
	v, err := Check(context.Background(), tk, Plain{}, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake-error\n"), &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Results) != 1 || v.Results[0].Name != "compiles" || !strings.Contains(v.Results[0].Got, `compile error at`) {
		t.Errorf("results: %+v", v.Results)
	}
	if !strings.Contains(log.String(), "expected a") {
		t.Errorf("the compiler's log was not given: %q", log.String())
	}
}

// The files of a multi-file exercise are built together, under the
// exercise's names.
func TestMultiFile(t *testing.T) {
	tk := toolkit(t)
	s := spec(t, "files = [\"more.cu\"]\n[[check]]\ncontains = \"from more\"\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: echo from main\n", "more.cu", "// fake: echo from more\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("results: %+v, output %q", v.Results, v.Output)
	}
}

// A record that is there but is not the library's says why (it used to
// read "no statistics were recorded").
func TestStatsRecordErrorSaysWhy(t *testing.T) {
	tk := toolkit(t)
	s := spec(t, "[[check]]\nstat = \"malloc_calls\"\nat_least = 1\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: printf short >&3\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Results) != 2 || !strings.Contains(v.Results[0].Got, "did not write") || !strings.Contains(v.Results[1].Got, "did not write") {
		t.Errorf("results %+v, want the record's own error", v.Results)
	}
	// No record at all: the program did not call CUDA.
	v, err = Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: true\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Results[0].Got; !strings.Contains(got, "no statistics were recorded") {
		t.Errorf("got %q", got)
	}
}

// A build of the statistics library stopped with its caller's context is
// not kept: the next caller builds it (with sync.Once, a watch check
// cancelled while it compiled left the failure for the whole session).
func TestStatsLibraryAfterCancel(t *testing.T) {
	tk := toolkit(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tk.StatsLibrary(ctx); err == nil {
		t.Fatal("a cancelled build of the library succeeded")
	}
	lib, err := tk.StatsLibrary(context.Background())
	if err != nil {
		t.Fatalf("after a cancelled build: %v", err)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Error(err)
	}
}

// A library that does not build is a *failure.Tool (exit 2), and is tried
// again once the tool works.
func TestStatsLibraryToolError(t *testing.T) {
	tk := toolkit(t)
	t.Setenv("FAKE_NVCC_FAIL", "1")
	_, err := tk.StatsLibrary(context.Background())
	var te *failure.Tool
	if err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), "nvcc: broken") {
		t.Fatalf("err = %v, want a *failure.Tool with nvcc's words", err)
	}
	os.Unsetenv("FAKE_NVCC_FAIL")
	if _, err := tk.StatsLibrary(context.Background()); err != nil {
		t.Fatalf("once nvcc works: %v", err)
	}
}

// Every part of the library (allocstats.cu, its sections, timeline.h) is
// written beneath the cache's kernels folder before the build, and a link
// there leading out of it is not written through.
func TestStatsLibraryWritesEveryPart(t *testing.T) {
	tk := toolkit(t)
	if _, err := tk.StatsLibrary(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tk.Cache.Dir, "kernels")
	for _, f := range kernels.LibraryFiles() {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s: not written as embedded (%v)", f.Path, err)
		}
	}

	tk = toolkit(t)
	dir = filepath.Join(tk.Cache.Dir, "kernels")
	outside := t.TempDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "allocstats")); err != nil {
		t.Fatal(err)
	}
	if _, err := tk.StatsLibrary(context.Background()); err == nil {
		t.Error("the library was built with its sections' folder a link out of the cache")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("%d files written through the link out of the cache", len(ents))
	}
}

// NewJob reads the spec beside the exercise and takes the exercise's
// other files from beside the file checked, else from the exercise.
func TestNewJob(t *testing.T) {
	root := coursetest.Tiny(t, []string{"a"}, map[string]string{
		"exercises/a.toml": "files = [\"h.h\", \"g.h\"]\n[[check]]\nexit = 0\n",
		"exercises/h.h":    "h",
		"exercises/g.h":    "g",
		"mine/a.cu":        "mine",
		"mine/g.h":         "my g",
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := c.Exercise("a")
	j, err := NewJob(c, x, filepath.Join(root, "mine", "a.cu"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.cu=mine/a.cu", "h.h=exercises/h.h", "g.h=mine/g.h"}
	for i, f := range j.Files {
		rel, _ := filepath.Rel(root, f.Path)
		if got := f.Name + "=" + rel; i >= len(want) || got != want[i] {
			t.Errorf("file %d: %s, want %v", i, got, want)
		}
	}
	if j.Dir != filepath.Join(root, ".lessons", "check", "a") {
		t.Errorf("workspace %s", j.Dir)
	}
	os.Remove(filepath.Join(root, "exercises", "a.toml"))
	var te *failure.Tool
	if _, err := NewJob(c, x, filepath.Join(root, "exercises", "a.cu")); !errors.As(err, &te) || !strings.Contains(err.Error(), "has no checks") {
		t.Errorf("without a spec: %v", err)
	}
}
