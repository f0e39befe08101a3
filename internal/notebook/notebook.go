// Package notebook runs a lesson's cells in order, the way a notebook does:
// file cells write their files into the lesson's workspace, command cells
// run in a shell there, and program cells are built (through the compile
// cache) and run. Output streams under each cell's label as it comes.
package notebook

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/jupyter"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/ui"
)

// Env is what a run uses of the machine.
type Env struct {
	Runner runner.Runner
	// Wrapper is a folder holding an nvcc that builds through the cache;
	// it goes first on the PATH of command cells, and Vars tell it which
	// nvcc, architecture and cache to use.
	Wrapper string
	// Vars are added to the environment of command cells.
	Vars []string
	// Base is the environment command cells and the Python session start
	// from, before Wrapper and Vars; nil: this process's own (a
	// student's machine). A server that runs others' cells sets it
	// (runner.HostEnv), so that none of its own variables reach them.
	Base []string
	// StartPython starts the session a lesson run's Python cells run in,
	// at its first Python cell; nil when the machine has no Python, and
	// NoPython then says why (each Python cell is listed as not run).
	StartPython func(ctx context.Context, dir string, env []string) (PythonSession, error)
	NoPython    string
	// PythonWay says how Python cells run, for run, show and the page:
	// "Python 3.12, no Jupyter kernel: IPython's magics are not available".
	PythonWay string
	// kernel is the kernel WithKernel looked for; "" when the caller set
	// StartPython itself, which ForLesson then leaves alone.
	kernel string
}

// WithPython sets env to run Python cells in the Jupyter kernel python3
// where one is installed, else in python3 through lessons' driver, or
// says why they cannot run.
func WithPython(ctx context.Context, env Env) Env { return WithKernel(ctx, env, "python3") }

// WithKernel is WithPython for the kernel a notebook names: where it is
// not installed, Python cells run as WithPython runs them, and the way
// says which kernel the notebook wanted.
func WithKernel(ctx context.Context, env Env, name string) Env {
	if name == "" {
		name = "python3"
	}
	env.kernel, env.StartPython, env.NoPython = name, nil, ""
	spec, err := findSpec(name)
	if err != nil && name != "python3" {
		env = WithPython(ctx, env)
		env.kernel = name
		if !strings.Contains(err.Error(), "LESSONS_KERNEL=none") {
			env.PythonWay += " (the notebook names the kernel " + name + ", not installed here)"
		}
		return env
	}
	if err == nil {
		env.PythonWay = spec.Way()
		env.StartPython = func(ctx context.Context, dir string, vars []string) (PythonSession, error) {
			return jupyter.Start(ctx, spec, dir, vars)
		}
		return env
	}
	interp, err := findPython()
	if err != nil {
		env.NoPython = "no Python: " + err.Error()
		env.PythonWay = "not run: " + env.NoPython
		return env
	}
	env.PythonWay = interp.Way()
	env.StartPython = func(ctx context.Context, dir string, vars []string) (PythonSession, error) {
		return python.Start(ctx, interp, dir, vars)
	}
	return env
}

// ForLesson is env for l's Python cells: the kernel its notebook names
// (its kernelspec; python3 for a notebook that names none and for
// markdown lessons), where env was made by WithPython or WithKernel. An
// env whose StartPython the caller set itself is kept as it is.
func ForLesson(ctx context.Context, env Env, l *lesson.Lesson) Env {
	want := l.Kernel
	if want == "" {
		want = "python3"
	}
	if env.kernel == "" || env.kernel == want {
		return env
	}
	return WithKernel(ctx, env, want)
}

// What this machine has for Python cells is looked for once per process
// (kernelspecs on disk, python3 asked its version): every lesson run,
// every cell of the page and every lesson of verify asks again.
var (
	specs      sync.Map // kernel name -> func() (*jupyter.Spec, error)
	findPython = sync.OnceValues(func() (*python.Interpreter, error) { return python.Find(context.Background()) })
)

