package grade

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/gradebook"
)

// crowded stands in for a GPU shared by a class: a run beside others may
// see its streams' kernels serialised (a host stalled between two
// launches); alone, a correct program's overlap shows. Programs:
//   - "overlaps": correct; fails max_concurrent_streams only beside others;
//   - "serial": a wrong program whose streams never overlap, alone or not;
//   - "serial and wrong": fails max_concurrent_streams and a sum too.
type crowded struct {
	mu   sync.Mutex
	runs map[string]int // by student and exercise
}

func (d *crowded) Build(ctx context.Context, t *Task, slot int) *Built {
	return &Built{Prog: "prog"}
}

func (d *crowded) Run(ctx context.Context, t *Task, b *Built, dev string, slot int) (*Ran, error) {
	d.mu.Lock()
	d.runs[t.Student+"/"+t.Exercise.ID]++
	again := d.runs[t.Student+"/"+t.Exercise.ID] > 1
	d.mu.Unlock()
	src := string(t.Source)
	concurrent := &checker.Check{Stat: "max_concurrent_streams"}
	sums := &checker.Check{Contains: "sums right"}
	overlap := checker.Result{Check: concurrent, Name: "the most streams running kernels at one instant: at least 2", Pass: true}
	sum := checker.Result{Check: sums, Name: `prints "sums right"`, Pass: true}
	switch {
	case src == "overlaps":
		overlap.Pass = again // the run made again is the one alone
	case src == "serial":
		overlap.Pass = false
	case src == "serial and wrong":
		overlap.Pass, sum.Pass = false, false
	}
	return &Ran{Results: []checker.Result{sum, overlap}, Output: "sums right\n"}, nil
}

// TestFailedOnLoadRunsAgainAlone: a run that failed only a check of a
// figure the machine's load can change (how many streams' kernels ran at
// once) is judged on a second run alone on the machine, at most once a
// student; a run that failed any other check is judged as it came.
func TestFailedOnLoadRunsAgainAlone(t *testing.T) {
	files := map[string]string{
		"ok/block_pool.cu":        "overlaps",
		"slow/block_pool.cu":      "serial",
		"wrong/block_pool.cu":     "serial and wrong",
		"twice/block_pool.cu":     "overlaps",
		"twice/async_pipeline.cu": "overlaps",
	}
	var ts []*Task
	for _, task := range class(t, t.TempDir(), files) {
		if task.Source != nil {
			ts = append(ts, task)
		}
	}
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	d := &crowded{runs: map[string]int{}}
	sum, err := Grade(context.Background(), book, ts, d, Options{Jobs: 2, Devices: []string{"0"}, PerDevice: 4})
	if err != nil {
		t.Fatal(err)
	}
	g, err := book.Grades()
	if err != nil {
		t.Fatal(err)
	}
	if a := g["ok"]["block-pool"]; a.Status != gradebook.Passed || !strings.Contains(a.Note, "alone on the machine") || !strings.Contains(a.Note, checker.LoadFailure) || a.Review != "" {
		t.Errorf("a correct program whose streams overlapped alone: %s, note %q, review %q", a.Status, a.Note, a.Review)
	}
	if a := g["slow"]["block-pool"]; a.Status != gradebook.Failed || d.runs["slow/block-pool"] != 2 || a.Review != "" {
		t.Errorf("streams that never overlap: %s after %d runs, review %q; want failed after 2, no review", a.Status, d.runs["slow/block-pool"], a.Review)
	}
	if a := g["wrong"]["block-pool"]; a.Status != gradebook.Failed || d.runs["wrong/block-pool"] != 1 || a.Note != "" {
		t.Errorf("a wrong sum beside the overlap: %s after %d runs, note %q; want failed after 1, no note", a.Status, d.runs["wrong/block-pool"], a.Note)
	}
	// One run made again a student: the other is judged as it came, with
	// a note, and marked for review.
	passed, settled := 0, 0
	for _, x := range []string{"block-pool", "async-pipeline"} {
		a := g["twice"][x]
		switch {
		case a.Status == gradebook.Passed && strings.HasPrefix(a.Note, "graded on a second run"):
			passed++
		case a.Status == gradebook.Failed && strings.Contains(a.Note, "not run again alone") && a.Review != "":
			settled++
		default:
			t.Errorf("twice %s: %s, note %q, review %q", x, a.Status, a.Note, a.Review)
		}
	}
	if passed != 1 || settled != 1 {
		t.Errorf("a student with two such runs: %d made again and passed, %d judged as they came; want 1 and 1", passed, settled)
	}
	if sum.RunsAgain != 3 || !strings.Contains(sum.Limit(), "made again alone") {
		t.Errorf("%d runs made again in the summary, want 3: %q", sum.RunsAgain, sum.Limit())
	}
}

// TestFailedOnLoad: only a verdict whose every failure is of a figure the
// load can change asks for a run alone.
func TestFailedOnLoad(t *testing.T) {
	conc := &checker.Check{Stat: "max_concurrent_streams"}
	span := &checker.Check{Stat: "kernel_span_ms"}
	calls := &checker.Check{Stat: "malloc_calls"}
	for i, c := range []struct {
		res  []checker.Result
		want bool
	}{
		{[]checker.Result{{Check: conc, Pass: true}}, false},
		{[]checker.Result{{Check: conc}}, true},
		{[]checker.Result{{Check: span}, {Check: calls, Pass: true}}, true},
		{[]checker.Result{{Check: conc}, {Check: calls}}, false},
		{[]checker.Result{{Name: "no check"}}, false},
		{nil, false},
	} {
		if got := checker.FailedOnLoad(c.res) != ""; got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}
