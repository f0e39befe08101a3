package grade

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/tracer"
)

// fake builds and runs by looking at the file: "syntax error" does not
// compile, "tool crash" makes the tool fail, "pass" passes.
type fake struct {
	mu       sync.Mutex
	builds   map[string]int
	busy     map[string]int // runs going on per device
	maxBusy  map[string]int
	timed    map[string]bool // a timed run going on per device
	shared   int             // runs that overlapped a timed run on its device
	runs     atomic.Int32
	toolFail bool
}

func newFake() *fake {
	return &fake{builds: map[string]int{}, busy: map[string]int{}, maxBusy: map[string]int{}, timed: map[string]bool{}}
}

func (f *fake) Build(ctx context.Context, t *Task, slot int) *Built {
	f.mu.Lock()
	f.builds[string(t.Source)]++
	f.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	src := string(t.Source)
	switch {
	case strings.Contains(src, "syntax error"):
		return &Built{Failed: []checker.Result{{Name: "compiles", Want: "the file to compile", Got: "compile error at x.cu:3"}}, Took: time.Millisecond}
	case strings.Contains(src, "tool crash") && f.toolFail:
		return &Built{Err: errors.New("nvcc vanished")}
	}
	return &Built{Prog: "prog", Took: 2 * time.Millisecond}
}

func (f *fake) Run(ctx context.Context, t *Task, b *Built, dev string, slot int) (*Ran, error) {
	f.mu.Lock()
	f.busy[dev]++
	f.maxBusy[dev] = max(f.maxBusy[dev], f.busy[dev])
	if f.timed[dev] || (t.Spec.Timed && f.busy[dev] > 1) {
		f.shared++
	}
	if t.Spec.Timed {
		f.timed[dev] = true
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.busy[dev]--
		if t.Spec.Timed {
			f.timed[dev] = false
		}
		f.mu.Unlock()
	}()
	f.runs.Add(1)
	time.Sleep(3 * time.Millisecond)
	pass := strings.Contains(string(t.Source), "pass")
	return &Ran{Results: []checker.Result{{Name: "cudaMallocAsync calls: at least 12", Pass: pass, Want: "at least 12", Got: "0", Check: &checker.Check{Hint: "allocate per iteration"}}}, Output: "ok\n", Took: time.Millisecond}, nil
}

// class writes a class of students and returns the tasks of one grade run.
func class(t *testing.T, dir string, files map[string]string) []*Task {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if strings.HasPrefix(body, "->") {
			os.Symlink(strings.TrimPrefix(body, "->"), p)
			continue
		}
		os.WriteFile(p, []byte(body), 0o644)
	}
	return tasks(t, dir)
}

var exercises = []*course.Exercise{
	{ID: "block-pool", Student: "exercises/day068/block_pool.cu"},
	{ID: "async-pipeline", Student: "exercises/day070/async_pipeline.cu"},
}

