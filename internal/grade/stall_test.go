package grade

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/gradebook"
)

// inTheDriver is how the runner says where a run's threads were when it
// was stopped in the driver's lock (as on the four-GPU machine, issue 44).
const inTheDriver = "timed out after 10s and was stopped; its threads then: prog D in os_acquire_rwlock_write (ioctl), cuda-EvtHandlr S in poll_schedule_timeout.constprop.0 (poll)"

// standIn is a stand-in for the GPU's driver and its lock, with the
// programs of a class that meet in it:
//   - "hog": a classmate's run that holds the driver's lock while it
//     runs, until every "needs" run has been stopped waiting for it;
//   - "needs": a correct program that needs the lock: beside the hog it
//     waits in the driver until its time limit (stalled); alone it passes;
//   - "own hang": a program that hangs in its own code (stopped, its
//     threads not in the driver), alone or not;
//   - "driver hang": stalled in the driver even alone.
type standIn struct {
	mu       sync.Mutex
	needs    int // how many "needs" runs stall before the hog lets go
	held     bool
	holding  chan struct{} // closed once the hog holds the lock
	stalled  int
	allIn    chan struct{} // closed once every "needs" run has stalled
	inFlight int
	runs     map[string]int  // by student
	alone    map[string]bool // by student: some run of theirs had the machine to itself
}

func (d *standIn) Build(ctx context.Context, t *Task, slot int) *Built {
	if !strings.Contains(string(t.Source), "hog") {
		<-d.holding // the others come once the hog holds the lock
	}
	return &Built{Prog: "prog"}
}

func (d *standIn) Run(ctx context.Context, t *Task, b *Built, dev string, slot int) (*Ran, error) {
	src := string(t.Source)
	d.mu.Lock()
	d.inFlight++
	d.runs[t.Student]++
	if d.inFlight == 1 {
		d.alone[t.Student] = true
	}
	held := d.held
	d.mu.Unlock()
	defer func() { d.mu.Lock(); d.inFlight--; d.mu.Unlock() }()
	pass := &Ran{Results: []checker.Result{{Name: "prints done", Pass: true}}, Output: "done\n"}
	stopped := func(why string) *Ran {
		return &Ran{Results: []checker.Result{{Name: "ends by itself", Want: "the program to finish on its own within 10s", Got: why}}}
	}
	switch {
	case strings.Contains(src, "hog"):
		d.mu.Lock()
		d.held = true
		d.mu.Unlock()
		close(d.holding)
		<-d.allIn
		d.mu.Lock()
		d.held = false
		d.mu.Unlock()
		return pass, nil
	case strings.Contains(src, "own hang"):
		return stopped("timed out after 10s and was stopped; its threads then: prog R"), nil
	case strings.Contains(src, "driver hang"):
		r := stopped(inTheDriver)
		r.Stalled = inTheDriver
		return r, nil
	case held:
		d.mu.Lock()
		if d.stalled++; d.stalled == d.needs {
			close(d.allIn)
		}
		d.mu.Unlock()
		r := stopped(inTheDriver)
		r.Stalled = inTheDriver
		return r, nil
	}
	return pass, nil
}

// TestStalledInTheDriverRunsAgainAlone: a correct program stopped at its
// time limit while it waited in the driver for a lock a classmate's run
// held is not failed: it runs again once every other run has ended, alone
// on the machine, passes, and its grade says so. A program that hangs in
// its own code fails, run once; one that stalls in the driver even alone
// fails, run twice, and is marked for review.
func TestStalledInTheDriverRunsAgainAlone(t *testing.T) {
	const needs = 6
	files := map[string]string{"a-hog/block_pool.cu": "hog"}
	for i := range needs {
		files[fmt.Sprintf("needs%d/block_pool.cu", i)] = fmt.Sprintf("needs %d", i)
	}
	files["own/block_pool.cu"] = "own hang"
	files["stuck/block_pool.cu"] = "driver hang"
	files["stuck/async_pipeline.cu"] = "driver hang too"
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
	d := &standIn{needs: needs, holding: make(chan struct{}), allIn: make(chan struct{}), runs: map[string]int{}, alone: map[string]bool{}}
	tr, events := testTrace(t)
	sum, err := Grade(context.Background(), book, ts, d, Options{Jobs: 4, Devices: []string{"0", "1"}, PerDevice: 4, Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	if sum.RunsAgain != needs+1 || !strings.Contains(sum.Limit(), "made again alone") {
		t.Errorf("%d runs made again in the summary, want %d: %q", sum.RunsAgain, needs+1, sum.Limit())
	}
	if sum.Passed != needs+1 || sum.Failed != 3 {
		t.Errorf("passed %d, failed %d: want %d and 3", sum.Passed, sum.Failed, needs+1)
	}
	g, err := book.Grades()
	if err != nil {
		t.Fatal(err)
	}
	for i := range needs {
		s := fmt.Sprintf("needs%d", i)
		a := g[s]["block-pool"]
		if a.Status != gradebook.Passed || !strings.Contains(a.Note, "alone on the machine") || !strings.Contains(a.Note, "os_acquire_rwlock_write") || a.Review != "" {
			t.Errorf("%s: %s, note %q, review %q", s, a.Status, a.Note, a.Review)
		}
		if d.runs[s] != 2 || !d.alone[s] {
			t.Errorf("%s ran %d times (alone: %v), want twice, the second alone", s, d.runs[s], d.alone[s])
		}
	}
	if a := g["own"]["block-pool"]; a.Status != gradebook.Failed || a.Note != "" || d.runs["own"] != 1 {
		t.Errorf("a hang in the program's own code: %s, note %q, %d runs; want failed, no note, one run", a.Status, a.Note, d.runs["own"])
	}
	// The student whose two programs stall in the driver even alone
	// gets one of them run again alone, not both: a program may stall
	// there on purpose, for a run alone.
	again, settled := 0, 0
	for _, x := range []string{"block-pool", "async-pipeline"} {
		a := g["stuck"][x]
		switch {
		case a.Status != gradebook.Failed || a.Review == "":
			t.Errorf("stuck %s: %s, review %q", x, a.Status, a.Review)
		case strings.HasPrefix(a.Note, "graded on a second run") && strings.Contains(a.Review, "even alone"):
			again++
		case strings.Contains(a.Note, "not run again alone"):
			settled++
		default:
			t.Errorf("stuck %s: note %q", x, a.Note)
		}
	}
	if again != 1 || settled != 1 || d.runs["stuck"] != 3 {
		t.Errorf("stalled even alone: %d made again, %d judged as they came, %d runs; want 1, 1, 3", again, settled, d.runs["stuck"])
	}
	if a := g["a-hog"]["block-pool"]; a.Status != gradebook.Passed || a.Note != "" || d.runs["a-hog"] != 1 {
		t.Errorf("the hog: %s, note %q, %d runs", a.Status, a.Note, d.runs["a-hog"])
	}
	// The trace draws each run made again, alone, after every other run.
	var last, first int64
	n := 0
	for _, e := range events() {
		if e.Cat != "run" {
			continue
		}
		if e.Args["alone"] != nil {
			n++
			if first == 0 || e.TS < first {
				first = e.TS
			}
		} else {
			last = max(last, e.TS+e.Dur)
		}
	}
	if n != needs+1 || first < last {
		t.Errorf("%d runs made again in the trace (want %d), the first at %d, before the last of the others ended at %d", n, needs+1, first, last)
	}
}
