package grade

import (
	"io"
	"time"

	"github.com/cudalessons/lessons/internal/tracer"
)

// The trace's lanes: the build slots and the run slots.
const (
	tracePIDBuilds = 1
	tracePIDRuns   = 2
)

// NewTrace starts a grade's trace on w now (internal/tracer: the events
// Perfetto and chrome://tracing draw, a row per build slot and per run
// slot, so that idle slots, long runs and builds holding up runs can be
// seen), each span written as it ends.
func NewTrace(w io.Writer) *tracer.Tracer {
	return tracer.New(w, time.Now(), map[int]string{tracePIDBuilds: "builds", tracePIDRuns: "runs"})
}

// span records one build or run of the item named name on slot, from
// began to end.
func span(tr *tracer.Tracer, cat string, pid, slot int, name string, began, end time.Time, args map[string]string) {
	if tr == nil {
		return
	}
	a := make(map[string]any, len(args))
	for k, v := range args {
		a[k] = v
	}
	tr.Add(tracer.Span{Name: name, Cat: cat, Lane: pid, Row: slot, Begin: began, End: end, Args: a})
}
