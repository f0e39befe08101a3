// Package tracer writes where a batch's time went: a span for each
// build and run, as the Trace Event Format's events that Perfetto
// (ui.perfetto.dev) and chrome://tracing draw, a lane (the format's
// process) for each kind of slot and a row (its thread) for each slot.
// lessons grade --trace and the class server's $LESSONS_TRACE both
// write through it, and bench/trace-summary.py and bench/classload read
// what it wrote.
//
// The file is the format's JSON array form, one event a line, each
// written whole as its span ends: a process stopped half way leaves the
// spans that ended before, a file the viewers still open (the array
// form's closing bracket may be left out), and Close makes it plain JSON.
package tracer

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"sync"
	"time"
)

// Event is one event of the file: a span ("X"), or a lane's name ("M").
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	TS   int64          `json:"ts"`            // µs since the trace's start
	Dur  int64          `json:"dur,omitempty"` // µs
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
	// Start is when the trace the event belongs to began (its lane's
	// name says it), set by Read.
	Start time.Time `json:"-"`
}

// Span is one build or run: on which lane and row, from Begin to End.
type Span struct {
	Name, Cat  string
	Lane, Row  int
	Begin, End time.Time
	Args       map[string]any
}

// Tracer writes the spans of one trace. A nil *Tracer writes nothing.
type Tracer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	start  time.Time
	lanes  map[int]string
	named  map[int]bool
	n      int
	err    error
	closed bool
}

// New starts a trace on w, its times counted from start, lanes naming
// each lane by its number. The lanes' names carry start (args.start,
// RFC 3339), so that a reader can place the spans in time.
func New(w io.Writer, start time.Time, lanes map[int]string) *Tracer {
	t := &Tracer{w: bufio.NewWriter(w), start: start, lanes: lanes, named: map[int]bool{}}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w.WriteString("[\n")
	for _, lane := range slices.Sorted(maps.Keys(lanes)) {
		t.name(lane)
	}
	t.flush()
	return t
}

// name writes lane's name once (mu held).
func (t *Tracer) name(lane int) {
	if t.named[lane] {
		return
	}
	t.named[lane] = true
	name := t.lanes[lane]
	if name == "" {
		name = "lane"
	}
	t.event(Event{Name: "process_name", Ph: "M", PID: lane, Args: map[string]any{"name": name, "start": t.start.Format(time.RFC3339Nano)}})
}

// event writes e as a line (mu held).
func (t *Tracer) event(e Event) {
	data, err := json.Marshal(e)
	if err != nil {
		t.err = errors.Join(t.err, err)
		return
	}
	if t.n > 0 {
		t.w.WriteByte(',')
	}
	t.n++
	t.w.Write(data)
	t.w.WriteByte('\n')
}

func (t *Tracer) flush() {
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
}

// Start is when the trace began.
func (t *Tracer) Start() time.Time { return t.start }

// Add writes s, now. A span that ends before it begins lasts 1 µs.
func (t *Tracer) Add(s Span) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.name(s.Lane)
	t.event(Event{Name: s.Name, Cat: s.Cat, Ph: "X", PID: s.Lane, TID: s.Row,
		TS: s.Begin.Sub(t.start).Microseconds(), Dur: max(s.End.Sub(s.Begin).Microseconds(), 1), Args: s.Args})
	t.flush()
}

// Close ends the array and says the first error in writing, if any.
func (t *Tracer) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.closed = true
		t.w.WriteString("]\n")
		t.flush()
	}
	return t.err
}

// Millis is t as milliseconds since the trace's start, for a span's
// args (0: t is zero, the phase did not happen).
func (t *Tracer) Millis(at time.Time) float64 {
	if t == nil || at.IsZero() {
		return 0
	}
	return float64(at.Sub(t.start).Microseconds()) / 1000
}
