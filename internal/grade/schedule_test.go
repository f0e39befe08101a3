package grade

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/tracer"
)

func TestChoose(t *testing.T) {
	auto := autoPerDevice()
	for _, c := range []struct {
		name                              string
		perDevice, queues, untimed, timed int
		kept                              string
		wantPer, wantQueues, wantTimedQ   int
		why                               []string
	}{
		{"nothing timed", 0, 0, 10, 0, "", auto, 2, 0, []string{" at a time (", "2 hardware queues (CUDA starts faster)"}},
		{"some timed", 0, 0, 10, 3, "the timed", auto, 2, 0, []string{"CUDA's 8 for the timed"}},
		{"all timed", 0, 0, 0, 4, "the timed", 1, 0, 0, []string{"1 at a time (every run is timed)"}},
		{"flags", 3, 4, 10, 1, "the timed", 3, 4, 4, []string{"timed exercises alone"}},
		{"flags, nothing timed", 1, 8, 10, 0, "", 1, 8, 8, nil},
	} {
		got := Choose(c.perDevice, c.queues, c.untimed, c.timed, c.kept)
		if got.PerDevice != c.wantPer || got.Queues != c.wantQueues || got.TimedQueues != c.wantTimedQ {
			t.Errorf("%s: %+v", c.name, got)
		}
		for _, w := range c.why {
			if !strings.Contains(got.Why, w) {
				t.Errorf("%s: why %q lacks %q", c.name, got.Why, w)
			}
		}
		if c.why == nil && got.Why != "" {
			t.Errorf("%s: nothing chosen, yet %q", c.name, got.Why)
		}
	}
}

// Runs share a GPU on machines of 4 cores or more, up to 16.
func TestPerDeviceFor(t *testing.T) {
	for cores, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 4, 16: 16, 128: 16} {
		if got := perDeviceFor(cores); got != want {
			t.Errorf("%d cores: %d at a time, want %d", cores, got, want)
		}
	}
}

// Schedule runs an item only after its own build, never one whose build
// says there is nothing to run, at most PerDevice at once on each device,
// and a timed item alone.
func TestSchedule(t *testing.T) {
	var mu sync.Mutex
	built := map[string]bool{}
	busy, maxBusy, shared := map[string]int{}, 0, 0
	timedOn := map[string]bool{}
	var ran atomic.Int32
	var items []*Item
	for i := range 24 {
		name := string(rune('a' + i))
		timed := i%6 == 0
		items = append(items, &Item{Name: name, Timed: timed,
			Build: func(ctx context.Context, slot int) (bool, string) {
				time.Sleep(time.Millisecond)
				mu.Lock()
				built[name] = true
				mu.Unlock()
				return i%5 != 4, "built" // every fifth does not compile
			},
			Run: func(ctx context.Context, dev string, slot int, _ bool) (time.Duration, string) {
				mu.Lock()
				if !built[name] {
					t.Errorf("%s ran before its build", name)
				}
				busy[dev]++
				maxBusy = max(maxBusy, busy[dev])
				if timedOn[dev] || (timed && busy[dev] > 1) {
					shared++
				}
				timedOn[dev] = timedOn[dev] || timed
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
				mu.Lock()
				busy[dev]--
				if timed {
					timedOn[dev] = false
				}
				mu.Unlock()
				ran.Add(1)
				return time.Millisecond, ""
			}})
	}
	tr, _ := testTrace(t)
	Schedule(context.Background(), items, Slots{Jobs: 4, Devices: []string{"0", "1"}, PerDevice: 3, Trace: tr})
	if got := ran.Load(); got != 24-4 {
		t.Errorf("%d runs, want 20 (4 did not build)", got)
	}
	if maxBusy > 3 {
		t.Errorf("%d runs at once on a device, want at most 3", maxBusy)
	}
	if shared > 0 {
		t.Errorf("a timed run shared its GPU %d times", shared)
	}
}

