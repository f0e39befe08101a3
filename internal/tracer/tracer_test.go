package tracer

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// A closed trace is plain JSON, the array form the viewers read: the
// lanes named first, then each span with its times in µs from the start.
func TestClosedTraceIsJSON(t *testing.T) {
	var buf bytes.Buffer
	tr := New(&buf, t0, map[int]string{2: "runs", 1: "builds"})
	tr.Add(Span{Name: "pool ann", Cat: "build", Lane: 1, Row: 0, Begin: at(5), End: at(1005), Args: map[string]any{"exercise": "pool"}})
	tr.Add(Span{Name: "pool ann", Cat: "run", Lane: 2, Row: 3, Begin: at(1010), End: at(1010)})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	var es []Event
	if err := json.Unmarshal(buf.Bytes(), &es); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	if len(es) != 4 || es[0].Args["name"] != "builds" || es[1].Args["name"] != "runs" || es[0].Ph != "M" {
		t.Fatalf("events: %+v", es)
	}
	b, r := es[2], es[3]
	if b.Ph != "X" || b.TS != 5000 || b.Dur != 1_000_000 || b.PID != 1 || b.Args["exercise"] != "pool" {
		t.Errorf("the build: %+v", b)
	}
	if r.TS != 1_010_000 || r.Dur != 1 || r.PID != 2 || r.TID != 3 {
		t.Errorf("a span of no length lasts 1 µs, on its row: %+v", r)
	}
	// Closed, a span more is not written after the bracket.
	tr.Add(Span{Name: "late", Lane: 2, Begin: at(1), End: at(2)})
	if strings.Contains(buf.String(), "late") {
		t.Errorf("a span written after Close:\n%s", buf.String())
	}
}

// Read takes a trace cut short, as a process stopped while it wrote
// leaves it: every whole line, not the cut one; and two traces one after
// the other, each span placed by its own trace's start.
func TestReadCutShortAndAppended(t *testing.T) {
	var buf bytes.Buffer
	tr := New(&buf, t0, map[int]string{2: "runs"})
	tr.Add(Span{Name: "a", Lane: 2, Begin: at(10), End: at(20)})
	tr.Add(Span{Name: "b", Lane: 2, Begin: at(30), End: at(40)})
	cut := buf.String()
	cut = cut[:len(cut)-7] // the last line cut mid-write
	es, err := Read(strings.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if s := Spans(es); len(s) != 1 || s[0].Name != "a" || !s[0].Begin().Equal(at(10)) {
		t.Fatalf("cut short: %+v", es)
	}

	var two bytes.Buffer
	a := New(&two, t0, map[int]string{2: "runs"})
	a.Add(Span{Name: "first", Lane: 2, Begin: at(10), End: at(20)})
	a.Close()
	b := New(&two, at(60_000), map[int]string{2: "runs"})
	b.Add(Span{Name: "second", Lane: 2, Begin: at(60_010), End: at(60_020)})
	es, err = Read(&two)
	if err != nil {
		t.Fatal(err)
	}
	s := Spans(es)
	if len(s) != 2 || !s[0].Begin().Equal(at(10)) || !s[1].Begin().Equal(at(60_010)) || s[1].TS != 10_000 {
		t.Fatalf("appended: %+v", s)
	}
}

// A line in the middle that is not an event is an error naming its
// line, not a trace read half.
func TestReadRefusesGarbage(t *testing.T) {
	_, err := Read(strings.NewReader("[\n{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"pid\":1,\"tid\":0}\n,not json\n,{\"name\":\"b\",\"ph\":\"X\",\"ts\":1,\"pid\":1,\"tid\":0}\n]\n"))
	if err == nil || !strings.Contains(err.Error(), "trace line 3") {
		t.Fatalf("err = %v", err)
	}
}

// Spans added from many goroutines are each a whole line.
func TestConcurrentSpans(t *testing.T) {
	var buf bytes.Buffer
	tr := New(&buf, t0, map[int]string{1: "runs"})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr.Add(Span{Name: "x", Lane: 1, Row: i, Begin: at(i), End: at(i + 1)})
		}()
	}
	wg.Wait()
	tr.Close()
	es, err := Read(&buf)
	if err != nil || len(Spans(es)) != 50 {
		t.Fatalf("%d spans, %v", len(Spans(es)), err)
	}
	var nilTracer *Tracer
	nilTracer.Add(Span{})
	if nilTracer.Close() != nil || nilTracer.Millis(t0) != 0 {
		t.Error("a nil tracer does something")
	}
	if tr.Millis(at(1500)) != 1500 || tr.Millis(time.Time{}) != 0 {
		t.Errorf("Millis: %v", tr.Millis(at(1500)))
	}
}

// Read never panics, and reads at most an event a line.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	tr := New(&buf, t0, map[int]string{1: "builds", 2: "runs"})
	tr.Add(Span{Name: "a", Lane: 1, Begin: at(1), End: at(2), Args: map[string]any{"k": "v"}})
	tr.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("[\n"))
	f.Add([]byte(",]\n[,{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := Read(bytes.NewReader(data))
		if err == nil && bytes.Count(data, []byte("\n"))+1 < len(es) {
			t.Errorf("%d events from %d lines", len(es), bytes.Count(data, []byte("\n"))+1)
		}
	})
}
