package watch

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type fakeWatcher struct {
	ev   chan string
	errs chan error
}

func (f *fakeWatcher) Events() <-chan string { return f.ev }
func (f *fakeWatcher) Errors() <-chan error  { return f.errs }
func (f *fakeWatcher) Close() error          { return nil }

type harness struct {
	s        *Session
	w        *fakeWatcher
	keys     chan byte
	out      *syncBuffer
	mu       sync.Mutex
	checks   []string
	running  int32
	overlaps int32
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// onWrite, when set, is told of each write: a test answers what the
	// session says as a person would.
	onWrite func(string)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.onWrite != nil {
		b.onWrite(string(p))
	}
	return b.b.Write(p)
}
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newHarness runs a session over exercises in order; check decides each
// check's verdict (the n-th check of an exercise, from 0).
func newHarness(order []string, check func(ctx context.Context, id string, n int) bool) *harness {
	h := &harness{w: &fakeWatcher{ev: make(chan string, 16), errs: make(chan error)}, keys: make(chan byte, 4), out: &syncBuffer{}}
	count := map[string]int{}
	passed := map[string]bool{}
	h.s = &Session{
		Check: func(ctx context.Context, id string) (bool, error) {
			if atomic.AddInt32(&h.running, 1) > 1 {
				atomic.AddInt32(&h.overlaps, 1)
			}
			defer atomic.AddInt32(&h.running, -1)
			h.mu.Lock()
			n := count[id]
			count[id]++
			h.checks = append(h.checks, id)
			h.mu.Unlock()
			p := check(ctx, id, n)
			h.mu.Lock()
			passed[id] = passed[id] || p
			h.mu.Unlock()
			return p, nil
		},
		Next: func(after string) (string, bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			for _, id := range order {
				if id != after && !passed[id] {
					return id, true
				}
			}
			return "", false
		},
		Files:    func(id string) []string { return []string{id + ".cu"} },
		Watch:    func([]string) (Watcher, error) { return h.w, nil },
		Hint:     func(id string) { h.out.Write([]byte("hint for " + id + "\n")) },
		List:     func(string) { h.out.Write([]byte("list\n")) },
		Header:   func(id string) {},
		Keys:     h.keys,
		Out:      h.out,
		Debounce: 30 * time.Millisecond,
		// Each event is a batch: the session is driven by events alone,
		// and Debounce is tested with a fake clock on its own.
		Batch: func(events <-chan string) <-chan []string {
			out := make(chan []string)
			go func() {
				defer close(out)
				for e := range events {
					out <- []string{e}
				}
			}()
			return out
		},
	}
	return h
}

func (h *harness) run(t *testing.T, start string) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- h.s.Run(context.Background(), start) }()
	select {
	case err := <-errc:
		return err
	case <-time.After(30 * time.Second): // a session that hangs, not a slow one
		h.mu.Lock()
		defer h.mu.Unlock()
		t.Fatalf("the session did not end; checks so far: %v", h.checks)
	}
	return nil
}

func TestStaleCheckIsCancelledAndRestarted(t *testing.T) {
	cancelled := make(chan struct{})
	var h *harness
	h = newHarness([]string{"a"}, func(ctx context.Context, id string, n int) bool {
		if n == 0 {
			h.w.ev <- "a.cu" // a save while this check runs
			<-ctx.Done()
			close(cancelled)
			return false
		}
		return true
	})
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	default:
		t.Error("the stale check was not cancelled")
	}
	if strings.Join(h.checks, " ") != "a a" || h.overlaps != 0 {
		t.Errorf("checks = %v, overlaps = %d", h.checks, h.overlaps)
	}
}

// TestBurstGivesOneCheck: the events of a burst of saves, debounced,
// check the exercise once.
func TestBurstGivesOneCheck(t *testing.T) {
	clk := newFakeClock()
	var h *harness
	h = newHarness([]string{"a"}, func(ctx context.Context, id string, n int) bool {
		if n == 0 {
			go func() {
				for i := 0; i < 5; i++ {
					h.w.ev <- "a.cu"
				}
				clk.waitTimers(5)
				clk.advance(Settle)
			}()
			return false
		}
		return true
	})
	h.s.Batch = func(events <-chan string) <-chan []string { return DebounceClock(events, h.s.Debounce, clk) }
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	if len(h.checks) != 2 {
		t.Errorf("checks = %v, want one at the start and one for the burst", h.checks)
	}
}

func TestAdvancesUntilEveryExerciseIsPassed(t *testing.T) {
	h := newHarness([]string{"a", "b", "c"}, func(ctx context.Context, id string, n int) bool { return true })
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(h.checks, " ") != "a b c" {
		t.Errorf("checks = %v", h.checks)
	}
	if !strings.Contains(h.out.String(), "Every exercise is passed") {
		t.Errorf("out = %q", h.out.String())
	}
}

func TestKeys(t *testing.T) {
	h := newHarness([]string{"a", "b"}, func(ctx context.Context, id string, n int) bool { return false })
	h.keys <- 'h'
	h.keys <- 'l'
	h.keys <- 'n'
	go func() {
		h.keys <- 'r'
		h.keys <- 'q'
	}()
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	out := h.out.String()
	if !strings.Contains(out, "hint for a") || !strings.Contains(out, "list") {
		t.Errorf("out = %q", out)
	}
	if strings.Join(h.checks, " ") != "a b b" {
		t.Errorf("checks = %v, want a, then b, then b again (r)", h.checks)
	}
}