func findSpec(name string) (*jupyter.Spec, error) {
	f, _ := specs.LoadOrStore(name, sync.OnceValues(func() (*jupyter.Spec, error) { return jupyter.FindSpec(name) }))
	return f.(func() (*jupyter.Spec, error))()
}

// Counts are how a run's cells went, for its summary line.
// Partial counts the cells of OK that ran only in part (built, their
// programs not run).
type Counts struct{ OK, Failed, Skipped, NotRun, Partial int }

// Count counts outcomes.
func Count(outcomes []Outcome) Counts {
	var n Counts
	for _, o := range outcomes {
		switch {
		case o.NotRun:
			n.NotRun++
		case o.Skipped:
			n.Skipped++
		case o.OK:
			n.OK++
			if len(o.Partial) > 0 {
				n.Partial++
			}
		default:
			n.Failed++
		}
	}
	return n
}

// Summary is the counts in words: "6 ok, 0 failed, 0 skipped, 11 not run
// (no Python)", with why the first cell not run was not.
func Summary(outcomes []Outcome) string {
	n := Count(outcomes)
	s := fmt.Sprintf("%d ok, %d failed, %d skipped", n.OK, n.Failed, n.Skipped)
	if n.Partial > 0 {
		s = fmt.Sprintf("%d ok (%d run in part: built, the rest not run), %d failed, %d skipped", n.OK, n.Partial, n.Failed, n.Skipped)
	}
	if n.NotRun > 0 {
		why := ""
		for _, o := range outcomes {
			if o.NotRun {
				why = o.Reason
				if i := strings.Index(why, ":"); i > 0 {
					why = why[:i]
				}
				break
			}
		}
		s += fmt.Sprintf(", %d not run (%s)", n.NotRun, why)
	}
	return s
}

// PythonSession runs Python cells in order in one namespace: lessons'
// driver in plain python3 (package python), or a Jupyter kernel.
type PythonSession interface {
	Run(ctx context.Context, n int, code string, out io.Writer, timeout time.Duration) (*python.Result, error)
	// Alive reports whether the session can run more cells (it is not
	// after a kill at a time limit).
	Alive() bool
	Close() error
}

// Options say how to run.
type Options struct {
	Workspace string
	// Timeout limits each cell; 0 means none.
	Timeout   time.Duration
	MaxOutput int64
	KeepGoing bool
	// Cell, when not 0, runs only that runnable cell (after writing the
	// files of the cells before it).
	Cell int
	// CompileOnly runs only the builds of each cell (nvcc, and the
	// compiler it drives), in the cells' order, and names every other
	// step as not run: a notebook's cleanup cell must not race the build
	// before it, and its other commands are not run at all.
	CompileOnly bool
	Color       bool
	// Python, when set, is the session Python cells run in, kept by the
	// caller from run to run (the page); otherwise a run starts its own at
	// its first Python cell and ends it with the run.
	Python PythonSession
	// Plain leaves out the cell's label line, its status line and the
	// "stopped at" advice: a caller that shows them itself (the page)
	// gets the programs' output alone.
	Plain bool
	// Trace, when set, traces the CUDA program each command runs and
	// shows its timeline (never under CompileOnly).
	Trace *Trace
}

// Outcome is how one cell went.
type Outcome struct {
	Cell    *lesson.Cell
	OK      bool
	Skipped bool
	// NotRun is a cell that would run, but not on this machine (a Python
	// cell where there is no Python): --strict and verify fail on it.
	NotRun bool
	// Partial are the steps of a cell that ran only in part (under
	// --compile-only, ./prog after its nvcc): each said as not run.
	Partial  []string
	Reason   string // why it failed, in words
	Duration time.Duration
	Hits     int // builds served by the cache
	Builds   int
	// Outputs are a Python cell's images and results.
	Outputs []lesson.Output
	// Traces are the timelines of the cell's commands, when traced
	// (Options.Trace).
	Traces []CellTrace
}

