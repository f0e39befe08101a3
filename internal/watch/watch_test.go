package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// saves are the ways editors write a file. body differs from save to
// save in its length: a poll watcher that looks at a file rewritten within
// one tick of the file system's clock sees only its size and identity
// change.
var saves = map[string]func(t *testing.T, path, body string){
	"in place": func(t *testing.T, path, body string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(body)
		f.Close()
	},
	"temp then rename": func(t *testing.T, path, body string) {
		tmp := path + ".swp"
		os.WriteFile(tmp, []byte(body), 0o644)
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	},
	"delete and create": func(t *testing.T, path, body string) {
		os.Remove(path)
		os.WriteFile(path, []byte(body), 0o644)
	},
	"burst": func(t *testing.T, path, body string) {
		for i := 0; i < 10; i++ {
			os.WriteFile(path, []byte(body[:len(body)-i]), 0o644)
		}
		os.WriteFile(path, []byte(body), 0o644)
	},
}

// A watcher under test, and how to make it look now: a poll watcher looks
// at each tick the test gives (the second tick is taken only once the
// first look is over), fsnotify needs nothing.
type watcher struct {
	Watcher
	look func()
}

// watchers gives a way to start each kind of watcher: each test starts one
// at a time, so that no watcher sees another's events.
func watchers(t *testing.T, files []string) map[string]func() watcher {
	ws := map[string]func() watcher{"poll": func() watcher {
		ticks := make(chan time.Time)
		return watcher{newPoll(files, ticks), func() { ticks <- time.Time{}; ticks <- time.Time{} }}
	}}
	if w, err := NewNotify(files); err == nil {
		w.Close()
		ws["fsnotify"] = func() watcher {
			w, err := NewNotify(files)
			if err != nil {
				t.Fatal(err)
			}
			return watcher{w, func() {}}
		}
	} else {
		t.Logf("fsnotify not available here: %v", err)
	}
	return ws
}

// upTo reads w's events until one names marker, written last, and what
// else has come with it: fsnotify reports the changes of one folder in
// order, and a poll watcher's look is over before look returns, so every
// event of what was written before the marker has come by then.
func upTo(t *testing.T, w watcher, marker string) []string {
	t.Helper()
	w.look()
	var got []string
	for {
		select {
		case name := <-w.Events():
			got = append(got, name)
			if name != marker {
				continue
			}
			for { // what else the same look found (a poll's, in any order)
				select {
				case name := <-w.Events():
					got = append(got, name)
				default:
					return got
				}
			}
		case <-time.After(10 * time.Second): // a watcher that has lost the event, not a slow one
			t.Fatalf("the change of %s never came; events: %v", marker, got)
		}
	}
}

// TestSaves checks that every way of saving is seen, by each watcher, as
// changes of the file saved and of no other.
func TestSaves(t *testing.T) {
	for save, do := range saves {
		t.Run(save, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ex.cu")
			marker := filepath.Join(dir, "marker")
			other := filepath.Join(dir, "other.cu")
			os.WriteFile(path, []byte("int main() {}\n"), 0o644)
			os.WriteFile(other, []byte("x\n"), 0o644)
			round := 0
			for kind, start := range watchers(t, []string{path, marker}) {
				w := start()
				os.WriteFile(other, []byte("y\n"), 0o644) // not watched
				round++
				do(t, path, fmt.Sprintf("int main() { return %d; }%s\n", round, strings.Repeat(" ", 20*round)))
				os.WriteFile(marker, []byte(kind+"\n"), 0o644)
				got := upTo(t, w, marker)
				if !slices.Contains(got, path) {
					t.Errorf("%s: no event for a %s save: %v", kind, save, got)
				}
				for _, name := range got {
					if name != path && name != marker {
						t.Errorf("%s: an event for %s", kind, name)
					}
				}
				w.Close()
			}
		})
	}
}

