package notebook

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/timeline"
)

// Trace says how a run's cells show what their CUDA programs did with the
// allocator (lessons run --timeline, the page's timeline toggle): the
// statistics library is preloaded into each command of a cell, with
// LESSONS_STATS_CELL so that only the CUDA program it runs takes the
// record's channel (kernels/timeline.h), and the nvcc wrapper builds with
// the shared runtime that the library sees. A cell's timeline is for
// seeing: nothing is judged from it.
type Trace struct {
	// Library is the statistics library (exercise.Toolkit.StatsLibrary).
	Library string
	// Draw draws each trace under the command's output for a terminal
	// of Width columns (80 when 0); the page leaves Draw off and draws
	// the outcome's Traces itself.
	Draw  bool
	Width int
}

// CellTrace is what one command of a cell sent: its CUDA program's
// trace, or why there is none (both empty: it ran no CUDA program the
// library could follow, such as one built with the static runtime, or
// none at all).
type CellTrace struct {
	Command string
	Trace   []byte
	// Missing says why no trace came ("" when one did).
	Missing string
}

// traceDrain is how long a cell's record is still read after its
// command ended (a program it left running holds the pipe).
const traceDrain = 2 * time.Second

// traceChannel is the pipe and key of one traced command.
type traceChannel struct{ *checker.Pipe }

func openTrace() (*traceChannel, error) {
	p, err := checker.OpenPipe()
	if err != nil {
		return nil, err
	}
	return &traceChannel{p}, nil
}

// env is the command's environment with the library preloaded (before
// any library the cell preloads itself) and the channel named: the first
// of the run's ExtraFiles.
func (c *traceChannel) env(env []string, lib string) []string {
	preload := lib
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok && v != "" {
			preload = lib + ":" + v
		}
	}
	out := append(env[:len(env):len(env)], "LD_PRELOAD="+preload)
	return append(append(out, c.Env()...), "LESSONS_STATS_TRACE=1", "LESSONS_STATS_CELL=1")
}

// finish reads the record to its end and returns its trace, or why
// there is none.
func (c *traceChannel) finish(command string) CellTrace {
	got, err := c.Finish(traceDrain)
	t := CellTrace{Command: command}
	var ce *checker.ChannelError
	switch {
	case got == nil && err == nil:
		// No CUDA program ran (ls, nvcc alone): nothing to say.
	case err != nil && errors.As(err, &ce) && strings.Contains(ce.Reason, "is not one of the run's processes"):
		t.Missing = "the command ran more than one CUDA program; put each on a line of its own to see its timeline"
	case err != nil && (got == nil || got.Trace == nil):
		t.Missing = "its record did not come whole: " + err.Error()
	case got == nil || got.Stats == nil:
		t.Missing = "its record came without the program's figures"
	case got.Trace == nil:
		t.Missing = "its CUDA program made no call the library follows"
	default:
		t.Trace = got.Trace
	}
	return t
}

// drawTrace draws a command's trace, or says why there is none, under its
// output.
func drawTrace(w io.Writer, t CellTrace, opt Options) {
	if t.Trace == nil && t.Missing == "" {
		return
	}
	if t.Trace == nil {
		fmt.Fprintln(w, opt.style("2", "(no timeline: "+t.Missing+")"))
		return
	}
	tl, err := timeline.Parse(t.Trace)
	if err != nil {
		fmt.Fprintln(w, opt.style("2", fmt.Sprintf("(no timeline: %v)", err)))
		return
	}
	width := opt.Trace.Width
	if width <= 0 {
		width = 80
	}
	io.WriteString(w, timeline.Text(tl, timeline.TextOptions{Width: width, Color: opt.Color}))
}
