package classroom

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Trace writes, for each run the queue gave a slot, one JSON line of
// when each of its phases began (Span): where a slot's time goes under
// load, read by bench/classload's -trace. A line is written as its run
// ends, so that a server killed keeps the lines of the runs before.
type Trace struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
}

// NewTrace is a trace written to w, its times counted from start.
// Its first line says when start was, in Unix milliseconds.
func NewTrace(w io.Writer, start time.Time) *Trace {
	tr := &Trace{w: bufio.NewWriter(w), start: start}
	fmt.Fprintf(tr.w, "{\"kind\":\"start\",\"unixMS\":%d}\n", start.UnixMilli())
	tr.w.Flush()
	return tr
}

// Span is one run's phases, each a time in milliseconds since the
// trace's start (0: the phase did not happen). A cell's run is the
// sandbox's process (the shell of the cell, the nvcc wrapper, the
// program); a check's or a submission's is grade's run of the built
// program (the build happens before it queues).
type Span struct {
	Kind    string `json:"kind"` // cell, check or submit
	Student string `json:"student"`
	Device  string `json:"device,omitempty"`
	Slot    int    `json:"slot"`
	// BuildStart and BuildEnd bound a check's build (outside the queue).
	BuildStart float64 `json:"buildStart,omitempty"`
	BuildEnd   float64 `json:"buildEnd,omitempty"`
	Queued     float64 `json:"queued"`
	Granted    float64 `json:"granted"`
	// Spawned is when the sandbox's process started (its fork and exec
	// atDone, after the workspace was handed to the slot's user).
	Spawned float64 `json:"spawned,omitempty"`
	// NvccStart and NvccEnd bound the nvcc wrapper inside a cell, as
	// the wrapper noted them (the cell may write that note: a debugging
	// aid, nothing more).
	NvccStart float64 `json:"nvccStart,omitempty"`
	NvccEnd   float64 `json:"nvccEnd,omitempty"`
	NvccHit   bool    `json:"nvccHit,omitempty"`
	FirstOut  float64 `json:"firstOut,omitempty"` // the process's first output
	Exited    float64 `json:"exited"`             // the runner returned
	Done      float64 `json:"done"`               // the slot given back
}

func (tr *Trace) at(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.Sub(tr.start).Microseconds()) / 1000
}

// add writes s as a line.
func (tr *Trace) add(s *Span) {
	if tr == nil {
		return
	}
	data, _ := json.Marshal(s)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.w.Write(append(data, '\n'))
	tr.w.Flush()
}

// The phases of a run that a span notes.
type phase int

const (
	atBuildStart phase = iota
	atBuildEnd
	atQueued
	atGranted
	atSpawned
	atFirstOut
	atExited
	atDone
	atNvccStart
	atNvccEnd
	nPhases
)

// span is a run's phases as they happen, in the server's clock; a nil
// span (no trace) notes nothing.
type span struct {
	tr                    *Trace
	kind, student, device string
	slot                  int
	mu                    sync.Mutex // phases are noted from the runner's goroutines too
	at                    [nPhases]time.Time
	nvccHit               bool
}

func (tr *Trace) begin(kind, student string, now time.Time) *span {
	if tr == nil {
		return nil
	}
	s := &span{tr: tr, kind: kind, student: student, slot: -1}
	s.at[atQueued] = now
	return s
}

// grant notes the slot the queue gave, now.
func (s *span) grant(device string, slot int, now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.device, s.slot, s.at[atGranted] = device, slot, now
	s.mu.Unlock()
}

// mark notes that phase p began now, unless it was noted before.
func (s *span) mark(p phase, now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.at[p].IsZero() {
		s.at[p] = now
	}
	s.mu.Unlock()
}

// end notes the slot given back and writes the span's line.
func (s *span) end(now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.at[atDone] = now
	tr, a := s.tr, s.at
	out := &Span{Kind: s.kind, Student: s.student, Device: s.device, Slot: s.slot,
		BuildStart: tr.at(a[atBuildStart]), BuildEnd: tr.at(a[atBuildEnd]), Queued: tr.at(a[atQueued]), Granted: tr.at(a[atGranted]),
		Spawned: tr.at(a[atSpawned]), NvccStart: tr.at(a[atNvccStart]), NvccEnd: tr.at(a[atNvccEnd]), NvccHit: s.nvccHit,
		FirstOut: tr.at(a[atFirstOut]), Exited: tr.at(a[atExited]), Done: tr.at(a[atDone])}
	s.mu.Unlock()
	tr.add(out)
}

// firstWriter notes when the first byte goes through it.
type firstWriter struct {
	w     io.Writer
	s     *span
	clock func() time.Time
}

func (f firstWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		f.s.mark(atFirstOut, f.clock())
	}
	return f.w.Write(p)
}

// nvccNote is the file, in a cell's folder for temporary files, where
// the nvcc wrapper notes when it began and ended (workspace.NVCCMain,
// $LESSONS_TRACE_NVCC).
const nvccNote = ".lessons-trace-nvcc"

// readNvccNote takes the wrapper's note of its first build from the
// cell's folder dir into s, and removes it. The cell could write
// anything there: only two times and a word are read, and only into
// the trace.
func (s *span) readNvccNote(dir string) {
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
	s.at[atNvccStart], s.at[atNvccEnd], s.nvccHit = time.Unix(0, a), time.Unix(0, b), w[2] == "hit"
	s.mu.Unlock()
}
