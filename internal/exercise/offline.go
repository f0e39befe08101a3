package exercise

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/suspect"
	"github.com/cudalessons/lessons/internal/ui"
)

// Offline is what a check can still tell a student on a machine with no
// GPU: whether the file builds, what of it is still to do, what a grade
// would mark, and where the exercise can be run. rustlings and nbgrader
// answer "am I done?" only by running; a student with no GPU would
// otherwise get one line of the driver's error and nothing to do next.
type Offline struct {
	Exercise *course.Exercise
	Src      string // the file, from the course's root
	// NoGPU is why nothing runs here (the driver's error).
	NoGPU error
	// NoNVCC, when set, is why the file was not built either.
	NoNVCC error
	// Built says the file compiled; Failed is the failed "compiles"
	// check, with Log the compiler's output, when it did not.
	Built  bool
	Failed []checker.Result
	// Script says the file is a Python script: nothing is built.
	Script bool
	Log    string
	// TODOs are the lines of the file that still say TODO; Empty says
	// the file holds nothing but blanks.
	TODOs []int
	Empty bool
	// Findings are what a grade would mark the file for review for (what
	// it names around the statistics library that the solution does not).
	Findings []suspect.Finding
	// Hints is how many hints lessons hint has for the exercise.
	Hints int
	// Server is the course's class server ([class] server in
	// course.toml), "" when it has none.
	Server string
	// Notebook is the exercise's lesson exported as a notebook
	// (lessons export --ipynb), to run in Colab; NotebookJudges says its
	// check cell applies the checks there (every check reads only output
	// and exit status), else Unjudged counts those that read more (the
	// allocator's statistics, a sanitizer's run), of Checks.
	Notebook         string
	NotebookJudges   bool
	Checks, Unjudged int
	// NotebookInstalls says the course's notebooks install lessons and
	// the course ([notebook] in course.toml): their check cell runs
	// lessons check itself, every check judged.
	NotebookInstalls bool
}

// todoRE finds a TODO left in a comment or a line.
var todoRE = regexp.MustCompile(`\bTODO\b`)

