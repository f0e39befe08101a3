package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/tracer"
)

// readTrace places each span's phases in Unix ms by its own trace's
// start, in a file two servers appended to, the second cut short.
func TestReadTrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trace")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.UnixMilli(1_000_000)
	a := tracer.New(f, t0, map[int]string{1: "runs"})
	a.Add(tracer.Span{Name: "cell ann", Cat: "cell", Lane: 1, Row: 2, Begin: t0, End: t0.Add(time.Second),
		Args: map[string]any{"student": "ann", "slot": 2, "queued": 5.0, "granted": 10.0, "done": 1010.0, "nvccHit": true}})
	a.Close()
	t1 := time.UnixMilli(2_000_000)
	b := tracer.New(f, t1, map[int]string{1: "runs"})
	b.Add(tracer.Span{Name: "check bob", Cat: "check", Lane: 1, Begin: t1, End: t1.Add(time.Second),
		Args: map[string]any{"student": "bob", "slot": 0, "granted": 1.5}})
	f.WriteString(`,{"name":"cut`)
	f.Close()
	spans, err := readTrace(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 2 {
		t.Fatalf("%+v", spans)
	}
	if s := spans[0]; s.Kind != "cell" || s.Student != "ann" || s.Slot != 2 || s.Queued != 1_000_005 || s.Granted != 1_000_010 || !s.NvccHit || s.Spawned != 0 {
		t.Errorf("the first server's span: %+v", s)
	}
	if s := spans[1]; s.Kind != "check" || s.Granted != 2_000_001.5 {
		t.Errorf("the second server's span: %+v", s)
	}
}
