package classroom

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// With a trace, a cell's run and a check each write a line of their
// phases, in order, and the trace begins with when it started.
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
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"kind":"start","unixMS":`) {
		t.Fatalf("trace:\n%s", buf.String())
	}
	var cell, check Span
	if err := json.Unmarshal([]byte(lines[1]), &cell); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[2]), &check); err != nil {
		t.Fatal(err)
	}
	if cell.Kind != "cell" || cell.Student != "ann" || cell.Slot != 0 || cell.Device == "" {
		t.Errorf("the cell's line: %s", lines[1])
	}
	if !(0 < cell.Queued && cell.Queued < cell.Granted && cell.Granted < cell.Spawned && cell.Spawned < cell.FirstOut && cell.FirstOut < cell.Exited && cell.Exited < cell.Done) {
		t.Errorf("the cell's phases are missing or out of order: %s", lines[1])
	}
	if check.Kind != "check" || check.Student != "ann" ||
		!(0 < check.BuildStart && check.BuildStart < check.BuildEnd && check.BuildEnd < check.Queued && check.Queued < check.Granted && check.Granted < check.Spawned && check.Spawned < check.Exited && check.Exited < check.Done) {
		t.Errorf("the check's line: %s", lines[2])
	}
}

// The wrapper's note of its times is read into the span, whatever else
// the cell wrote there.
func TestNvccNote(t *testing.T) {
	dir := t.TempDir()
	tr := NewTrace(&bytes.Buffer{}, newClock().now())
	for _, c := range []struct {
		note string
		hit  bool
		ok   bool
	}{
		{"1000 2000 hit\n1 2 miss\n", true, true},
		{"1000 2000 miss\n", false, true},
		{"not a note", false, false},
		{strings.Repeat("9", 10000), false, false},
	} {
		s := tr.begin("cell", "ann", newClock().now())
		if err := os.WriteFile(filepath.Join(dir, nvccNote), []byte(c.note), 0o600); err != nil {
			t.Fatal(err)
		}
		s.readNvccNote(dir)
		if got := !s.at[atNvccStart].IsZero(); got != c.ok || s.nvccHit != c.hit {
			t.Errorf("%.20q: read %v, hit %v", c.note, got, s.nvccHit)
		}
		if c.ok && s.at[atNvccEnd].UnixNano() != 2000 {
			t.Errorf("%q: end %v", c.note, s.at[atNvccEnd])
		}
		if _, err := os.Stat(filepath.Join(dir, nvccNote)); err == nil {
			t.Errorf("%.20q: the note was left", c.note)
		}
	}
}