func tasks(t *testing.T, dir string) []*Task {
	students, err := Students(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Task
	for _, s := range students {
		for _, x := range exercises {
			task := &Task{Student: s, Exercise: x, Spec: &checker.Spec{Points: 10}, SpecHash: "spec-v1"}
			if err := Load(task, dir, SubmittedFile(dir, s, x)); err != nil {
				t.Fatal(err)
			}
			out = append(out, task)
		}
	}
	return out
}

func TestGradeAndResume(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{
		"alice/block_pool.cu":      "pass A",
		"alice/async_pipeline.cu":  "pass B",
		"bob/day068/block_pool.cu": "pass A", // the same file as alice's: built once
		"bob/async_pipeline.cu":    "syntax error",
		"carol/block_pool.cu":      "untouched stub",
		"dave/block_pool.cu":       "->../alice/block_pool.cu",
		"erin/async_pipeline.cu":   "tool crash",
		"frank/notes.txt":          "no exercise files at all",
	})
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	f := newFake()
	f.toolFail = true
	sum, err := Grade(context.Background(), book, ts, f, Options{Jobs: 4, Devices: []string{"0", "1"}, PerDevice: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Tasks != 12 || sum.Passed != 3 || sum.Missing != 5 || sum.Errors != 1 || sum.Failed != 3 {
		t.Errorf("summary %+v", sum)
	}
	if f.builds["pass A"] != 1 {
		t.Errorf("alice's and bob's identical file was built %d times", f.builds["pass A"])
	}
	for dev, n := range f.maxBusy {
		if n > 1 {
			t.Errorf("device %s ran %d programs at once", dev, n)
		}
	}
	g, _ := book.Grades()
	check := func(student, ex, status string, points int, reason string) {
		t.Helper()
		a := g[student][ex]
		if a == nil || a.Status != status || a.Points != points || !strings.Contains(a.Reason, reason) {
			t.Errorf("%s %s: %+v, want %s %d %q", student, ex, a, status, points, reason)
		}
	}
	check("alice", "block-pool", gradebook.Passed, 10, "")
	check("bob", "block-pool", gradebook.Passed, 10, "")
	check("bob", "async-pipeline", gradebook.Failed, 0, "compiles: compile error at x.cu:3")
	check("carol", "block-pool", gradebook.Failed, 0, "cudaMallocAsync calls")
	check("carol", "async-pipeline", gradebook.Missing, 0, "no file")
	check("dave", "block-pool", gradebook.Failed, 0, "is a link, not a file")
	check("erin", "async-pipeline", gradebook.Error, 0, "nvcc vanished")
	check("frank", "block-pool", gradebook.Missing, 0, "")
	if h := g["carol"]["block-pool"].Checks[0].Hint; h != "allocate per iteration" {
		t.Errorf("hint %q", h)
	}

	// Again, unchanged: only the tool's failure is graded again.
	f2 := newFake()
	sum, err = Grade(context.Background(), book, tasks(t, dir), f2, Options{Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 11 || f2.runs.Load() != 1 || sum.Failed != 1 {
		t.Errorf("resume: %+v, %d runs", sum, f2.runs.Load())
	}
	// carol finishes her exercise: only her file is graded.
	os.WriteFile(filepath.Join(dir, "carol/block_pool.cu"), []byte("pass C"), 0o644)
	f3 := newFake()
	sum, _ = Grade(context.Background(), book, tasks(t, dir), f3, Options{Jobs: 4})
	if sum.Skipped != 11 || sum.Passed != 1 || f3.runs.Load() != 1 {
		t.Errorf("changed file: %+v", sum)
	}
	// A changed spec grades everything again, as --regrade does.
	f4 := newFake()
	ts = tasks(t, dir)
	for _, task := range ts {
		task.SpecHash = "spec-v2"
	}
	sum, _ = Grade(context.Background(), book, ts, f4, Options{Jobs: 4})
	if sum.Skipped != 0 {
		t.Errorf("changed spec: %+v", sum)
	}
	f5 := newFake()
	sum, _ = Grade(context.Background(), book, ts, f5, Options{Jobs: 4, Regrade: true})
	if sum.Skipped != 0 || f5.runs.Load() != 5 {
		t.Errorf("regrade: %+v, %d runs", sum, f5.runs.Load())
	}
	if g, _ := book.Grades(); g["carol"]["block-pool"].Points != 10 {
		t.Errorf("carol: %+v", g["carol"]["block-pool"])
	}
}

func TestCanceledRunsAreNotRecorded(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{"a/block_pool.cu": "pass 1", "b/block_pool.cu": "pass 2", "c/block_pool.cu": "pass 3"})
	book, _ := gradebook.Open(filepath.Join(t.TempDir(), "g.db"))
	defer book.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Grade(ctx, book, ts, newFake(), Options{Jobs: 2})
	g, _ := book.Grades()
	for s, xs := range g {
		for x, a := range xs {
			if a.Status != gradebook.Missing {
				t.Errorf("%s %s was recorded as %s after the run was stopped", s, x, a.Status)
			}
		}
	}
}

func TestNoStudents(t *testing.T) {
	if _, err := Students(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no student folders") {
		t.Errorf("err = %v", err)
	}
}

func TestTrace(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{
		"alice/block_pool.cu":     "pass A",
		"alice/async_pipeline.cu": "syntax error",
		"bob/block_pool.cu":       "pass A", // built once: one build span
	})
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	tr, events := testTrace(t)
	if _, err := Grade(context.Background(), book, ts, newFake(), Options{Jobs: 2, PerDevice: 2, Trace: tr}); err != nil {
		t.Fatal(err)
	}
	var got struct{ TraceEvents []tracer.Event }
	got.TraceEvents = events()
	count := map[string]int{}
	for _, e := range got.TraceEvents {
		count[e.Cat+" "+e.Ph]++
		if e.Ph == "X" && (e.Dur <= 0 || e.TS < 0 || e.Args["exercise"] == nil) {
			t.Errorf("a span without its time or task: %+v", e)
		}
		if e.Cat == "build" && e.Args["exercise"] == "async-pipeline" && e.Args["outcome"] != "does not compile" {
			t.Errorf("the failed build's outcome: %+v", e)
		}
		if e.Cat == "run" && (e.Args["device"] != "0" || e.Args["program_ms"] == nil) {
			t.Errorf("a run without its device or program time: %+v", e)
		}
	}
	// One build of the block-pool file both hand in, one of alice's
	// async-pipeline file; both block-pool files run; two row names.
	if count["build X"] != 2 || count["run X"] != 2 || count[" M"] != 2 {
		t.Errorf("spans: %v", count)
	}
}

// TestTimedRunsAlone: with several runs at once per GPU, a timed
// exercise's run never shares its GPU.
func TestTimedRunsAlone(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("s%02d/block_pool.cu", i)] = fmt.Sprintf("pass %d", i)
		files[fmt.Sprintf("s%02d/async_pipeline.cu", i)] = fmt.Sprintf("pass timed %d", i)
	}
	ts := class(t, dir, files)
	timed := &checker.Spec{Points: 10, Timed: true}
	for _, task := range ts {
		if task.Exercise.ID == "async-pipeline" {
			task.Spec = timed
		}
	}
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	f := newFake()
	tr, events := testTrace(t)
	sum, err := Grade(context.Background(), book, ts, f, Options{Jobs: 4, Devices: []string{"0", "1"}, PerDevice: 4, Trace: tr})
	if err != nil || sum.Passed != 24 {
		t.Fatalf("%+v %v", sum, err)
	}
	if f.shared != 0 {
		t.Errorf("%d runs shared a GPU with a timed run", f.shared)
	}
	// The trace shows the same: a timed run's span overlaps no other run
	// on its device (it spans exactly the time the GPU was its own).
	var runs []tracer.Event
	for _, e := range events() {
		if e.Cat == "run" {
			runs = append(runs, e)
		}
	}
	for i, a := range runs {
		for j, b := range runs {
			if i != j && a.Args["exercise"] == "async-pipeline" && a.Args["device"] == b.Args["device"] &&
				b.TS < a.TS+a.Dur && a.TS < b.TS+b.Dur {
				t.Errorf("the trace has %s beside the timed %s on device %s", b.Name, a.Name, a.Args["device"])
			}
		}
	}
}

