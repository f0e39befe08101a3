package classroom

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/tracer"
)

// lockedBuffer is a trace's writer read while the server runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// With a trace, a cell's run and a check each write a span of their
// phases, in order, after the lanes' names that say when it started.
func TestTraceOfARunAndACheck(t *testing.T) {
	var buf lockedBuffer
	tc := newTestClass(t, func(c *Config) {
		c.Trace = &buf
		// A clock a millisecond on at each reading: each phase noted
		// is after the one before.
		base, n := c.Clock, atomic.Int64{}
		c.Clock = func() time.Time { return base().Add(time.Duration(n.Add(1)) * time.Millisecond) }
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	if out, status := ann.runCell("day001-hello", 1); out != "hello from the class\n" || strings.TrimSpace(status) != "ok" {
		t.Fatalf("the cell: %q, %q", out, status)
	}
	if code, v := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"}); code != 200 {
		t.Fatalf("check: %d %v", code, v)
	}
	es, err := tracer.Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	spans := tracer.Spans(es)
	if len(es) != 4 || len(spans) != 2 || es[0].Ph != "M" || es[0].Start.IsZero() {
		t.Fatalf("trace:\n%s", buf.String())
	}
	cell, check := spans[0], spans[1]
	ms := func(e tracer.Event, phase string) float64 { f, _ := e.Args[phase].(float64); return f }
	in := func(e tracer.Event, phases ...string) bool {
		for i := range phases {
			if ms(e, phases[i]) <= 0 || i > 0 && ms(e, phases[i-1]) >= ms(e, phases[i]) {
				return false
			}
		}
		return true
	}
	if cell.Cat != "cell" || cell.Args["student"] != "ann" || cell.TID != 0 || cell.Args["device"] == nil {
		t.Errorf("the cell's span: %+v", cell)
	}
	if !in(cell, "queued", "granted", "spawned", "firstOut", "exited", "done") {
		t.Errorf("the cell's phases are missing or out of order: %+v", cell.Args)
	}
	// The span is the slot's time: from the slot given to it given back.
	if float64(cell.TS)/1000 != ms(cell, "granted") || float64(cell.TS+cell.Dur)/1000 != ms(cell, "done") {
		t.Errorf("the cell's span is not its slot's time: ts %d dur %d, %+v", cell.TS, cell.Dur, cell.Args)
	}
	if check.Cat != "check" || check.Args["student"] != "ann" || !in(check, "buildStart", "buildEnd", "queued", "granted", "spawned", "exited", "done") {
		t.Errorf("the check's span: %+v", check)
	}
	// Closed with the class, the trace is plain JSON.
	tc.class.Close()
	var all []tracer.Event
	if err := json.Unmarshal([]byte(buf.String()), &all); err != nil || len(all) != 4 {
		t.Errorf("the closed trace: %v\n%s", err, buf.String())
	}
}
