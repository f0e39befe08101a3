package grade

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Trace records when each build and run of a grade run began and ended,
// in the Trace Event Format that Perfetto (ui.perfetto.dev) and
// chrome://tracing draw: a row per build slot and per run slot, so that
// idle slots, long runs and builds holding up runs can be seen.
type Trace struct {
	mu     sync.Mutex
	start  time.Time
	events []traceEvent
}

type traceEvent struct {
	Name string            `json:"name"`
	Cat  string            `json:"cat,omitempty"`
	Ph   string            `json:"ph"`
	TS   int64             `json:"ts"`            // µs since the trace began
	Dur  int64             `json:"dur,omitempty"` // µs
	PID  int               `json:"pid"`
	TID  int               `json:"tid"`
	Args map[string]string `json:"args,omitempty"`
}

// The trace's "processes": the build slots and the run slots.
const (
	tracePIDBuilds = 1
	tracePIDRuns   = 2
)

// NewTrace starts a trace now.
func NewTrace() *Trace { return &Trace{start: time.Now()} }

// span records one build or run of the item named name on slot, from
// began to end.
func (tr *Trace) span(cat string, pid, slot int, name string, began, end time.Time, args map[string]string) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, traceEvent{
		Name: name, Cat: cat, Ph: "X", PID: pid, TID: slot,
		TS: began.Sub(tr.start).Microseconds(), Dur: max(end.Sub(began).Microseconds(), 1), Args: args,
	})
}

// WriteJSON writes the trace as a JSON object with its traceEvents.
func (tr *Trace) WriteJSON(w io.Writer) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	meta := []traceEvent{
		{Name: "process_name", Ph: "M", PID: tracePIDBuilds, Args: map[string]string{"name": "builds"}},
		{Name: "process_name", Ph: "M", PID: tracePIDRuns, Args: map[string]string{"name": "runs"}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{append(meta, tr.events...), "ms"})
}
