package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/slurm"
)

// stubs is a fake Slurm: each call must match the next stub's argv (a
// prefix of words, "*" matching any one), an unexpected call fails the
// test, and a stub left unused fails it too.
type stubs struct {
	t     *testing.T
	calls []stub
}

type stub struct {
	argv []string
	out  string
	err  error
}

func (s *stubs) on(argv string, out string, err error) {
	s.calls = append(s.calls, stub{strings.Fields(argv), out, err})
}

func (s *stubs) exec(_ context.Context, name string, args ...string) ([]byte, error) {
	s.t.Helper()
	got := append([]string{name}, args...)
	if len(s.calls) == 0 {
		s.t.Fatalf("unexpected command: %q", got)
	}
	c := s.calls[0]
	s.calls = s.calls[1:]
	if len(c.argv) > len(got) {
		s.t.Fatalf("command %q, want %q", got, c.argv)
	}
	for i, w := range c.argv {
		if w != "*" && w != got[i] {
			s.t.Fatalf("command %q, want %q", got, c.argv)
		}
	}
	return []byte(c.out), c.err
}

func newStubs(t *testing.T) *stubs {
	s := &stubs{t: t}
	t.Cleanup(func() {
		if len(s.calls) > 0 && !t.Failed() {
			t.Errorf("unused stubs: %v", s.calls)
		}
	})
	return s
}

func items(n int) []Item {
	var out []Item
	for i := range n {
		// Students 0 and 1 hand in the same file.
		out = append(out, Item{Student: fmt.Sprintf("s%d", i), Exercise: "pipe", SourceHash: fmt.Sprintf("h%d", max(i, 1)), SpecHash: "spec", MaxPoints: 10})
	}
	return out
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ n, per, parts, last int }{{0, 5, 0, 0}, {1, 5, 1, 1}, {5, 5, 1, 5}, {11, 5, 3, 1}, {3, 0, 3, 1}} {
		got := Split(make([]int, c.n), c.per)
		if len(got) != c.parts || (c.parts > 0 && len(got[len(got)-1]) != c.last) {
			t.Errorf("Split(%d, %d): %d parts, want %d (last %d)", c.n, c.per, len(got), c.parts, c.last)
		}
	}
	p := NewPlan(0, items(7), 3, 2, false)
	if len(p.Runs) != 3 || len(p.Items()) != 7 {
		t.Errorf("runs %d, items %d; want 3 and 7", len(p.Runs), len(p.Items()))
	}
	// 7 items, 6 distinct files (s0 and s1 hand in the same), 2 a task.
	if len(p.Builds) != 3 || p.Builds[0][0].Student != "s0" || p.Builds[0][1].Student != "s2" {
		t.Errorf("builds %v: want 3 tasks, the file of s0 and s1 built once", p.Builds)
	}
	if r := NewPlan(1, items(7), 3, 2, true); len(r.Builds) != 0 {
		t.Errorf("a retry builds nothing; got %v", r.Builds)
	}
}

func newDriver(t *testing.T, s *stubs) *Driver {
	dir := t.TempDir()
	return &Driver{Dir: dir, Cluster: slurm.Cluster{Exec: s.exec}, State: &State{Course: "/c", Submissions: "/s", Exe: "/lessons", Cache: "/cache", Options: slurm.Options{ItemsPerTask: 2}, Capability: "9.0"}}
}