// Once the context is done, nothing more is built or run.
func TestScheduleStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var builds atomic.Int32
	var items []*Item
	for range 50 {
		items = append(items, &Item{
			Build: func(ctx context.Context, slot int) (bool, string) {
				if builds.Add(1) == 3 {
					cancel()
				}
				return true, "built"
			},
			Run: func(ctx context.Context, dev string, slot int, _ bool) (time.Duration, string) { return 0, "" },
		})
	}
	Schedule(ctx, items, Slots{Jobs: 1})
	if n := builds.Load(); n != 3 {
		t.Errorf("%d builds after the stop at the third", n)
	}
}

// Runs chosen per GPU are spread over a machine's GPUs, at most the
// machine's runs at once in all; a given --per-gpu and one GPU keep theirs.
func TestSpread(t *testing.T) {
	for _, c := range []struct {
		gpus, per, machine int
		given              bool
		wantPer, wantMach  int
	}{
		{1, 16, 16, false, 16, 0},
		{4, 16, 16, false, 4, 0},
		{8, 16, 16, false, 2, 0},
		{3, 16, 16, false, 6, 16},
		{16, 16, 16, false, 2, 16},
		{4, 1, 16, false, 1, 0}, // every run timed: one at a time on each
	} {
		ch := Choice{PerDevice: c.per, Why: "16 at a time (untimed runs share a GPU; CUDA starts overlap); 2 hardware queues"}
		ch.spread(c.gpus, c.machine)
		if ch.PerDevice != c.wantPer || ch.Machine != c.wantMach {
			t.Errorf("%d GPUs: %d on each, %d on the machine; want %d and %d", c.gpus, ch.PerDevice, ch.Machine, c.wantPer, c.wantMach)
		}
		if c.gpus > 1 && c.per > 1 && (!strings.Contains(ch.Why, "on the machine") || !strings.HasSuffix(ch.Why, "; 2 hardware queues")) {
			t.Errorf("%d GPUs: why %q", c.gpus, ch.Why)
		}
	}
	given := Choice{PerDevice: 16}
	given.Spread(4, true)
	if given.PerDevice != 16 || given.Machine != 0 {
		t.Errorf("--per-gpu 16 on 4 GPUs became %+v", given)
	}
}

// At most Machine runs at once over every device, whatever PerDevice.
func TestScheduleMachineCap(t *testing.T) {
	var mu sync.Mutex
	busy, most := 0, 0
	var items []*Item
	for range 40 {
		items = append(items, &Item{Name: "x",
			Build: func(context.Context, int) (bool, string) { return true, "built" },
			Run: func(context.Context, string, int, bool) (time.Duration, string) {
				mu.Lock()
				busy++
				most = max(most, busy)
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				busy--
				mu.Unlock()
				return time.Millisecond, ""
			}})
	}
	Schedule(context.Background(), items, Slots{Jobs: 4, Devices: []string{"0", "1", "2", "3"}, PerDevice: 4, Machine: 5})
	if most > 5 {
		t.Errorf("%d runs at once on the machine, want at most 5", most)
	}
}

// An item that needs two GPUs runs on two devices of the batch, named as
// CUDA_VISIBLE_DEVICES takes them; with one device it is not run, and
// NewItem's outcome says why (a *TooFewGPUs, no verdict), never a pass.
func TestScheduleSeveralGPUs(t *testing.T) {
	work := func(got *string) Work {
		return Work{GPUs: 2,
			Build: func(ctx context.Context, slot int) *Built { return &Built{Prog: "p"} },
			Run: func(ctx context.Context, b *Built, device string, slot int) (*Ran, error) {
				*got = device
				return &Ran{}, nil
			}}
	}
	var device string
	var outcome Outcome
	Schedule(context.Background(), []*Item{NewItem(work(&device), func(o Outcome) { outcome = o })}, Slots{Devices: []string{"0", "1"}})
	if device != "0,1" && device != "1,0" {
		t.Errorf("on two GPUs the run was given %q, want both", device)
	}
	if outcome.Ran == nil || outcome.RunErr != nil {
		t.Errorf("on two GPUs: %+v", outcome)
	}
	device, outcome = "", Outcome{}
	Schedule(context.Background(), []*Item{NewItem(work(&device), func(o Outcome) { outcome = o })}, Slots{Devices: []string{"3"}})
	var few *TooFewGPUs
	if device != "" || outcome.Ran != nil || !errors.As(outcome.RunErr, &few) || few.Need != 2 || few.Have != 1 {
		t.Fatalf("on one GPU: ran on %q, outcome %+v", device, outcome)
	}
	if !strings.Contains(few.Error(), "needs 2 GPUs") {
		t.Errorf("the reason: %q", few.Error())
	}
	if got := devicesFor(2, []string{"0", "1", "2"}, "2"); got != "2,0" {
		t.Errorf("two of three from the last: %q", got)
	}
}

