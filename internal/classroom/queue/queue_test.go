package queue

import (
	"context"
	"errors"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)} }
func granted(t *Ticket) bool             { return t.slot >= 0 }
func mustQueue(tb testing.TB, q *Queue, s string) *Ticket {
	tb.Helper()
	t, err := q.Enqueue(s, false)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// A burst of one student's runs does not starve the others: slots go
// round-robin by student, and the places the page shows say so.
func TestQueueIsRoundRobinByStudent(t *testing.T) {
	clk := newClock()
	q := New([]string{"0"}, 1, clk.now)
	first := mustQueue(t, q, "ann")
	var ann []*Ticket
	for range 4 {
		ann = append(ann, mustQueue(t, q, "ann"))
	}
	bob1, bob2 := mustQueue(t, q, "bob"), mustQueue(t, q, "bob")
	cy := mustQueue(t, q, "cy")
	if !granted(first) {
		t.Fatal("the first run did not get the free slot")
	}
	// Waiting: ann×4 (queued first), bob×2, cy×1. The turns after ann's
	// run: bob, cy, ann, bob, ann, ann, ann.
	want := []*Ticket{bob1, cy, ann[0], bob2, ann[1], ann[2], ann[3]}
	for i, w := range want {
		if p, of := q.Place(w); p != i+1 || of != len(want)-0 {
			t.Errorf("place of run %d: %d of %d, want %d of %d", i, p, of, i+1, len(want))
		}
	}
	running := first
	for i, w := range want {
		running.Done(time.Second)
		if !granted(w) {
			t.Fatalf("turn %d went to someone else", i)
		}
		for _, o := range want[i+1:] {
			if granted(o) {
				t.Fatalf("turn %d: a later run was also let in", i)
			}
		}
		running = w
	}
}

func TestQueueCapsEachStudent(t *testing.T) {
	clk := newClock()
	q := New([]string{"0"}, 1, clk.now)
	q.MaxQueued = 2
	a := mustQueue(t, q, "ann")
	mustQueue(t, q, "ann")
	_, err := q.Enqueue("ann", false)
	var full *FullError
	if !errors.As(err, &full) {
		t.Fatalf("a third run of ann's: %v, want refused", err)
	}
	mustQueue(t, q, "bob") // another student's run is not held back
	a.Done(time.Second)
	mustQueue(t, q, "ann")
}

func TestQueueBudgetsGPUTimeAnHour(t *testing.T) {
	clk := newClock()
	q := New([]string{"0"}, 1, clk.now)
	q.Budget = time.Minute
	a := mustQueue(t, q, "ann")
	clk.add(50 * time.Second)
	a.Done(50 * time.Second)
	b := mustQueue(t, q, "ann") // 50 s used: still under a minute
	clk.add(20 * time.Second)
	b.Done(20 * time.Second)
	_, err := q.Enqueue("ann", false)
	var over *BudgetError
	if !errors.As(err, &over) || over.Used != 70*time.Second {
		t.Fatalf("over the budget: %v", err)
	}
	if over.Wait != time.Hour-20*time.Second {
		t.Errorf("wait %s, want the first use to age out", over.Wait)
	}
	mustQueue(t, q, "bob").Done(0)
	clk.add(time.Hour - 19*time.Second)
	mustQueue(t, q, "ann") // the first use is over an hour old
}

func TestQueueCancelledWaitLeavesTheQueue(t *testing.T) {
	clk := newClock()
	q := New([]string{"0", "1"}, 1, clk.now)
	a, b := mustQueue(t, q, "ann"), mustQueue(t, q, "bob")
	c := mustQueue(t, q, "cy")
	d := mustQueue(t, q, "dee")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Wait(ctx); err == nil {
		t.Fatal("a cancelled wait got a slot")
	}
	if p, of := q.Place(d); p != 1 || of != 1 {
		t.Fatalf("after cy left, dee is at %d of %d", p, of)
	}
	devA, _ := a.Wait(context.Background())
	devB, _ := b.Wait(context.Background())
	if devA == devB {
		t.Fatalf("two runs on one slot's device %s with a slot on each", devA)
	}
	a.Done(time.Second)
	if dev, err := d.Wait(context.Background()); err != nil || dev != devA {
		t.Fatalf("dee got %q, %v; want ann's slot on %s", dev, err, devA)
	}
	st := q.State()
	if st.Running["dee"] != 1 || st.Running["bob"] != 1 || st.Started != 3 {
		t.Fatalf("state %+v", st)
	}
}
