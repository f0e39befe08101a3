package exercise

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

// TestStudent: the verdict that check, watch and the page each render:
// hidden checks left out (and counted), the failed checks' hints then the
// exercise's, the environment given to the run, a pass recorded.
func TestStudent(t *testing.T) {
	tk := toolkit(t)
	root := coursetest.Tiny(t, []string{"a"}, map[string]string{
		"exercises/a.toml": "[[check]]\ncontains = \"Q=2\"\nhint = \"two queues\"\n[[check]]\nexit = 0\nhidden = true\n",
		"exercises/a.cu":   "// fake: echo Q=$CUDA_DEVICE_MAX_CONNECTIONS\n",
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := c.Exercise("a")
	x.Hints = []string{"read day 1"}
	for _, env := range [][]string{nil, {"CUDA_DEVICE_MAX_CONNECTIONS=2"}} {
		st, err := NewStudent(c, x, c.Path(x.Student), env)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Check(context.Background(), tk); err != nil {
			t.Fatal(err)
		}
		if len(st.Results) != 1 || st.Spec.Hidden() != 1 {
			t.Fatalf("results %+v, hidden %d: want the public check alone", st.Results, st.Spec.Hidden())
		}
		if env == nil {
			if st.Passed() || !slices.Equal(st.Hints, []string{"two queues", "read day 1"}) {
				t.Errorf("without the queues: passed %v, hints %q", st.Passed(), st.Hints)
			}
			continue
		}
		if !st.Passed() || len(st.Hints) != 0 {
			t.Fatalf("with the queues: passed %v (%q), hints %q", st.Passed(), st.Output, st.Hints)
		}
		p, err := st.Record(c)
		if err != nil || p.Passed["a"].IsZero() {
			t.Errorf("recorded: %+v, %v", p, err)
		}
	}
}

func TestWatchedFiles(t *testing.T) {
	root := coursetest.Tiny(t, []string{"a"}, map[string]string{
		"exercises/a.toml": "files = [\"h.h\"]\n[[check]]\nexit = 0\n",
		"exercises/h.h":    "h",
	})
	c, _ := course.Load(root)
	x, _ := c.Exercise("a")
	var got []string
	for _, f := range WatchedFiles(c, x) {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	if strings.Join(got, " ") != "exercises/a.cu exercises/a.toml exercises/h.h" {
		t.Errorf("watched %q", got)
	}
}

// A fixed file is read from the exercise's folder even where the folder
// of the file checked holds a copy (check --file of a file elsewhere).
func TestFixedFilesFromTheExercise(t *testing.T) {
	root := coursetest.Tiny(t, []string{"a"}, map[string]string{
		"exercises/a.toml":   "files = [\"bench.cu\", \"h.h\"]\nfixed = [\"bench.cu\"]\n[[check]]\nexit = 0\n",
		"exercises/bench.cu": "harness",
		"exercises/h.h":      "h",
		"mine/a.cu":          "mine",
		"mine/bench.cu":      "my harness",
		"mine/h.h":           "my h",
	})
	c, _ := course.Load(root)
	x, _ := c.Exercise("a")
	j, err := NewJob(c, x, filepath.Join(root, "mine", "a.cu"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range j.Files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, rel)
	}
	if strings.Join(got, " ") != "mine/a.cu exercises/bench.cu mine/h.h" {
		t.Errorf("files %q", got)
	}
}

// TestWriteTextSafe: check -v prints the program's output, the
// compiler's log and what a check saw, then fits them to the terminal:
// a program's OSC 52 (the clipboard), a window title or a cleared screen
// never reach the terminal, its colours do, and a CR is a new line, not
// a line drawn over the verdict.
func TestWriteTextSafe(t *testing.T) {
	st := &Student{
		Exercise: &course.Exercise{ID: "x"},
		Spec:     &checker.Spec{},
		Log:      "x.cu(1): error\x1b]0;pwned\x07\n",
		Output:   "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b[31mred\x1b[0m\rall checks passed",
		Results:  []checker.Result{{Name: "output", Want: "ok", Got: "\x1b]8;;http://evil\x07link"}},
	}
	var b strings.Builder
	st.WriteText(&b, false, true)
	got := b.String()
	if strings.Contains(got, "\x1b]") || strings.Contains(got, "\x1b[2J") || strings.Contains(got, "\r") {
		t.Fatalf("WriteText let a sequence through: %q", got)
	}
	if !strings.Contains(got, "\x1b[31mred\x1b[0m\nall checks passed") {
		t.Fatalf("WriteText = %q, want the colours kept and the CR a new line", got)
	}
}