// A run of two GPUs holds both: a timed run on the second has it to
// itself (the run of two waits, or waits for it), and a timed run of two
// GPUs has both to itself. Before, a run of two GPUs held only the GPU of
// its slot, and a timed exercise graded beside peer-pool shared its GPU.
func TestScheduleTimedBesideTwoGPUs(t *testing.T) {
	var mu sync.Mutex
	busy := map[string]int{}
	timedOn := map[string]bool{}
	shared := 0
	var items []*Item
	for i := range 30 {
		gpus, timed := 0, i%3 == 0
		if i%2 == 1 {
			gpus = 2
			timed = i%5 == 0
		}
		items = append(items, &Item{Name: fmt.Sprint(i), Timed: timed, GPUs: gpus,
			Build: func(context.Context, int) (bool, string) { return true, "built" },
			Run: func(_ context.Context, devs string, _ int, _ bool) (time.Duration, string) {
				ds := strings.Split(devs, ",")
				mu.Lock()
				for _, d := range ds {
					busy[d]++
					if timedOn[d] || timed && busy[d] > 1 {
						shared++
					}
					if timed {
						timedOn[d] = true
					}
				}
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				for _, d := range ds {
					busy[d]--
					if timed {
						timedOn[d] = false
					}
				}
				mu.Unlock()
				return time.Millisecond, ""
			}})
	}
	Schedule(context.Background(), items, Slots{Jobs: 2, Devices: []string{"0", "1", "2"}, PerDevice: 3, Machine: 5})
	if shared > 0 {
		t.Errorf("a timed run shared one of its GPUs %d times", shared)
	}
}

// SlotsOn is Spread then the slots it chose: what verify's three batches
// and grade run with; a --per-gpu given is left as it is.
func TestSlotsOn(t *testing.T) {
	devs := []string{"0", "1", "2", "3"}
	c := Choice{PerDevice: 16}
	s := c.SlotsOn(devs, 7, false)
	want := Choice{PerDevice: 16}
	want.Spread(len(devs), false)
	if s.Jobs != 7 || len(s.Devices) != 4 || s.PerDevice != want.PerDevice || s.Machine != want.Machine || c.PerDevice != want.PerDevice {
		t.Errorf("slots %+v, choice %+v; want the spread %+v", s, c, want)
	}
	g := Choice{PerDevice: 16}
	if s := g.SlotsOn(devs, 1, true); s.PerDevice != 16 || s.Machine != 0 {
		t.Errorf("a --per-gpu given: slots %+v", s)
	}
}

// testTrace is a grade's trace written to memory, and its events as
// read back (closing it first).
func testTrace(t *testing.T) (*tracer.Tracer, func() []tracer.Event) {
	var buf bytes.Buffer
	tr := NewTrace(&buf)
	return tr, func() []tracer.Event {
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
		var es []tracer.Event
		if err := json.Unmarshal(buf.Bytes(), &es); err != nil {
			t.Fatalf("the trace is not JSON: %v\n%s", err, buf.String())
		}
		return es
	}
}

// Take holds a GPU alone (no other run beside it) or beside the other
// runs (none alone beside them) until its release.
func TestGPUTake(t *testing.T) {
	var g GPU
	release := g.Take(true)
	if g.mu.TryRLock() {
		t.Fatal("a run beside a run alone")
	}
	release()
	r1, r2 := g.Take(false), g.Take(false)
	if g.mu.TryLock() {
		t.Fatal("a run alone beside two others")
	}
	r1()
	r2()
	if !g.mu.TryLock() {
		t.Fatal("the GPU still held after both released")
	}
	g.mu.Unlock()
}
