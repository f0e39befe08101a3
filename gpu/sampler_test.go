package gpu

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fakeLister answers each poll with the next of its lists.
type fakeLister struct {
	lists [][]Proc
	err   error
	n     int
}

func (f *fakeLister) Processes() ([]Proc, error) {
	if f.err != nil {
		return nil, f.err
	}
	var l []Proc
	if f.n < len(f.lists) {
		l = f.lists[f.n]
	}
	f.n++
	return l, nil
}

// fakeClock moves by step each time it is read.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

// family is a process table: 100 is the watched run (its own group), 101
// its child in the group, 102 a grandchild that left the group (setsid),
// 200 a stranger, 300 in the run's cgroup but no relative.
var family = map[int]procInfo{
	100: {ok: true, ppid: 1, pgid: 100, cgroup: "0::/run7"},
	101: {ok: true, ppid: 100, pgid: 100, cgroup: "0::/run7"},
	102: {ok: true, ppid: 101, pgid: 102, cgroup: "0::/other"},
	200: {ok: true, ppid: 1, pgid: 200, cgroup: "0::/other"},
	300: {ok: true, ppid: 1, pgid: 300, cgroup: "0::/run7"},
}

func testSampler(l Lister, table map[int]procInfo) *Sampler {
	s := NewSampler(l)
	s.manual = true
	s.samePids = false
	clock := &fakeClock{t: time.Unix(0, 0), step: 10 * time.Millisecond}
	s.now = clock.now
	s.proc = func(pid int) procInfo {
		if info, ok := table[pid]; ok {
			return info
		}
		return procInfo{ok: true, ppid: 1, pgid: pid, cgroup: "0::/lessons"}
	}
	return s
}

func TestSamplerFamily(t *testing.T) {
	l := &fakeLister{lists: [][]Proc{
		{{Pid: 200, Bytes: 900 << 20}},
		{{Pid: 101, Bytes: 500 << 20}, {Pid: 200, Bytes: 900 << 20}},
		{{Pid: 101, Bytes: 520 << 20}, {Pid: 102, Bytes: 600 << 20, Device: 1}, {Pid: 300, Bytes: 10 << 20}},
		{},
	}}
	s := testSampler(l, family)
	stop := s.Watch(100)
	for range 3 {
		s.poll()
	}
	got := stop()
	if !got.Seen || got.MaxBytes != (520+600+10)<<20 {
		t.Errorf("seen %v, max %d MiB; want seen, 1130 MiB (the child, the grandchild that left the group, the cgroup's)", got.Seen, got.MaxBytes>>20)
	}
	// The clock moves 10ms a reading: a poll reads it before and after
	// asking, so two lists are at most 30ms apart.
	if len(got.Pids) != 3 || got.Polls != 4 || got.MaxGap != 30*time.Millisecond {
		t.Errorf("pids %v, polls %d, gap %v; want 3 pids, 4 polls (the last one at stop), 30ms", got.Pids, got.Polls, got.MaxGap)
	}
	if !got.SamePids {
		t.Error("a watched process was listed: the driver's pids are this machine's")
	}
}

func TestSamplerNeverSeen(t *testing.T) {
	l := &fakeLister{lists: [][]Proc{{{Pid: 200, Bytes: 900 << 20}}, {{Pid: 200, Bytes: 900 << 20}}}}
	s := testSampler(l, family)
	stop := s.Watch(100)
	s.poll()
	got := stop()
	if got.Seen || got.MaxBytes != 0 || len(got.Pids) != 0 || got.Polls != 2 {
		t.Errorf("sight = %+v, want never seen over 2 polls", got)
	}
	if got.SamePids {
		t.Error("nothing proves the driver's pids are ours, and this is not the first pid namespace")
	}
	if again := stop(); again.Polls != got.Polls {
		t.Error("a second stop polled again")
	}
}