func TestNewFileIsSeen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "later.cu")
	marker := filepath.Join(dir, "marker")
	for kind, start := range watchers(t, []string{path, marker}) {
		w := start()
		os.WriteFile(path, []byte("new\n"), 0o644)
		os.WriteFile(marker, []byte(kind+"\n"), 0o644)
		if got := upTo(t, w, marker); !slices.Contains(got, path) {
			t.Errorf("%s: a file created after the start is not seen: %v", kind, got)
		}
		w.Close()
		os.Remove(path)
		os.Remove(marker)
	}
}

// fakeClock moves only when the test says. Its timers are counted as
// they are made, so that a test knows Debounce has taken in an event (it
// makes a timer for each) before it moves the clock.
type fakeClock struct {
	mu     sync.Mutex
	made   *sync.Cond
	n      int
	now    time.Duration
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Duration
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.made = sync.NewCond(&c.mu)
	return c
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, fakeTimer{c.now + d, ch})
	c.n++
	c.made.Broadcast()
	return ch
}

// waitTimers waits until n timers have been made in all.
func (c *fakeClock) waitTimers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.n < n {
		c.made.Wait()
	}
}

// advance moves the clock by d and fires the timers due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	left := c.timers[:0]
	for _, t := range c.timers {
		if t.at <= c.now {
			t.ch <- time.Time{}
		} else {
			left = append(left, t)
		}
	}
	c.timers = left
}

func noBatch(t *testing.T, out <-chan []string, when string) {
	t.Helper()
	select {
	case b := <-out:
		t.Errorf("a batch %v %s", b, when)
	default:
	}
}

// TestDebounceStartsAtOnce: one save is passed on after Settle, not after
// the whole quiet period; a rewrite within the quiet period (a formatter)
// makes one more batch at the end of the burst, and no more.
func TestDebounceStartsAtOnce(t *testing.T) {
	clk := newFakeClock()
	in := make(chan string)
	d := 300 * time.Millisecond
	out := DebounceClock(in, d, clk)
	in <- "a"
	in <- "a" // the same save's second event
	clk.waitTimers(2)
	clk.advance(Settle - time.Millisecond)
	noBatch(t, out, "before the save's events settled")
	clk.advance(time.Millisecond)
	if b := <-out; !slices.Equal(b, []string{"a"}) {
		t.Errorf("the save's batch = %v", b)
	}
	clk.waitTimers(3) // the quiet period
	clk.advance(50 * time.Millisecond)
	in <- "a" // the formatter
	in <- "b"
	clk.waitTimers(5)
	clk.advance(d - time.Millisecond)
	noBatch(t, out, "before the burst's quiet period ended")
	clk.advance(time.Millisecond)
	if b := <-out; !slices.Equal(b, []string{"a", "b"}) {
		t.Errorf("the burst's last batch = %v", b)
	}
	close(in)
	if b, ok := <-out; ok {
		t.Errorf("a batch %v after the burst", b)
	}
}

// TestDebounce: events that come within Settle of each other (a save's,
// or a quick burst) are one batch, each file once; events after a quiet
// period are the next.
func TestDebounce(t *testing.T) {
	clk := newFakeClock()
	in := make(chan string)
	out := DebounceClock(in, 50*time.Millisecond, clk)
	for i, n := range []string{"a", "b", "a", "a"} {
		in <- n
		clk.waitTimers(i + 1)
		clk.advance(10 * time.Millisecond)
	}
	clk.advance(Settle)
	if first := <-out; !slices.Equal(first, []string{"a", "b"}) {
		t.Errorf("first batch = %v", first)
	}
	clk.waitTimers(5)
	clk.advance(time.Second)
	noBatch(t, out, "after a quiet burst")
	in <- "c"
	clk.waitTimers(6)
	close(in)
	if second := <-out; !slices.Equal(second, []string{"c"}) {
		t.Errorf("second batch = %v", second)
	}
	if _, ok := <-out; ok {
		t.Error("output not closed")
	}
}