// Run runs the lesson's cells and returns how each went. It stops at the
// first failure unless KeepGoing.
func Run(ctx context.Context, l *lesson.Lesson, env Env, opt Options, out io.Writer) ([]Outcome, error) {
	if opt.Cell != 0 {
		found := false
		for i := range l.Cells {
			found = found || l.Cells[i].Number == opt.Cell
		}
		if !found {
			return nil, fmt.Errorf("%s has no cell [%d]; its cells are numbered 1 to %d", l.Path, opt.Cell, lastNumber(l))
		}
	}
	if err := os.MkdirAll(opt.Workspace, 0o755); err != nil {
		return nil, err
	}
	env = ForLesson(ctx, env, l)
	if why := nothingToRun(l); why != "" && opt.Cell == 0 && !opt.Plain {
		fmt.Fprintf(out, "%s\n\n", opt.style("33", why))
	}
	var outcomes []Outcome
	files := map[string]string{}
	st := &state{env: env, opt: opt}
	defer st.close()
	replay := opt.Cell != 0 && opt.Python == nil && !opt.CompileOnly && env.StartPython != nil && pythonCell(l, opt.Cell)
	var before []string // how the Python cells before cell opt.Cell went
	for i := range l.Cells {
		c := &l.Cells[i]
		if !c.Runnable() {
			if o, ok := notRun(c); ok && opt.Cell == 0 {
				if !opt.Plain {
					what, _, _ := strings.Cut(o.Reason, ":")
					fmt.Fprintf(out, "%s\n%s\n\n", opt.style("1;36", fmt.Sprintf("[-] %s at line %d", what, c.Line)), opt.style("33", "– not run: "+o.Reason))
				}
				outcomes = append(outcomes, o)
			}
			continue
		}
		if opt.Cell != 0 && c.Number > opt.Cell {
			break
		}
		if err := ctx.Err(); err != nil {
			return outcomes, err
		}
		quiet := opt.Cell != 0 && c.Number != opt.Cell
		switch {
		case quiet && c.Kind == lesson.Python && replay:
			// --cell N of a Python cell: a fresh session would lack what
			// the cells above set, so they run first, as Jupyter's "Run
			// All Above" would (only the Python cells: the files are
			// written, and commands and programs are not run again).
			before = append(before, st.replayed(ctx, c))
			continue
		case quiet && c.Kind != lesson.File:
			continue
		case !quiet && len(before) > 0 && !opt.Plain:
			fmt.Fprintf(out, "%s\n", opt.style("2", "(the Python cells above ran first, for their state: "+strings.Join(before, ", ")+")"))
		}
		o := st.runCell(ctx, c, fileText(files, c), out, quiet)
		if quiet {
			continue
		}
		outcomes = append(outcomes, o)
		if !o.OK && !o.Skipped && !o.NotRun && !opt.KeepGoing && !opt.Plain {
			fmt.Fprintf(out, "\nstopped at cell [%d] (line %d of %s): %s\n", c.Number, c.Line, l.Path, o.Reason)
			fmt.Fprintf(out, "run the rest with --keep-going, or this cell alone with --cell %d\n", c.Number)
			break
		}
	}
	return outcomes, nil
}

// nothingToRun says why a lesson with code has no cell to run: a
// markdown lesson from another course shows its code as examples to
// read, and a run of 0 cells would not say why.
func nothingToRun(l *lesson.Lesson) string {
	blocks := 0
	for _, c := range l.Cells {
		if c.Runnable() || c.Kind == lesson.Code && c.Note != "" {
			return ""
		}
		if c.Kind == lesson.Code {
			blocks++
		}
	}
	if blocks == 0 || l.Dialect == lesson.Ipynb {
		return ""
	}
	return fmt.Sprintf("%s has no cells to run: its %d code blocks are examples to read\n"+
		"(a fence runs when it says so: ```sh run, ```cuda file=x.cu run, ```python run)", filepath.Base(l.Path), blocks)
}