func TestSamplerTwoRuns(t *testing.T) {
	l := &fakeLister{lists: [][]Proc{{{Pid: 100, Bytes: 5 << 20}, {Pid: 200, Bytes: 7 << 20}}}}
	s := testSampler(l, family)
	a, b := s.Watch(100), s.Watch(200)
	s.poll()
	ga, gb := a(), b()
	if ga.MaxBytes != 5<<20 || gb.MaxBytes != 7<<20 {
		t.Errorf("runs were credited with each other's memory: %d, %d", ga.MaxBytes, gb.MaxBytes)
	}
}

func TestSamplerUnknownBytesAndFailures(t *testing.T) {
	s := testSampler(&fakeLister{lists: [][]Proc{{{Pid: 100, Bytes: Unknown}}}}, family)
	stop := s.Watch(100)
	s.poll()
	if got := stop(); !got.Seen || got.MaxBytes != 0 {
		t.Errorf("sight = %+v, want seen with no figure", got)
	}
	s = testSampler(&fakeLister{err: errors.New("GPU is lost")}, family)
	stop = s.Watch(100)
	s.poll()
	if got := stop(); got.Failed != 2 || got.Polls != 0 || got.MaxGap < 20*time.Millisecond {
		t.Errorf("sight = %+v, want 2 failed polls, none answered, and the whole run as the gap", got)
	}
}

func TestFake(t *testing.T) {
	f := &Fake{Sights: map[int]Sight{7: {Seen: true, MaxBytes: 1}}, Default: Sight{Polls: 3}}
	if f.Watch(7)().MaxBytes != 1 || f.Watch(8)().Polls != 3 || len(f.Watched) != 2 {
		t.Errorf("fake = %+v", f)
	}
}

func TestReadProc(t *testing.T) {
	info := readProc(1)
	if !info.ok {
		t.Skip("no /proc here")
	}
	self := readProc(os.Getpid())
	if !self.ok || self.ppid <= 0 || self.pgid <= 0 {
		t.Errorf("readProc(self) = %+v", self)
	}
}

func TestBackgroundWithoutNVML(t *testing.T) {
	if _, err := DriverSampler(); err == nil {
		t.Skip("NVML is here")
	}
	if stop := NewBackground().Watch(os.Getpid()); stop != nil {
		t.Error("a watch without NVML is not nil")
	}
}

// gate answers a poll only once let go, and counts the polls.
type gate struct {
	mu    sync.Mutex
	polls int
	hold  chan struct{}
}

func (g *gate) Processes() ([]Proc, error) {
	g.mu.Lock()
	g.polls++
	first := g.polls == 1
	g.mu.Unlock()
	if first {
		<-g.hold
	}
	return nil, nil
}

// Runs that end together share their last look: while one poll is
// answered, the eight runs that end ask for one poll after it, not eight,
// and each returns only once a poll that began after its end has ended.
func TestLastLooksAreShared(t *testing.T) {
	g := &gate{hold: make(chan struct{})}
	s := NewSampler(g)
	s.every = time.Hour // no tick: only the wakes poll
	s.proc = func(pid int) procInfo { return procInfo{ok: true, ppid: 1, pgid: pid} }
	var stops []func() Sight
	for pid := 1000; pid < 1008; pid++ {
		stops = append(stops, s.Watch(pid))
	}
	// The first Watch's wake started a poll, held in the driver.
	for s.polling() == 0 {
		runtime.Gosched()
	}
	var wg sync.WaitGroup
	for _, stop := range stops {
		wg.Add(1)
		go func() { defer wg.Done(); stop() }()
	}
	for s.waiters() < len(stops) {
		runtime.Gosched()
	}
	close(g.hold)
	wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.polls != 2 {
		t.Errorf("%d polls for 8 runs ending together while one was answered, want 2", g.polls)
	}
}

func (s *Sampler) polling() uint64 { s.mu.Lock(); defer s.mu.Unlock(); return s.started }
func (s *Sampler) waiters() int    { s.mu.Lock(); defer s.mu.Unlock(); return s.waiting }
