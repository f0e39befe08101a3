package cells

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/tracer"
)

// The class's trace has a lane for the runs, a row for each run slot,
// and one for the runs that were never given a slot (stopped waiting).
const (
	laneRuns     = 1
	laneUnqueued = 2
)

// NewTrace is the class's trace (internal/tracer) written to w, its
// times counted from start: for each run the queue gave a slot, a span
// on the slot's row from the slot given to the slot given back, its
// phases in its args, each a time in ms since the trace's start (0: the
// phase did not happen). A cell's run is the sandbox's process (the
// shell of the cell, the nvcc wrapper, the program); a check's or a
// submission's is grade's run of the built program (its build happens
// before it queues). Read by bench/classload's -trace; Perfetto draws
// it.
func NewTrace(w io.Writer, start time.Time) *tracer.Tracer {
	return tracer.New(w, start, map[int]string{laneRuns: "runs", laneUnqueued: "stopped before a slot"})
}

// Phase is a phase of a run that a span notes.
type Phase int

// The phases, in the order they happen.
const (
	// BuildStart and BuildEnd bound a check's build, or a cell's
	// prebuild (outside the queue).
	BuildStart Phase = iota
	BuildEnd
	Queued
	Granted
	// Spawned is when the sandbox's process started (its fork and
	// exec, after the workspace was handed to the slot's user).
	Spawned
	FirstOut // the process's first output
	Exited   // the runner returned
	done     // the slot given back
	// nvccStart and nvccEnd bound the nvcc wrapper inside a cell, as
	// the wrapper noted them (the cell may write that note: a debugging
	// aid, nothing more).
	nvccStart
	nvccEnd
	nPhases
)

var phaseNames = [nPhases]string{"buildStart", "buildEnd", "queued", "granted", "spawned", "firstOut", "exited", "done", "nvccStart", "nvccEnd"}

// Span is a run's phases as they happen, in the server's clock; a nil
// Span (no trace) notes nothing.
type Span struct {
	tr                    *tracer.Tracer
	kind, student, device string
	slot                  int
	mu                    sync.Mutex // phases are noted from the runner's goroutines too
	at                    [nPhases]time.Time
	nvccHit               bool
}

// Begin starts the span of a run of kind (cell, check, submit) of
// student's; nil without a trace.
func (r *Room) Begin(kind, student string) *Span {
	if r.cfg.Trace == nil {
		return nil
	}
	return &Span{tr: r.cfg.Trace, kind: kind, student: student, slot: -1}
}

// Grant notes the slot the queue gave, now.
func (s *Span) Grant(device string, slot int, now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.device, s.slot, s.at[Granted] = device, slot, now
	s.mu.Unlock()
}

// Mark notes that phase p began now, unless it was noted before.
func (s *Span) Mark(p Phase, now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.at[p].IsZero() {
		s.at[p] = now
	}
	s.mu.Unlock()
}

// End notes the slot given back and writes the span.
func (s *Span) End(now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.at[done] = now
	tr, a := s.tr, s.at
	args := map[string]any{"student": s.student, "slot": s.slot}
	if s.device != "" {
		args["device"] = s.device
	}
	for p, t := range a {
		if !t.IsZero() {
			args[phaseNames[p]] = tr.Millis(t)
		}
	}
	if s.nvccHit {
		args["nvccHit"] = true
	}
	span := tracer.Span{Name: s.kind + " " + s.student, Cat: s.kind, Lane: laneRuns, Row: s.slot, Begin: a[Granted], End: now, Args: args}
	if a[Granted].IsZero() {
		span.Lane, span.Row, span.Begin = laneUnqueued, 0, a[Queued]
		if span.Begin.IsZero() {
			span.Begin = now
		}
	}
	s.mu.Unlock()
	tr.Add(span)
}

// firstWriter notes when the first byte goes through it.
type firstWriter struct {
	w     io.Writer
	s     *Span
	clock func() time.Time
}

func (f firstWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		f.s.Mark(FirstOut, f.clock())
	}
	return f.w.Write(p)
}

// nvccNote is the file, in a cell's folder for temporary files, where
// the nvcc wrapper notes when it began and ended (nvccwrap.Main,
// $LESSONS_TRACE_NVCC).
const nvccNote = ".lessons-trace-nvcc"

// readNvccNote takes the wrapper's note of its first build from the
// cell's folder dir into s, and removes it. The cell could write
// anything there: only two times and a word are read, and only into
// the trace.
func (s *Span) readNvccNote(dir string) {
	if s == nil {
		return
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer root.Close()
	f, err := root.Open(nvccNote)
	if err != nil {
		return
	}
	data, _ := io.ReadAll(io.LimitReader(f, 4096))
	f.Close()
	root.Remove(nvccNote)
	line, _, _ := strings.Cut(string(data), "\n")
	w := strings.Fields(line)
	if len(w) != 3 {
		return
	}
	a, err1 := strconv.ParseInt(w[0], 10, 64)
	b, err2 := strconv.ParseInt(w[1], 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	s.mu.Lock()
	s.at[nvccStart], s.at[nvccEnd], s.nvccHit = time.Unix(0, a), time.Unix(0, b), w[2] == "hit"
	s.mu.Unlock()
}
