// Package notebook runs a lesson's cells in order, the way a notebook does:
// file cells write their files into the lesson's workspace, command cells
// run in a shell there, and program cells are built (through the compile
// cache) and run. Output streams under each cell's label as it comes.
package notebook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/beneath"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/runner"
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
	// CompileOnly runs only the nvcc steps of each cell.
	CompileOnly bool
	// Parallel, above 1 and with CompileOnly, compiles up to that many
	// cells at once (their output still comes in cell order). File cells
	// are written in order first; a lesson that writes one file twice is
	// compiled one cell at a time.
	Parallel int
	Color    bool
	// Plain leaves out the cell's label line, its status line and the
	// "stopped at" advice: a caller that shows them itself (the page)
	// gets the programs' output alone.
	Plain bool
}

// Outcome is how one cell went.
type Outcome struct {
	Cell     *lesson.Cell
	OK       bool
	Skipped  bool
	Reason   string // why it failed, in words
	Duration time.Duration
	Hits     int // builds served by the cache
	Builds   int
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
	if opt.CompileOnly && opt.Parallel > 1 && opt.Cell == 0 && !rewritesFile(l) {
		return compileParallel(ctx, l, env, opt, out)
	}
	var outcomes []Outcome
	files := map[string]string{}
	for i := range l.Cells {
		c := &l.Cells[i]
		if !c.Runnable() {
			continue
		}
		if opt.Cell != 0 && c.Number > opt.Cell {
			break
		}
		quiet := opt.Cell != 0 && c.Number != opt.Cell
		if quiet && c.Kind != lesson.File {
			continue
		}
		if err := ctx.Err(); err != nil {
			return outcomes, err
		}
		o := runCell(ctx, c, fileText(files, c), env, opt, out, quiet)
		if quiet {
			continue
		}
		outcomes = append(outcomes, o)
		if !o.OK && !o.Skipped && !opt.KeepGoing && !opt.Plain {
			fmt.Fprintf(out, "\nstopped at cell [%d] (line %d of %s): %s\n", c.Number, c.Line, l.Path, o.Reason)
			fmt.Fprintf(out, "run the rest with --keep-going, or this cell alone with --cell %d\n", c.Number)
			break
		}
	}
	return outcomes, nil
}

// rewritesFile tells whether two file cells write the same file, so that
// a compile between them must see the first version.
func rewritesFile(l *lesson.Lesson) bool {
	seen := map[string]bool{}
	for _, c := range l.Cells {
		if c.Runnable() && c.Kind == lesson.File {
			name := filepath.Clean(c.Name)
			if seen[name] {
				return true
			}
			seen[name] = true
		}
	}
	return false
}

// compileParallel is Run in compile-only mode with opt.Parallel cells at
// once: every file is written first, in order, then the cells' compile
// steps run side by side, each cell's output kept and written in order.
func compileParallel(ctx context.Context, l *lesson.Lesson, env Env, opt Options, out io.Writer) ([]Outcome, error) {
	var cells []*lesson.Cell
	var texts []string
	files := map[string]string{}
	for i := range l.Cells {
		c := &l.Cells[i]
		if !c.Runnable() {
			continue
		}
		texts = append(texts, fileText(files, c))
		if c.Kind == lesson.File {
			if _, err := writeFile(opt.Workspace, c.Name, texts[len(texts)-1]); err != nil {
				return nil, err
			}
		}
		cells = append(cells, c)
	}
	outcomes := make([]Outcome, len(cells))
	logs := make([]bytes.Buffer, len(cells))
	sem := make(chan struct{}, opt.Parallel)
	var wg sync.WaitGroup
	for i, c := range cells {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			outcomes[i] = runCell(ctx, c, texts[i], env, opt, &logs[i], false)
		}()
	}
	wg.Wait()
	for i := range logs {
		out.Write(logs[i].Bytes())
	}
	return outcomes, ctx.Err()
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

func runCell(ctx context.Context, c *lesson.Cell, text string, env Env, opt Options, out io.Writer, quiet bool) Outcome {
	o := Outcome{Cell: c}
	start := time.Now()
	if !quiet && !opt.Plain {
		label := c.Label
		if c.Kind == lesson.Command && !strings.HasPrefix(label, "!") && !strings.HasPrefix(label, "%%") {
			label = "!" + strings.TrimPrefix(label, "$ ")
		}
		fmt.Fprintf(out, "%s\n", opt.style("1;36", fmt.Sprintf("[%d] %s", c.Number, label)))
		if c.Note != "" {
			fmt.Fprintf(out, "%s\n", opt.style("33", "("+c.Note+")"))
		}
	}
	var tail tailBuffer
	w := io.MultiWriter(out, &tail)
	switch {
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
	default:
		o = command(ctx, c, env, opt, c.Text, w, &tail)
	}
	o.Duration = time.Since(start)
	if !quiet && !opt.Plain {
		mark := opt.style("32", "✓")
		switch {
		case o.Skipped:
			mark = opt.style("33", "–")
		case !o.OK:
			mark = opt.style("31", "✗ "+o.Reason)
		}
		fmt.Fprintf(out, "%s %s\n\n", mark, opt.style("2", o.Duration.Round(time.Millisecond).String()))
	}
	return o
}

// command runs a command cell: in compile-only mode only its nvcc steps.
func command(ctx context.Context, c *lesson.Cell, env Env, opt Options, script string, w io.Writer, tail *tailBuffer) Outcome {
	o := Outcome{Cell: c}
	if opt.CompileOnly {
		steps, skipped := compileSteps(script)
		if len(steps) == 0 {
			o.Skipped, o.Reason = true, "nothing to compile; running needs a GPU"
			fmt.Fprintf(w, "(skipped: %s)\n", o.Reason)
			return o
		}
		script = strings.Join(steps, " && ")
		if skipped > 0 {
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
	env2 := os.Environ()
	if env.Wrapper != "" {
		env2 = append(env2, "PATH="+env.Wrapper+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	env2 = append(env2, env.Vars...)
	res, err := env.Runner.Run(ctx, runner.Spec{
		Argv: []string{shell, "-c", script}, Dir: opt.Workspace, Env: env2,
		Timeout: opt.Timeout, MaxOutput: opt.MaxOutput,
	}, w)
	if err != nil {
		o.Reason = err.Error()
		return o
	}
	o.OK = res.OK()
	if !o.OK {
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
// beneath: a link in the workspace (a course can commit one) that leads
// out of it is refused, not written through.
func writeFile(ws, name, text string) (bool, error) {
	if old, err := beneath.ReadFile(ws, name); err == nil && string(old) == text {
		return false, nil
	}
	return true, beneath.WriteFile(ws, name, []byte(text), 0o644)
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
