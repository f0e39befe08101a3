package exercise

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/machine"
)

// TestCheckOffline: with no GPU (and here no nvcc), a check still says
// what is left to do in the file, what a grade would mark, the hint, and
// where to run it: the class's server when the course names one, and
// Colab, with what its notebook's check cell can judge there.
func TestCheckOffline(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"out", "stats"}, map[string]string{
		"exercises/out.cu":     "int main() {\n  // TODO: print done\n  _exit(0);\n}\n",
		"exercises/out.toml":   "[[check]]\ncontains = \"done\"\n[[check]]\nexit = 0\n",
		"exercises/stats.toml": "[[check]]\nexit = 0\n[[check]]\nstat = \"malloc_calls\"\nequals = 1\n",
	})
	c, err := course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	noGPU, noNVCC := errors.New("cuInit: CUDA_ERROR_NO_DEVICE"), errors.New("nvcc: not found")
	x, _ := c.Exercise("out")
	x.Hints = []string{"Print it.", "With printf."}
	o, err := CheckOffline(context.Background(), c, x, c.Path(x.Student), &machine.Missing{NoGPU: noGPU, NoNVCC: noNVCC})
	if err != nil {
		t.Fatal(err)
	}
	text := o.Text()
	for _, want := range []string{
		"Checking out (exercises/out.cu)",
		"No GPU here (cuInit: CUDA_ERROR_NO_DEVICE): out cannot be run",
		"not built: nvcc: not found",
		"1 TODO left (line 2)",
		"a grade would mark it for review: line 3 names _exit",
		"lessons hint out shows its 2 hints, one at a time.",
		"In Colab, on its free GPU: lessons export --ipynb notebooks writes notebooks/day001-a.ipynb",
		"Its check cell applies all 2 checks there.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	// A check of statistics is not judged in a notebook; the class's
	// server, when the course names one, comes first.
	c.ClassServer = "https://gpu.example.edu/lessons"
	x, _ = c.Exercise("stats")
	o, err = CheckOffline(context.Background(), c, x, c.Path(x.Student), &machine.Missing{NoGPU: noGPU, NoNVCC: noNVCC})
	if err != nil {
		t.Fatal(err)
	}
	text = o.Text()
	for _, want := range []string{
		"✓ no TODO left",
		"✓ nothing a grade would mark for review",
		"Run and check it on the class's server, which has GPUs: https://gpu.example.edu/lessons",
		"Or from here: lessons check stats --remote sends it there",
		"Or in Colab",
		"judges none of its 2 checks: 1 of them read",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	// A course whose notebooks install lessons ([notebook]) has Colab
	// judge every check.
	c.Notebook = &course.Notebook{Binary: "https://x.example/lessons", Repository: "https://x.example/c", Root: course.DefaultNotebookRoot}
	o, err = CheckOffline(context.Background(), c, x, c.Path(x.Student), &machine.Missing{NoGPU: noGPU, NoNVCC: noNVCC})
	if err != nil {
		t.Fatal(err)
	}
	if text = o.Text(); !strings.Contains(text, "Its first cell installs lessons and the course there, and its check cell runs lessons check: all 2 checks.") || strings.Contains(text, "judges none") {
		t.Errorf("a course with [notebook]:\n%s", text)
	}
}