// notRun is the outcome of a notebook's code cell that lessons does not
// run (a cell of a Julia or C++ kernel, a cell magic it does not know),
// so that a run counts it as not run rather than leave it out.
func notRun(c *lesson.Cell) (Outcome, bool) {
	if c.Kind != lesson.Code || c.Note == "" || !strings.Contains(c.Note, ":") {
		return Outcome{}, false
	}
	// "a julia cell: shown, not run (lessons runs ...)" is said as
	// "a julia cell: lessons runs ...": the mark already says not run.
	why := strings.TrimSuffix(strings.Replace(c.Note, ": shown, not run (", ": ", 1), ")")
	return Outcome{Cell: c, NotRun: true, Reason: why}, true
}

// pythonCell tells whether cell n of l is a Python cell.
func pythonCell(l *lesson.Lesson, n int) bool {
	for _, c := range l.Cells {
		if c.Number == n && c.Runnable() {
			return c.Kind == lesson.Python
		}
	}
	return false
}

// replayed runs Python cell c for its state alone, its output left out,
// and says in a word how it went: "[3] ok", "[4] failed: NameError: ...".
func (st *state) replayed(ctx context.Context, c *lesson.Cell) string {
	o := st.python(ctx, c, io.Discard)
	switch {
	case o.OK:
		return fmt.Sprintf("[%d] ok", c.Number)
	case o.NotRun || o.Skipped:
		return fmt.Sprintf("[%d] not run", c.Number)
	}
	return fmt.Sprintf("[%d] failed: %s", c.Number, o.Reason)
}

func lastNumber(l *lesson.Lesson) int {
	n := 0
	for _, c := range l.Cells {
		n = max(n, c.Number)
	}
	return n
}

func (o Options) style(sgr, s string) string {
	return ui.Style(o.Color, sgr, s)
}

// fileText is what a File cell's file holds once the cell has run: its
// text, or for an appending cell (%%writefile -a) what the lesson wrote to
// the file so far and then its text. A rerun writes the same file again
// instead of appending twice.
func fileText(files map[string]string, c *lesson.Cell) string {
	if c.Kind != lesson.File {
		return c.Text
	}
	name := filepath.Clean(c.Name)
	text := c.Text
	if c.Append {
		text = files[name] + text
	}
	files[name] = text
	return text
}

// state is what a run keeps from cell to cell: the Python session.
type state struct {
	env    Env
	opt    Options
	py     PythonSession
	own    bool  // the run started py and ends it
	pyErr  error // the session could not start
	images int
}

func (st *state) close() {
	if st.own && st.py != nil {
		st.py.Close()
	}
}

