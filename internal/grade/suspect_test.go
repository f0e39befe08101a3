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