func TestWaitAfterPass(t *testing.T) {
	h := newHarness([]string{"a", "b"}, func(ctx context.Context, id string, n int) bool { return true })
	h.s.Wait = true
	h.out.onWrite = func(s string) {
		if strings.Contains(s, "Press n") {
			h.keys <- 'n'
		}
	}
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.out.String(), "Press n for the next exercise.") || strings.Join(h.checks, " ") != "a b" {
		t.Errorf("checks = %v, out = %q", h.checks, h.out.String())
	}
}

// TestLessonOnScreenIsRerendered: v shows the lesson; a save of its
// markdown re-renders it and checks nothing; once a check has replaced it on
// screen, a save of the lesson does nothing.
func TestLessonOnScreenIsRerendered(t *testing.T) {
	var h *harness
	renders := make(chan struct{}, 8)
	h = newHarness([]string{"a"}, func(ctx context.Context, id string, n int) bool {
		switch n {
		case 0:
			go func() {
				h.keys <- 'v'
				<-renders
				h.w.ev <- "day1.md" // the lesson is on screen: re-render
				<-renders
				h.w.ev <- "a.cu" // a check replaces the lesson on screen
			}()
			return false
		case 1:
			go func() {
				h.w.ev <- "day1.md" // not on screen: nothing
				h.w.ev <- "a.cu"
			}()
			return false
		}
		return true
	})
	h.s.LessonFiles = func(id string) []string { return []string{"day1.md"} }
	h.s.Lesson = func(id string) {
		h.out.Write([]byte("lesson of " + id + "\n"))
		renders <- struct{}{}
	}
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(h.out.String(), "lesson of a"); got != 2 {
		t.Errorf("the lesson was rendered %d times, want 2:\n%s", got, h.out.String())
	}
	if strings.Join(h.checks, " ") != "a a a" {
		t.Errorf("checks = %v: a lesson save must not check", h.checks)
	}
}

// TestFormatterBurstGivesOneVerdict: a save, then a formatter rewriting the
// file 100 ms later. The check starts on the save without waiting for the
// debounce; the burst's last batch cancels it and checks again, so only one
// verdict comes of the burst.
func TestFormatterBurstGivesOneVerdict(t *testing.T) {
	cancelled := make(chan struct{})
	var h *harness
	h = newHarness([]string{"a"}, func(ctx context.Context, id string, n int) bool {
		switch n {
		case 0:
			go func() {
				h.w.ev <- "a.cu" // the save's first batch
				h.w.ev <- "a.cu" // the burst's last (a formatter's rewrite)
			}()
			return false
		case 1:
			<-ctx.Done() // still building when the burst ends
			close(cancelled)
			return false
		}
		return true
	})
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	default:
		t.Error("the check started on the save was not cancelled by the end of the burst")
	}
	if len(h.checks) != 3 || h.overlaps != 0 {
		t.Errorf("checks = %v, overlaps = %d; want the first, the save's (cancelled) and the burst's", h.checks, h.overlaps)
	}
}

// TestKeysWaitForTheCheck: a hint asked for while a check prints comes
// after its verdict, not in the middle of its output.
func TestKeysWaitForTheCheck(t *testing.T) {
	var h *harness
	h = newHarness([]string{"a"}, func(ctx context.Context, id string, n int) bool {
		h.out.Write([]byte("check output begins\n"))
		h.keys <- 'h' // taken by the session while the check runs
		h.out.Write([]byte("check output ends\n"))
		go func() { h.keys <- 'q' }()
		return false
	})
	h.keys = make(chan byte)
	h.s.Keys = h.keys
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	out := h.out.String()
	if !strings.Contains(out, "check output begins\ncheck output ends\nhint for a\n") {
		t.Errorf("the hint should follow the check's output:\n%s", out)
	}
}

// TestViewStopsTheCheck: v while a check runs stops it, shows the lesson,
// and says how to check again; nothing is checked until then.
func TestViewStopsTheCheck(t *testing.T) {
	var h *harness
	h = newHarness([]string{"a"}, func(ctx context.Context, id string, n int) bool {
		if n == 0 {
			h.keys <- 'v'
			<-ctx.Done()
			h.out.Write([]byte("check stopped\n"))
			return false
		}
		return true
	})
	h.s.Lesson = func(id string) {
		h.out.Write([]byte("lesson of " + id + "\n"))
		go func() { h.keys <- 'r' }()
	}
	if err := h.run(t, "a"); err != nil {
		t.Fatal(err)
	}
	out := h.out.String()
	if !strings.Contains(out, "check stopped\nlesson of a\nThe check that was running was stopped; save the file or press r to check again.\n") {
		t.Errorf("out:\n%s", out)
	}
	if strings.Join(h.checks, " ") != "a a" || h.overlaps != 0 {
		t.Errorf("checks = %v (overlaps %d), want a stopped, then a again (r)", h.checks, h.overlaps)
	}
}