func (st *state) runCell(ctx context.Context, c *lesson.Cell, text string, out io.Writer, quiet bool) Outcome {
	env, opt := st.env, st.opt
	o := Outcome{Cell: c}
	start := time.Now()
	if !quiet && !opt.Plain {
		label := c.Label
		if c.Kind == lesson.Command && !strings.HasPrefix(label, "!") && !strings.HasPrefix(label, "%%") {
			label = "!" + strings.TrimPrefix(label, "$ ")
		}
		if c.Kind == lesson.Python {
			label = "python: " + label
		}
		fmt.Fprintf(out, "%s\n", opt.style("1;36", fmt.Sprintf("[%d] %s", c.Number, label)))
		if c.Note != "" {
			fmt.Fprintf(out, "%s\n", opt.style("33", "("+c.Note+")"))
		}
	}
	var tail tailBuffer
	w := io.MultiWriter(out, &tail)
	switch {
	case lesson.CUDASetup(c):
		o.Skipped, o.Reason = true, "lessons runs nvcc4jupyter's %%cuda cells itself: nothing to install or load"
		if !quiet {
			fmt.Fprintf(w, "(skipped: %s)\n", o.Reason)
		}
	case c.Kind == lesson.Python:
		if quiet {
			return Outcome{Cell: c, Skipped: true}
		}
		o = st.python(ctx, c, w)
	case c.Kind == lesson.File:
		changed, err := writeFile(opt.Workspace, c.Name, text)
		switch {
		case err != nil:
			o.Reason = err.Error()
		case quiet:
			o.OK = true
		default:
			o.OK = true
			note := "wrote"
			if !changed {
				note = "unchanged"
			}
			if c.Append {
				note += " (appended to)"
			}
			fmt.Fprintf(out, "%s %s (%d lines)\n", note, c.Name, strings.Count(text, "\n"))
		}
		if o.OK && c.Build && !quiet {
			bin := strings.TrimSuffix(c.Name, filepath.Ext(c.Name))
			build := strings.TrimSpace(fmt.Sprintf("nvcc -o %s %s %s", bin, c.Name, c.Flags))
			o = command(ctx, c, env, opt, build+" && ./"+bin, w, &tail)
		}
	case c.CUDA != nil:
		cc, env, opt := st.ipython(ctx, c, env, opt, w)
		o = cudaCell(ctx, cc, env, opt, w, &tail)
		o.Cell = c
	case c.Bang:
		cc, env, opt := st.ipython(ctx, c, env, opt, w)
		o = bang(ctx, cc, env, opt, w, &tail)
		o.Cell = c
	default:
		o = command(ctx, c, env, opt, c.Text, w, &tail)
	}
	o.Duration = time.Since(start)
	if !quiet && !opt.Plain {
		mark := opt.style("32", "✓")
		switch {
		case o.Skipped && strings.HasPrefix(o.Reason, "compile only"):
			mark = opt.style("33", "– not run: "+o.Reason)
		case o.Skipped:
			mark = opt.style("33", "–")
		case o.OK && len(o.Partial) > 0:
			mark = opt.style("33", "✓ run in part: built; not run: "+strings.Join(o.Partial, "; "))
		case o.NotRun:
			mark = opt.style("33", "– not run: "+o.Reason)
		case !o.OK:
			mark = opt.style("31", "✗ "+o.Reason)
		}
		fmt.Fprintf(out, "%s %s\n\n", mark, opt.style("2", o.Duration.Round(time.Millisecond).String()))
	}
	return o
}

// python runs a Python cell in the run's session, started at the first.
func (st *state) python(ctx context.Context, c *lesson.Cell, w io.Writer) Outcome {
	o := Outcome{Cell: c}
	switch {
	case st.opt.CompileOnly:
		o.Skipped, o.Reason = true, "compile only: a Python cell is not a build"
		return o
	case st.opt.Python != nil:
		st.py = st.opt.Python
	case st.py == nil && st.pyErr == nil && st.env.StartPython == nil:
		st.pyErr = errors.New(st.env.NoPython)
		if st.env.NoPython == "" {
			st.pyErr = errors.New("no Python")
		}
	case st.py == nil && st.pyErr == nil:
		st.py, st.pyErr = st.env.StartPython(ctx, st.opt.Workspace, CellEnv(st.env))
		st.own = st.pyErr == nil
	}
	if st.pyErr != nil {
		o.NotRun, o.Reason = true, st.pyErr.Error()
		return o
	}
	res, err := st.py.Run(ctx, c.Number, c.Text, w, st.opt.Timeout)
	if err != nil {
		o.Reason = err.Error()
		return o
	}
	o.OK, o.Outputs = res.OK, res.Outputs
	if !o.OK {
		o.Reason = res.Reason(st.opt.Timeout)
		if res.TimedOut {
			o.Reason += " (raise the limit with --timeout)"
		}
	}
	for _, out := range res.Outputs {
		if out.MIME == "" {
			continue
		}
		st.images++
		name := fmt.Sprintf(".lessons-out/cell%d-%d%s", c.Number, st.images, imageExt(out.MIME))
		where := name
		if data, err := base64.StdEncoding.DecodeString(out.Data); err != nil {
			where = "not saved: " + err.Error()
		} else if _, err := writeFile(st.opt.Workspace, name, string(data)); err != nil {
			where = "not saved: " + err.Error()
		}
		fmt.Fprintf(w, "[%s, %d bytes of base64: %s]\n", out.MIME, len(out.Data), where)
	}
	return o
}

