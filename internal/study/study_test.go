package study

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/progress"
)

func tiny(t *testing.T) *course.Course {
	t.Helper()
	c, err := course.Load(coursetest.Tiny(t, []string{"pipe", "pool"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Pick gives the exercise named, else the first not passed, else none.
func TestPick(t *testing.T) {
	c := tiny(t)
	p := &progress.Progress{Passed: map[string]time.Time{}}
	if x, ok, err := Pick(c, p, ""); err != nil || !ok || x.ID != "pipe" {
		t.Errorf("first: %v %v %v", x, ok, err)
	}
	p.Passed["pipe"] = time.Now()
	if x, ok, err := Pick(c, p, ""); err != nil || !ok || x.ID != "pool" {
		t.Errorf("after pipe: %v %v %v", x, ok, err)
	}
	if x, ok, err := Pick(c, p, "pipe"); err != nil || !ok || x.ID != "pipe" {
		t.Errorf("named, though passed: %v %v %v", x, ok, err)
	}
	p.Passed["pool"] = time.Now()
	if x, ok, err := Pick(c, p, ""); err != nil || ok || x != nil {
		t.Errorf("all passed: %v %v %v", x, ok, err)
	}
	if _, ok, err := Pick(c, p, "nope"); err == nil || ok || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown: %v %v", ok, err)
	}
}

// Hint reveals one more hint each time and keeps the count in the
// course's progress; an exercise without hints says where to read.
func TestHint(t *testing.T) {
	c := tiny(t)
	x, _ := c.Exercise("pipe")
	x.Hints = []string{"Which stream owns it?", "cudaFreeAsync."}
	for i, want := range []string{"Hint 1 of 2 for pipe:\n  Which stream owns it?\n\nlessons hint pipe again for the next.\n", "Hint 1 of 2 for pipe:\n  Which stream owns it?\nHint 2 of 2 for pipe:\n  cudaFreeAsync.\n\nThat is every hint."} {
		p, err := progress.Load(c)
		if err != nil {
			t.Fatal(err)
		}
		text, err := Hint(c, p, x)
		if err != nil || !strings.HasPrefix(text, want) {
			t.Errorf("hint %d: %q, %v; want %q", i+1, text, err, want)
		}
	}
	bare, _ := c.Exercise("pool")
	p, _ := progress.Load(c)
	if text, err := Hint(c, p, bare); err != nil || text != "pool has no hints. The lesson: lessons show 1.\n" {
		t.Errorf("no hints: %q, %v", text, err)
	}
}

// The third hint waits for a failed check of its exercise, and says so;
// after one, it comes.
func TestHintGated(t *testing.T) {
	c := tiny(t)
	x, _ := c.Exercise("pipe")
	x.Hints = []string{"Think.", "Read.", "Nudge."}
	const wait = "\nThe third hint comes after a check has failed: run lessons check first.\n"
	for i := range 3 {
		p, err := progress.Load(c)
		if err != nil {
			t.Fatal(err)
		}
		text, err := Hint(c, p, x)
		if err != nil || strings.Contains(text, "Nudge.") {
			t.Errorf("hint %d before a failure: %q, %v", i+1, text, err)
		}
		if i > 0 && !strings.HasSuffix(text, wait) {
			t.Errorf("hint %d before a failure says not why: %q", i+1, text)
		}
	}
	p, _ := progress.Load(c)
	if p.Hints["pipe"] != 2 {
		t.Errorf("count before a failure: %d, want 2", p.Hints["pipe"])
	}
	p.Fail(x)
	if err := p.Save(c); err != nil {
		t.Fatal(err)
	}
	p, _ = progress.Load(c)
	text, err := Hint(c, p, x)
	if err != nil || !strings.Contains(text, "Hint 3 of 3 for pipe:\n  Nudge.\n\nThat is every hint.") {
		t.Errorf("after a failure: %q, %v", text, err)
	}
}

// WriteList ticks what is passed and counts it all.
func TestWriteList(t *testing.T) {
	c := tiny(t)
	var out bytes.Buffer
	p := &progress.Progress{Passed: map[string]time.Time{"pool": time.Now()}}
	if err := WriteList(&out, 80, c, p); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"DAY  LESSON  TITLE  EXERCISES\n", "1    a       A      pipe\n", "                   pool ✓\n", "\nTiny: 1 lessons, 2 exercises, 1 passed\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("list:\n%s\nwant %q", got, want)
		}
	}
}

// A course's hint reaches the terminal made safe (lessons hint, watch's
// h): a hostile course's OSC 52 (the clipboard) or a CR drawn over the
// line before never does.
func TestHintSafe(t *testing.T) {
	c := tiny(t)
	x, _ := c.Exercise("pipe")
	x.Hints = []string{"Look\x1b]52;c;Y3VybCBldmlsIHwgc2gK\x07 at\rthe stream\x1b[2J."}
	p, _ := progress.Load(c)
	text, err := Hint(c, p, x)
	if err != nil || strings.ContainsAny(text, "\x1b\r\a") || !strings.Contains(text, "  Look at\n  the stream.") {
		t.Errorf("hint: %q, %v", text, err)
	}
}

// watch on an exercise of two GPUs, on a machine with one, says so once
// per check (as check does) and keeps watching: no error after it, which
// watch printed as "lessons: exit status N" under every save.
func TestWatchTwoGPUsOnOne(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	c, err := course.Load(coursetest.Tiny(t, []string{"pair"}, map[string]string{"exercises/pair.toml": "gpus = 2\n[[check]]\nexit = 0\n"}))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	k := Checker{Machine: &machine.Machine{Info: &gpu.Info{Devices: []gpu.Device{{Name: "one"}}}}}
	s := Watch(c, Terminal{Out: &out, Width: 80}, k, true)
	passed, err := s.Check(context.Background(), "pair")
	if passed || err != nil || !strings.Contains(out.String(), "needs 2 GPUs") {
		t.Errorf("passed %v, err %v, out %q", passed, err, out.String())
	}
}