// meeting holds each run until a second is going on at once: runs that
// never share their GPU never meet.
type meeting struct {
	*fake
	mu   sync.Mutex
	in   int
	once sync.Once
	met  chan struct{}
}

func (m *meeting) Run(ctx context.Context, t *Task, b *Built, dev string, slot int) (*Ran, error) {
	m.mu.Lock()
	if m.in++; m.in == 2 {
		m.once.Do(func() { close(m.met) })
	}
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.in--; m.mu.Unlock() }()
	select {
	case <-m.met:
	case <-time.After(30 * time.Second): // runs that never share, not a slow machine
		return nil, errors.New("no second run came while this one ran")
	}
	return m.fake.Run(ctx, t, b, dev, slot)
}

// TestUntimedRunsShare: with two runs at once per GPU, untimed runs share
// their GPU.
func TestUntimedRunsShare(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 4 {
		files[fmt.Sprintf("s%02d/block_pool.cu", i)] = fmt.Sprintf("pass %d", i)
	}
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	m := &meeting{fake: newFake(), met: make(chan struct{})}
	sum, err := Grade(context.Background(), book, class(t, dir, files), m, Options{Jobs: 2, Devices: []string{"0"}, PerDevice: 2})
	if err != nil || sum.Passed != 4 || sum.Errors != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
	if m.maxBusy["0"] != 2 {
		t.Errorf("at most %d runs at once on the GPU, want 2", m.maxBusy["0"])
	}
}