func imageExt(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/svg+xml":
		return ".svg"
	}
	return ".img"
}

// CellEnv is the environment of a cell's commands: the nvcc wrapper first
// on the PATH, and the run's variables.
func CellEnv(env Env) []string {
	vars := os.Environ()
	path := os.Getenv("PATH")
	if env.Base != nil {
		vars = append([]string(nil), env.Base...)
		path = ""
		for _, kv := range env.Base {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				path = v
			}
		}
	}
	if env.Wrapper != "" {
		vars = append(vars, "PATH="+env.Wrapper+string(os.PathListSeparator)+path)
	}
	return append(vars, env.Vars...)
}

// command runs a command cell: in compile-only mode only its builds.
func command(ctx context.Context, c *lesson.Cell, env Env, opt Options, script string, w io.Writer, tail *tailBuffer) Outcome {
	o := Outcome{Cell: c}
	if opt.CompileOnly {
		steps, skipped := buildPlan(script)
		for _, s := range skipped {
			fmt.Fprintf(w, "(not run: %s: %s)\n", oneLine(s.Step), s.Why)
			o.Partial = append(o.Partial, oneLine(s.Step))
		}
		if len(steps) == 0 {
			o.Skipped, o.Reason = true, "compile only: nothing to build"
			return o
		}
		script = strings.Join(steps, " && ")
		if len(skipped) > 0 {
			fmt.Fprintf(w, "(compile only: %s)\n", script)
		}
	}
	shell := "sh"
	if _, err := os.Stat("/bin/bash"); err == nil {
		shell = "/bin/bash"
	}
	if strings.Contains(strings.TrimSpace(script), "\n") {
		script = "set -e\n" + script
	}
	env2 := CellEnv(env)
	spec := runner.Spec{
		Argv: []string{shell, "-c", script}, Dir: opt.Workspace, Env: env2,
		Timeout: opt.Timeout, MaxOutput: opt.MaxOutput,
	}
	var tc *traceChannel
	if opt.Trace != nil && !opt.CompileOnly {
		var err error
		if tc, err = openTrace(); err != nil {
			o.Reason = "the timeline's channel: " + err.Error()
			return o
		}
		spec.Env, spec.ExtraFiles = tc.env(env2, opt.Trace.Library), []*os.File{tc.W}
	}
	res, err := env.Runner.Run(ctx, spec, w)
	if tc != nil {
		t := tc.finish(oneLine(script))
		o.Traces = append(o.Traces, t)
		if opt.Trace.Draw {
			drawTrace(w, t, opt)
		}
	}
	if err != nil {
		o.Reason = err.Error()
		return o
	}
	o.OK = res.OK()
	if !o.OK {
		o.Partial = nil
		o.Reason = res.Reason(opt.Timeout, opt.MaxOutput)
		if res.TimedOut {
			o.Reason += " (raise the limit with --timeout)"
		}
		if loc, msg := FirstCompileError(tail.String()); msg != "" {
			o.Reason = fmt.Sprintf("compile error at %s: %s", loc, msg)
		} else if msg := FirstCUDAError(tail.String()); msg != "" {
			o.Reason += "; the program reported: " + msg
		}
	}
	return o
}

// writeFile writes a cell's file unless it already holds the same text, so
// that an unchanged file keeps its time and a student's look at it stays
// true. It reports whether it wrote. The file is reached through
// safefs: a link in the workspace (a course can commit one) that leads
// out of it is refused, not written through.
func writeFile(ws, name, text string) (bool, error) {
	if old, err := safefs.ReadFile(ws, name); err == nil && string(old) == text {
		return false, nil
	}
	return true, safefs.WriteFile(ws, name, []byte(text), 0o644)
}