// CheckOffline does what needs no GPU for the file src of exercise x,
// on a machine that miss says lacks one (machine.Need): it builds the
// file where there is nvcc, reads it for TODOs and for what a grade would
// mark, and says where it can be run. An error is a failure of the
// machine or the course, not of the file.
func CheckOffline(ctx context.Context, c *course.Course, x *course.Exercise, src string, miss *machine.Missing) (*Offline, error) {
	job, err := NewJob(c, x, src)
	if err != nil {
		return nil, err
	}
	o := &Offline{Exercise: x, Src: strings.TrimPrefix(src, c.Root+string(filepath.Separator)), NoGPU: miss.NoGPU, NoNVCC: miss.NoNVCC,
		Hints: len(x.Hints), Server: c.ClassServer, Notebook: c.Lessons[lessonIndex(c, x)].Name() + ".ipynb"}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", src, err)
	}
	o.Empty = strings.TrimSpace(string(data)) == ""
	for i, line := range strings.Split(string(data), "\n") {
		if todoRE.MatchString(line) {
			o.TODOs = append(o.TODOs, i+1)
		}
	}
	spec := job.Spec.Public()
	o.Findings = suspect.Unexplained(data, author.Reference(c, x, spec)...)
	o.NotebookJudges, o.Checks = spec.OutputOnly(), len(spec.Checks)
	o.NotebookInstalls = c.Notebook != nil
	for i := range spec.Checks {
		if !spec.Checks[i].OutputOnly() {
			o.Unjudged++
		}
	}
	if o.Script = isPython(job); o.Script || miss.NoNVCC != nil || miss.Machine == nil {
		return o, nil
	}
	job.Spec = spec
	b, err := Build(ctx, NewToolkit(miss.Machine.Compiler(), miss.Machine.Cache), Plain{}, job, 0)
	if err == nil && ctx.Err() != nil {
		// Stopped (Ctrl-C): nvcc was killed, which says nothing of the file.
		err = fmt.Errorf("check %s: stopped before the build ended: %w", o.Src, ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	o.Built, o.Failed, o.Log = b.Failed == nil, b.Failed, b.Log
	return o, nil
}

func lessonIndex(c *course.Course, x *course.Exercise) int {
	for i, e := range c.Lessons {
		if e == x.Lesson {
			return i
		}
	}
	return 0
}

// Error is the report, for a caller that shows a check that could not be
// judged as an error (the page's Check): an Offline is no verdict.
func (o *Offline) Error() string { return o.Text() }

// WithoutGPU is CheckOffline's report as an error, or its error.
func WithoutGPU(ctx context.Context, c *course.Course, x *course.Exercise, src string, miss *machine.Missing) error {
	o, err := CheckOffline(ctx, c, x, src, miss)
	if err != nil {
		return err
	}
	return o
}

// Text is the report for a terminal: each thing done here, and each
// thing the student can do next.
func (o *Offline) Text() string {
	var b strings.Builder
	id := o.Exercise.ID
	fmt.Fprintf(&b, "Checking %s (%s)\n\n%s", id, o.Src, o.Log)
	fmt.Fprintf(&b, "No GPU here (%v): %s cannot be run, so its checks cannot be judged.\nWhat can be done without one:\n\n", o.NoGPU, id)
	switch {
	case o.Script:
		b.WriteString("  – a Python script: nothing to build; it runs with python3 where there is a GPU\n")
	case o.NoNVCC != nil:
		fmt.Fprintf(&b, "  – not built: %v\n", o.NoNVCC)
	case o.Built:
		b.WriteString("  ✓ it builds (nvcc)\n")
	default:
		fmt.Fprintf(&b, "  ✗ it does not build: %s\n", o.Failed[0].Got)
	}
	switch {
	case o.Empty:
		fmt.Fprintf(&b, "  ✗ the file is empty: there is nothing to build or check; write the exercise in it\n")
	case len(o.TODOs) == 0:
		b.WriteString("  ✓ no TODO left in the file\n")
	default:
		fmt.Fprintf(&b, "  – %s left (%s %s)\n", ui.Count(len(o.TODOs), "TODO"), map[bool]string{true: "line", false: "lines"}[len(o.TODOs) == 1], joinInts(o.TODOs))
	}
	if len(o.Findings) == 0 {
		b.WriteString("  ✓ nothing a grade would mark for review\n")
	}
	for _, f := range o.Findings {
		fmt.Fprintf(&b, "  – a grade would mark it for review: %s\n", f)
	}
	b.WriteString("\nNext:\n")
	if o.Hints > 0 {
		fmt.Fprintf(&b, "  • lessons hint %s shows its %s.\n", id, map[bool]string{true: "hint", false: fmt.Sprintf("%d hints, one at a time", o.Hints)}[o.Hints == 1])
	}
	if o.Server != "" {
		fmt.Fprintf(&b, "  • Run and check it on the class's server, which has GPUs: %s\n", ui.Clip(o.Server, 200))
		fmt.Fprintf(&b, "  • Or from here: lessons check %s --remote sends it there (your token from its page in $LESSONS_CLASS_TOKEN); not a submission.\n", id)
	}
	where := "In Colab"
	if o.Server != "" {
		where = "Or in Colab"
	}
	fmt.Fprintf(&b, "  • %s, on its free GPU: lessons export --ipynb notebooks writes notebooks/%s; upload it to colab.research.google.com, pick Runtime > Change runtime type > GPU, paste your file into the exercise's cell and run the cells after it.", where, o.Notebook)
	switch {
	case o.NotebookInstalls:
		fmt.Fprintf(&b, " Its first cell installs lessons and the course there, and its check cell runs lessons check: all %d checks.\n", o.Checks)
	case o.NotebookJudges:
		fmt.Fprintf(&b, " Its check cell applies all %d checks there.\n", o.Checks)
	default:
		fmt.Fprintf(&b, " There it builds and runs the program, but judges none of its %d checks: %d of them read what the program did with the allocator (or under a sanitizer), which only lessons check on a GPU sees.\n", o.Checks, o.Unjudged)
	}
	return b.String()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
