package grade

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// Progress is a bar on a terminal and a line per file elsewhere.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, false, 2)
	p.Done(&gradebook.Attempt{Student: "alice", Exercise: "pipe", Status: gradebook.Passed, Points: 10, MaxPoints: 10}, false)
	p.Done(&gradebook.Attempt{Student: "bob", Exercise: "pipe", Status: gradebook.Passed, Points: 10, MaxPoints: 10}, true)
	p.Finish()
	if got := out.String(); got != "[1/2] alice pipe: passed 10/10\n[2/2] bob pipe: unchanged, passed 10/10\n" {
		t.Errorf("lines: %q", got)
	}
	out.Reset()
	p = NewProgress(&out, true, 2)
	p.Done(&gradebook.Attempt{Student: "alice", Exercise: "pipe", Status: gradebook.Passed}, false)
	if got := out.String(); !strings.HasPrefix(got, "\r[███████████████░░░░░░░░░░░░░░░] 1/2 ") {
		t.Errorf("bar: %q", got)
	}
}

func TestSummaryLine(t *testing.T) {
	s := &Summary{Passed: 3, Failed: 1, Missing: 1, Errors: 0, Skipped: 2, Builds: 4}
	want := "5 graded in 0s: 3 passed, 1 failed, 1 missing, 0 could not be graded; 2 unchanged since the last run (skipped); 4 builds.\nGradebook: gb.db (lessons grade export, lessons grade feedback)\n"
	if got := s.Line("gb.db"); got != want {
		t.Errorf("Line:\n got %q\nwant %q", got, want)
	}
	if got := (Choice{Why: "1 at a time"}).Chosen(); got != " (chosen: 1 at a time; --per-gpu and --gpu-queues override)" {
		t.Errorf("Chosen: %q", got)
	}
}

// Limit says where the time went and which of builds and runs set the
// pace; nothing when nothing was built or run.
func TestLimit(t *testing.T) {
	if got := (&Summary{}).Limit(); got != "" {
		t.Errorf("nothing done: %q", got)
	}
	runs := &Summary{Took: 10 * time.Second, BuildWork: 20 * time.Second, BuildSlots: 4, RunWork: 160 * time.Second, RunSlots: 16, Programs: 50, RunsAgain: 2}
	got := runs.Limit()
	for _, w := range []string{"20.0 s of builds on 4 at once (5.0 s at least)", "160.0 s of runs on 16 at once (10.0 s at least)", "50 programs started (5.0 a second)", "2 runs made again alone", "the runs set the pace"} {
		if !strings.Contains(got, w) {
			t.Errorf("runs: %q lacks %q", got, w)
		}
	}
	builds := &Summary{Took: 10 * time.Second, BuildWork: 80 * time.Second, BuildSlots: 8, RunWork: 16 * time.Second, RunSlots: 16}
	if got := builds.Limit(); !strings.Contains(got, "the builds set the pace") || strings.Contains(got, "again") {
		t.Errorf("builds: %q", got)
	}
}

// Pace says what grade would choose on a machine: one GPU keeps its 16,
// four share the machine's 16.
func TestPace(t *testing.T) {
	for _, c := range []struct {
		gpus, cores int
		want        string
	}{
		{0, 16, "no GPU"},
		{1, 16, "16 runs at once (16 on each of 1 GPU)"},
		{4, 64, "16 runs at once (4 on each of 4 GPUs)"},
		{1, 2, "1 runs at once (1 on each of 1 GPU)"},
	} {
		if got := Pace(c.gpus, c.cores); !strings.Contains(got, c.want) {
			t.Errorf("%d GPUs, %d cores: %q lacks %q", c.gpus, c.cores, got, c.want)
		}
	}
}