func openBook(t *testing.T) *gradebook.Book {
	b, err := gradebook.Open(filepath.Join(t.TempDir(), "gb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestSubmitDependency: the run array waits for the build array; a
// retry round is a run array alone.
func TestSubmitDependency(t *testing.T) {
	s := newStubs(t)
	d := newDriver(t, s)
	s.on("sbatch --parsable "+filepath.Join(d.Dir, "build-0.sh"), "41\n", nil)
	s.on("sbatch --parsable --dependency=afterany:41 "+filepath.Join(d.Dir, "run-0.sh"), "42;cluster\n", nil)
	r, err := d.Submit(context.Background(), items(3), false)
	if err != nil {
		t.Fatal(err)
	}
	if r.BuildJob != "41" || r.RunJob != "42" {
		t.Errorf("jobs %s and %s, want 41 and 42", r.BuildJob, r.RunJob)
	}
	st, ok, err := Load(d.Dir)
	if err != nil || !ok || len(st.Rounds) != 1 || st.Rounds[0].RunJob != "42" {
		t.Fatalf("state %+v %v %v", st, ok, err)
	}
	s.on("sbatch --parsable "+filepath.Join(d.Dir, "run-1.sh"), "43\n", nil)
	if r, err = d.Submit(context.Background(), items(1), true); err != nil || r.BuildJob != "" || r.RunJob != "43" {
		t.Fatalf("retry: %+v %v", r, err)
	}
	// The run nodes' GPU unknown (no preflight): the run tasks build.
	d.State.Capability = ""
	s.on("sbatch --parsable "+filepath.Join(d.Dir, "run-2.sh"), "46\n", nil)
	if r, err = d.Submit(context.Background(), items(1), false); err != nil || r.BuildJob != "" {
		t.Fatalf("no capability: %+v %v", r, err)
	}
	d.State.Capability = "9.0"
	// A run array that cannot be submitted takes its builds with it.
	s.on("sbatch --parsable", "44\n", nil)
	s.on("sbatch --parsable --dependency=afterany:44", "", fmt.Errorf("sbatch: error: invalid partition"))
	s.on("scancel 44", "", nil)
	if _, err := d.Submit(context.Background(), items(1), false); err == nil || !strings.Contains(err.Error(), "invalid partition") {
		t.Errorf("got %v, want the sbatch error", err)
	}
	s.on("sbatch --parsable", "Submitted batch job 45\n", nil)
	if _, err := d.Submit(context.Background(), items(1), true); err == nil || !strings.Contains(err.Error(), "not a job id") {
		t.Errorf("got %v, want not a job id", err)
	}
}

func result(t *testing.T, p *Plan, it Item, status string, points int) {
	a := &gradebook.Attempt{Student: it.Student, Exercise: it.Exercise, Status: status, Points: points, MaxPoints: it.MaxPoints,
		SourceHash: it.SourceHash, SpecHash: it.SpecHash, GradedAt: time.Now().UTC(), Checks: []gradebook.Check{{Name: "exits", Passed: status == gradebook.Passed}}}
	if err := WriteResult(p.Results, &Result{Item: it, Attempt: a}); err != nil {
		t.Fatal(err)
	}
}

// TestStepRetriesOnce: a task cancelled half way loses its unfinished
// items, which go to a new run array once; what the retry also loses is
// recorded as not graded, with how its task ended.
func TestStepRetriesOnce(t *testing.T) {
	s := newStubs(t)
	d := newDriver(t, s)
	book := openBook(t)
	ctx := context.Background()
	s.on("sbatch", "7", nil)
	s.on("sbatch", "8", nil)
	r, err := d.Submit(ctx, items(4), false)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := ReadPlan(r.Plan)
	// Task 0 graded its first item, then was cancelled; task 1 is running.
	result(t, p, p.Runs[0][0], gradebook.Passed, 10)
	result(t, p, p.Runs[1][0], gradebook.Failed, 0)
	s.on("squeue -h -r -t all -j 7,8", "7_0|COMPLETED|None\n8_0|CANCELLED|None\n8_1|RUNNING|None\n", nil)
	pr, err := d.Step(ctx, book)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Merged) != 2 || pr.Done != 2 || pr.Items != 4 || pr.Running != 1 || pr.Failed != 1 || pr.Finished {
		t.Fatalf("progress %+v", pr)
	}
	// Merging again records nothing twice.
	s.on("squeue", "8_1|RUNNING|None\n", nil)
	s.on("sacct -n -P -X -j 7", "7_0|COMPLETED|None\n", nil)
	if pr, err = d.Step(ctx, book); err != nil || len(pr.Merged) != 0 {
		t.Fatalf("second step merged %d (%v)", len(pr.Merged), err)
	}
	if n, _ := book.Attempts(); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
	// Task 1 finishes; task 0's second item is retried, alone. A
	// controller that does not answer first says nothing: no retry yet.
	result(t, p, p.Runs[1][1], gradebook.Passed, 10)
	s.on("squeue", "", fmt.Errorf("slurm_load_jobs error: Unable to contact slurm controller (connect failure)"))
	if _, err := d.Step(ctx, book); err == nil || !strings.Contains(err.Error(), "Unable to contact") {
		t.Fatalf("got %v, want the controller's failure", err)
	}
	s.on("squeue", "", fmt.Errorf("slurm_load_jobs error: Invalid job id specified"))
	s.on("sacct", "", fmt.Errorf("sacct: Slurm accounting storage is disabled"))
	s.on("scontrol -o show job 7", "JobId=7 ArrayJobId=7 ArrayTaskId=0 JobState=FAILED Reason=NonZeroExitCode\n", nil)
	s.on("scontrol -o show job 8", "JobId=9 ArrayJobId=8 ArrayTaskId=0 JobState=CANCELLED Reason=None\nJobId=8 ArrayJobId=8 ArrayTaskId=1 JobState=COMPLETED Reason=None\n", nil)
	s.on("sbatch --parsable "+filepath.Join(d.Dir, "run-1.sh"), "10", nil)
	if pr, err = d.Step(ctx, book); err != nil {
		t.Fatal(err)
	}
	if len(pr.BuildsFailed) != 1 || !strings.Contains(pr.BuildsFailed[0], "build task 7_0 ended failed nonzeroexitcode (see "+filepath.Join(d.Dir, "logs", "build-7_0.log")+")") {
		t.Errorf("failed builds %q", pr.BuildsFailed)
	}
	if n, _ := book.Attempts(); len(pr.Submitted) != 1 || pr.Retried != 1 || n != 3 {
		t.Fatalf("progress %+v", pr)
	}
	rp, _ := ReadPlan(pr.Submitted[0].Plan)
	if it := rp.Items(); len(it) != 1 || it[0] != p.Runs[0][1] || len(rp.Builds) != 0 {
		t.Fatalf("retry plan %+v", rp)
	}
	// The retry is killed by its time limit too: recorded, with the reason.
	s.on("squeue -h -r -t all -j 10", "10_0|TIMEOUT|TimeLimit\n", nil)
	if pr, err = d.Step(ctx, book); err != nil {
		t.Fatal(err)
	}
	if pr.NotGraded != 1 || !pr.Finished {
		t.Fatalf("progress %+v", pr)
	}
	a, _, _ := book.Latest("s1", "pipe")
	if a.Status != gradebook.Error || !strings.Contains(a.Reason, "task 10_0 (a retry) ended timeout timelimit") {
		t.Errorf("s1: %s %q", a.Status, a.Reason)
	}
	if len(d.Open()) != 0 {
		t.Errorf("open rounds: %v", d.Open())
	}
}

func TestMergeRefusesAStrangeFile(t *testing.T) {
	dir := t.TempDir()
	it := items(1)[0]
	os.WriteFile(filepath.Join(dir, ResultName(it)), []byte(`{"item": {"student": "mallory"}}`), 0o644)
	if _, err := Merge(openBook(t), dir, []Item{it}); err == nil || !strings.Contains(err.Error(), "not a result of s0 pipe") {
		t.Errorf("got %v", err)
	}
}

// BenchmarkMerge merges the results of a class of 300 x 7 into a new
// gradebook: what the submitting node does besides waiting.
func BenchmarkMerge(b *testing.B) {
	dir := b.TempDir()
	var its []Item
	for s := range 300 {
		for x := range 7 {
			it := Item{Student: fmt.Sprintf("s%03d", s), Exercise: fmt.Sprintf("x%d", x), SourceHash: fmt.Sprintf("%064d", s*7+x), SpecHash: "spec", MaxPoints: 10}
			its = append(its, it)
			a := &gradebook.Attempt{Student: it.Student, Exercise: it.Exercise, Status: gradebook.Passed, Points: 10, MaxPoints: 10, SourceHash: it.SourceHash, SpecHash: "spec",
				Output: strings.Repeat("12 iterations\n", 20), GradedAt: time.Now().UTC(), Checks: []gradebook.Check{{Name: "exits", Passed: true}, {Name: "prints", Passed: true}, {Name: "stat", Passed: true}}}
			if err := WriteResult(dir, &Result{Item: it, Attempt: a}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		book, err := gradebook.Open(filepath.Join(b.TempDir(), "gb.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		m, err := Merge(book, dir, its)
		if err != nil || len(m.New) != len(its) {
			b.Fatal(err)
		}
		b.StopTimer()
		book.Close()
		b.StartTimer()
	}
}

func TestProgressLine(t *testing.T) {
	pr := &Progress{Items: 10, Done: 5, Pending: 1, Running: 2, Retrying: true}
	if got := pr.Line(10 * time.Second); got != "[5/10 retried] tasks: 1 pending, 2 running, 0 failed, about 10s left" {
		t.Errorf("line %q", got)
	}
	if got := (&Progress{Items: 3}).Line(0); got != "[0/3] tasks: 0 pending, 0 running, 0 failed" {
		t.Errorf("line %q", got)
	}
}