// GradeOne grades a task without a gradebook, as an executor elsewhere
// would; Plan settles what needs no build.
func TestGradeOneAndPlan(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{
		"alice/block_pool.cu":     "pass A",
		"alice/async_pipeline.cu": "syntax error",
	})
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	todo, settled, err := Plan(book, ts, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(todo) != 2 || len(settled) != 0 {
		t.Fatalf("todo %d, settled %d; want 2 and 0", len(todo), len(settled))
	}
	f := newFake()
	var got []string
	for _, task := range todo {
		a := GradeOne(context.Background(), f, task, "0", 0)
		got = append(got, a.Exercise+" "+a.Status)
		if err := book.Record(a); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ", ") != "block-pool passed, async-pipeline failed" {
		t.Errorf("attempts: %v", got)
	}
	// Recorded, they are skipped by the next plan.
	todo, settled, err = Plan(book, ts, false)
	if err != nil || len(todo) != 0 || len(settled) != 2 || !settled[0].Skipped {
		t.Errorf("after recording: todo %d, settled %+v, %v", len(todo), settled, err)
	}
}

// TestItemsBuildOnly: items with no Graded sink build each distinct file
// once, tell Built of each build made, and run nothing (a cluster's build
// task).
func TestItemsBuildOnly(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{
		"alice/block_pool.cu": "pass", "bob/block_pool.cu": "pass", "carol/block_pool.cu": "syntax error",
	})
	var todo []*Task
	for _, x := range ts {
		if x.Source != nil {
			todo = append(todo, x)
		}
	}
	f := newFake()
	var mu sync.Mutex
	built := map[string]bool{}
	items := Items(todo, f, Sinks{Built: func(t *Task, b *Built) {
		mu.Lock()
		defer mu.Unlock()
		built[t.Student+" "+buildOutcome(b)] = true
	}})
	for _, it := range items {
		if it.Run != nil {
			t.Fatalf("%s: a build-only item has a run", it.Name)
		}
	}
	Schedule(context.Background(), items, Slots{Jobs: 2})
	if len(built) != 2 || !built["carol does not compile"] || (!built["alice built"] && !built["bob built"]) {
		t.Errorf("builds told: %v; want alice's (or bob's, the same file) and carol's", built)
	}
	if f.runs.Load() != 0 || f.builds["pass"] != 1 {
		t.Errorf("%d runs, %d builds of the shared file; want none and 1", f.runs.Load(), f.builds["pass"])
	}
}

func TestChooseFor(t *testing.T) {
	timed := &Task{Exercise: &course.Exercise{ID: "t"}, Spec: &checker.Spec{Timed: true}}
	untimed := &Task{Exercise: &course.Exercise{ID: "u"}, Spec: &checker.Spec{}}
	c := ChooseFor(0, 0, []*Task{timed, untimed})
	if c.TimedQueues != 0 || c.Queues != autoQueues || !strings.Contains(c.Why, "CUDA's 8 for the timed") {
		t.Errorf("choice %+v", c)
	}
	p := c.Pipeline(nil, nil)
	if len(p.Env) != 1 || p.TimedEnv != nil {
		t.Errorf("pipeline env %q, timed %q", p.Env, p.TimedEnv)
	}
}

// An exercise that needs two GPUs (Day 75's peer-pool: gpus = 2) is
// graded on two: grade's items carried no GPU count, so each run was given
// one GPU and every submission, the solution's too, failed on the H200s
// with "this exercise needs two GPUs" (verify, which builds its items
// from the job, gave two).
func TestItemsNeedTheSpecsGPUs(t *testing.T) {
	tasks := []*Task{
		{Student: "ann", Exercise: &course.Exercise{ID: "peer-pool"}, Spec: &checker.Spec{GPUs: 2}, SourceHash: Hash([]byte("a")), SpecHash: Hash([]byte("s"))},
		{Student: "ann", Exercise: &course.Exercise{ID: "block-pool"}, Spec: &checker.Spec{}, SourceHash: Hash([]byte("b")), SpecHash: Hash([]byte("t"))},
	}
	items := Items(tasks, nil, Sinks{})
	if len(items) != 2 || items[0].GPUs != 2 || items[1].GPUs != 0 {
		t.Fatalf("items' GPUs: %d, %d; want 2 and 0", items[0].GPUs, items[1].GPUs)
	}
}
