package grade

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/suspect"
)

// driverFake passes every run, except that a file saying "forged" gets
// what the driver cross-check says of a record it contradicts.
type driverFake struct{ *fake }

func (f driverFake) Run(ctx context.Context, t *Task, b *Built, dev string, slot int) (*Ran, error) {
	res := []checker.Result{{Name: "prints done", Pass: true, Check: &checker.Check{}}}
	if strings.Contains(string(t.Source), "forged") {
		why := "statistics do not match what the driver saw: the record claims 16 MiB reserved by a pool, but the driver never listed process 7"
		res = append(res, checker.Result{Name: checker.DriverCheckName, Got: why, Review: why})
	}
	return &Ran{Results: res, Output: "done\n"}, nil
}

func TestGradeMarksForReview(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{
		"ann/block_pool.cu": "honest: cudaMalloc(&p, n); exit(0);",
		"eve/block_pool.cu": "forged record; _exit(0);",
		"sam/block_pool.cu": "quick_exit(0); // a pass otherwise",
	})
	solution := []byte("int main() { cudaMalloc(&p, n); exit(0); }")
	for _, task := range ts {
		task.Findings = Suspect(task, suspect.Known(solution))
	}
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	if _, err := Grade(context.Background(), book, ts, driverFake{newFake()}, Options{Jobs: 1, Devices: []string{"0"}, PerDevice: 1}); err != nil {
		t.Fatal(err)
	}
	g, err := book.Grades()
	if err != nil {
		t.Fatal(err)
	}
	ann, eve, sam := g["ann"]["block-pool"], g["eve"]["block-pool"], g["sam"]["block-pool"]
	if ann.Status != gradebook.Passed || ann.Review != "" {
		t.Errorf("ann, honest: %s, review %q", ann.Status, ann.Review)
	}
	if lines := eve.ReviewLines(); eve.Status != gradebook.Failed || eve.Points != 0 || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "block_pool.cu: line 1 names _exit") || !strings.HasPrefix(lines[1], "statistics do not match what the driver saw") {
		t.Errorf("eve, forged: %s, %d points, review %q", eve.Status, eve.Points, eve.Review)
	}
	if sam.Status != gradebook.Passed || !strings.Contains(sam.Review, "quick_exit") {
		t.Errorf("sam: a finding is for review, not a failure: %s, review %q", sam.Status, sam.Review)
	}
}

// hiddenFake passes every run; a hidden run's checks were not made (its
// output lacks the text its case waits for), so they are skipped and
// marked for review, as checker's notArranged does.
type hiddenFake struct{ *fake }

func (f hiddenFake) Run(ctx context.Context, t *Task, b *Built, dev string, slot int) (*Ran, error) {
	hidden := &checker.Check{Name: "[8 buffers of 520 MiB] no host polls", Run: "8 buffers of 520 MiB"}
	res := []checker.Result{{Name: "prints done", Pass: true, Check: &checker.Check{}},
		{Name: "[8 buffers of 520 MiB] no host polls", Pass: true, Skipped: true, Check: hidden,
			Got:    `skipped: the case of run "8 buffers of 520 MiB" was not set up here (the output has no "past 4 GiB")`,
			Review: `the checks of hidden run "8 buffers of 520 MiB" were not made: its output lacks "past 4 GiB", which the harness prints once it has set up the case they judge`}}
	return &Ran{Results: res, Output: "done\n"}, nil
}

// A hidden check's review does not reach the student's feedback with
// what the secret spec says of the check (round 22: a program that left
// out the line a hidden run's case waits for read the run's name in its
// feedback, "Marked for the instructor's review"); the instructor still
// reads the check's own result.
func TestHiddenReviewKeptFromFeedback(t *testing.T) {
	dir := t.TempDir()
	ts := class(t, dir, map[string]string{"eve/block_pool.cu": "int main() {}"})
	book, err := gradebook.Open(filepath.Join(t.TempDir(), "gb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	if _, err := Grade(context.Background(), book, ts, hiddenFake{newFake()}, Options{Jobs: 1, Devices: []string{"0"}, PerDevice: 1}); err != nil {
		t.Fatal(err)
	}
	sheet, err := book.Sheet()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"summary", "none"} {
		sheet.Hidden = mode
		fb := sheet.Feedback("eve")
		if strings.Contains(fb, "8 buffers of 520 MiB") || strings.Contains(fb, "past 4 GiB") {
			t.Errorf("--hidden %s: the feedback names the hidden run:\n%s", mode, fb)
		}
		if !strings.Contains(fb, "hidden check is marked for review") {
			t.Errorf("--hidden %s: the feedback does not say a hidden check is marked:\n%s", mode, fb)
		}
	}
	g, _ := book.Grades()
	eve := g["eve"]["block-pool"]
	if len(eve.Checks) != 2 || !strings.Contains(eve.Checks[1].Got, "8 buffers of 520 MiB") {
		t.Errorf("the instructor's gradebook lost the hidden check's result: %+v", eve.Checks)
	}
}