var (
	nvccErrRE = regexp.MustCompile(`(?m)^(\S+?)\((\d+)\): (?:catastrophic )?error:\s*(.*)$`)
	gccErrRE  = regexp.MustCompile(`(?m)^(\S+?):(\d+):(?:\d+:)? (?:fatal )?error:\s*(.*)$`)
	cudaErrRE = regexp.MustCompile(`(?m)^.*\b(cuda[A-Za-z]*Error[A-Za-z]*|CUDA_ERROR_[A-Z_]+|[Cc][Uu][Dd][Aa] [Ee]rror)\b.*$`)
)

// FirstCompileError finds the compiler's first error in output and returns
// its place (file:line) and message.
func FirstCompileError(output string) (string, string) {
	best, loc, msg := -1, "", ""
	for _, re := range []*regexp.Regexp{nvccErrRE, gccErrRE} {
		if m := re.FindStringSubmatchIndex(output); m != nil && (best < 0 || m[0] < best) {
			best = m[0]
			loc = output[m[2]:m[3]] + ":" + output[m[4]:m[5]]
			msg = strings.TrimSpace(output[m[6]:m[7]])
		}
	}
	return loc, msg
}

// FirstCUDAError finds the first line that reports a CUDA error.
func FirstCUDAError(output string) string {
	return strings.TrimSpace(cudaErrRE.FindString(output))
}

// compileSteps splits a shell command at && ; || and newlines, and keeps
// the nvcc steps.
func compileSteps(script string) (steps []string, skipped int) {
	for _, part := range splitShell(script) {
		f := strings.Fields(part)
		if len(f) > 0 && filepath.Base(f[0]) == "nvcc" {
			steps = append(steps, strings.TrimSpace(part))
		} else if strings.TrimSpace(part) != "" {
			skipped++
		}
	}
	return steps, skipped
}

func splitShell(s string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == ';' || ch == '\n':
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		case (ch == '&' || ch == '|') && i+1 < len(s) && s[i+1] == ch:
			parts = append(parts, cur.String())
			cur.Reset()
			i++
			continue
		}
		cur.WriteByte(ch)
	}
	return append(parts, cur.String())
}

// tailBuffer keeps the last 64 KiB written, for finding the reason of a
// failure in the output.
type tailBuffer struct{ b bytes.Buffer }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if t.b.Len() > 128<<10 {
		keep := t.b.Bytes()[t.b.Len()-(64<<10):]
		t.b = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return t.b.String() }

// bang runs a cell of ! lines as IPython does: each line alone in its own
// shell, and a failing line does not stop the next (the cell fails all
// the same, with the first failure's reason). Under --compile-only each
// line runs its builds alone, and names the rest as not run.
func bang(ctx context.Context, c *lesson.Cell, env Env, opt Options, w io.Writer, tail *tailBuffer) Outcome {
	o := Outcome{Cell: c, OK: true}
	ran := 0
	lines := lesson.BangLines(c.Text)
	for _, line := range lines {
		if ctx.Err() != nil {
			o.OK, o.Reason = false, "interrupted"
			return o
		}
		lo := command(ctx, c, env, opt, line, w, tail)
		o.Partial = append(o.Partial, lo.Partial...)
		o.Traces = append(o.Traces, lo.Traces...)
		if lo.Skipped {
			continue
		}
		ran++
		if !lo.OK && o.OK {
			o.OK, o.Reason = false, lo.Reason
			if len(lines) > 1 {
				o.Reason = "!" + firstLine(line) + ": " + lo.Reason
			}
		}
	}
	if ran == 0 && opt.CompileOnly {
		o.OK, o.Skipped, o.Reason = false, true, "compile only: nothing to build"
	}
	return o
}

// oneLine is a step as one line, for saying it was not run.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
