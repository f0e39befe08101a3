package gpu

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sight is what the driver showed of one watched run: its first process
// and every process that process started (by process group, cgroup or
// parentage), over the polls made while it was watched.
type Sight struct {
	// Seen: some poll listed one of the run's processes with a context.
	Seen bool
	// MaxBytes is the most GPU memory a poll saw the run's processes use
	// together (contexts included); 0 when never seen, or the driver gave
	// no figure.
	MaxBytes uint64
	// Pids are the run's processes that the driver listed.
	Pids []int
	// Polls is how many polls answered while the run was watched, and
	// MaxGap the longest time between two of them (from the watch's start
	// to its end included): how closely the run was looked at.
	Polls  int
	MaxGap time.Duration
	// Failed counts the polls that the driver did not answer.
	Failed int
	// SamePids says that the driver's process ids are this machine's:
	// lessons runs in the first pid namespace, or the driver has listed a
	// watched process before. Without it, "never seen" may only mean that
	// the driver speaks of other ids (a container).
	SamePids bool
}

// Watcher follows what the driver sees of runs. Sampler is the real one;
// Fake stands in for it in tests.
type Watcher interface {
	// Watch starts following the run whose first process is pid. The
	// function it returns stops that and says what was seen; it must be
	// called once the run is over. It is nil when the driver cannot be
	// watched here (no NVML): then nothing is known either way.
	Watch(pid int) func() Sight
}

// PollEvery is how often the Sampler asks the driver while a run is
// watched.
const PollEvery = 20 * time.Millisecond

// Sampler polls the driver's running-process list, PollEvery, while any
// run is watched, from one goroutine for all of them.
type Sampler struct {
	lister Lister
	// proc reads what /proc says of a process; tests replace it.
	proc     func(pid int) procInfo
	samePids bool
	every    time.Duration
	now      func() time.Time
	// manual: no goroutine polls; tests call poll.
	manual bool

	mu      sync.Mutex
	watches map[*watch]struct{}
	wake    chan struct{}
	running bool
	// started and finished number the polls; looked is told of each end.
	started, finished uint64
	looked            *sync.Cond
	waiting           int // lookAfter calls waiting for their poll
}

var _ Watcher = (*Sampler)(nil)

type watch struct {
	root, pgid int
	cgroup     string // "" when the run is in lessons' own
	known      map[int]bool
	lastPoll   time.Time
	s          Sight
}

// procInfo is what /proc says of a process: its parent, group and cgroup.
type procInfo struct {
	ok         bool
	ppid, pgid int
	cgroup     string
}

// NewSampler is a Sampler of lister. Its goroutine starts with the first
// watch and waits, without polling, while nothing is watched.
func NewSampler(lister Lister) *Sampler {
	s := &Sampler{lister: lister, proc: readProc, samePids: firstPidNamespace(), every: PollEvery, now: time.Now,
		watches: map[*watch]struct{}{}, wake: make(chan struct{}, 1)}
	s.looked = sync.NewCond(&s.mu)
	return s
}

var (
	driverOnce    sync.Once
	driverSampler *Sampler
	driverErr     error
)

// DriverSampler is this process's one Sampler of NVML, or why there is
// none (no driver here): then no run's figures are cross-checked.
func DriverSampler() (*Sampler, error) {
	driverOnce.Do(func() {
		var m *NVML
		if m, driverErr = OpenNVML(); driverErr == nil {
			driverSampler = NewSampler(m)
		}
	})
	return driverSampler, driverErr
}

// SamePids tells whether the driver's process ids are known to be those
// this process sees (see Sight.SamePids).
func (s *Sampler) SamePids() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samePids
}

// Background is a Watcher of this process's DriverSampler, opened in the
// background from its making (nvmlInit can take a while where the GPU is
// not kept initialised), so that a command's first build overlaps it.
type Background struct {
	done chan struct{}
	s    *Sampler
}

var _ Watcher = (*Background)(nil)

// NewBackground starts opening the DriverSampler.
func NewBackground() *Background {
	b := &Background{done: make(chan struct{})}
	go func() {
		b.s, _ = DriverSampler()
		close(b.done)
	}()
	return b
}

// Watch implements Watcher: it waits for NVML to be open, and is nil
// where it could not be.
func (b *Background) Watch(pid int) func() Sight {
	<-b.done
	if b.s == nil {
		return nil
	}
	return b.s.Watch(pid)
}

// Watch implements Watcher.
func (s *Sampler) Watch(pid int) func() Sight {
	w := &watch{root: pid, pgid: pid, known: map[int]bool{pid: true}}
	if info := s.proc(pid); info.ok {
		w.pgid = info.pgid
		if own := s.proc(os.Getpid()); info.cgroup != own.cgroup {
			w.cgroup = info.cgroup
		}
	}
	s.mu.Lock()
	w.lastPoll = s.now()
	s.watches[w] = struct{}{}
	if !s.running && !s.manual {
		s.running = true
		go s.loop()
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	var once sync.Once
	var out Sight
	return func() Sight {
		once.Do(func() {
			// One last look: a run that ended between two polls was
			// last seen up to a poll ago, and its gap ends now.
			s.lookAfter()
			s.mu.Lock()
			// The run's end is a moment too: if that last look did not
			// answer, the gap since the last one that did is the run's.
			if gap := s.now().Sub(w.lastPoll); gap > w.s.MaxGap {
				w.s.MaxGap = gap
			}
			delete(s.watches, w)
			out = w.s
			out.SamePids = out.SamePids || s.samePids
			s.mu.Unlock()
		})
		return out
	}
}

// lookAfter returns once a poll that began after it was called has
// ended. Runs that end together share that poll: the driver is asked
// once, not once for each (every question waits in the driver's lock
// with the CUDA starts of the whole machine).
func (s *Sampler) lookAfter() {
	if s.manual {
		s.poll()
		return
	}
	s.mu.Lock()
	want := s.started + 1
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.mu.Lock()
	s.waiting++
	for s.finished < want {
		s.looked.Wait()
	}
	s.waiting--
	s.mu.Unlock()
}

func (s *Sampler) loop() {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		s.mu.Lock()
		idle := len(s.watches) == 0
		s.mu.Unlock()
		if idle {
			<-s.wake
			continue
		}
		select {
		case <-t.C:
		case <-s.wake:
		}
		s.poll()
	}
}

// poll asks the driver once and credits every watched run with what it
// listed of the run's processes.
func (s *Sampler) poll() {
	s.mu.Lock()
	if len(s.watches) == 0 {
		s.mu.Unlock()
		return
	}
	s.started++
	n := s.started
	s.mu.Unlock()
	// The list is of some moment between start and end: the gap between
	// two lists is at most from the start of one to the end of the next,
	// which is what is counted, so a driver slow to answer widens it.
	start := s.now()
	procs, err := s.lister.Processes()
	end := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		s.finished = max(s.finished, n)
		if s.looked != nil {
			s.looked.Broadcast()
		}
	}()
	if err != nil {
		for w := range s.watches {
			w.s.Failed++
		}
		return
	}
	bytes := map[*watch]uint64{}
	for w := range s.watches {
		w.s.Polls++
		if gap := end.Sub(w.lastPoll); gap > w.s.MaxGap {
			w.s.MaxGap = gap
		}
		w.lastPoll = start
	}
	for _, p := range procs {
		for w := range s.watches {
			if !s.belongs(w, p.Pid) {
				continue
			}
			if !slices.Contains(w.s.Pids, p.Pid) {
				w.s.Pids = append(w.s.Pids, p.Pid)
			}
			w.s.Seen = true
			s.samePids = true
			if p.Bytes != Unknown {
				bytes[w] += p.Bytes
			}
		}
	}
	for w, b := range bytes {
		w.s.MaxBytes = max(w.s.MaxBytes, b)
	}
}

// belongs tells whether pid is the watched run's: its first process, one
// in its process group or cgroup, or a descendant of one of those.
func (s *Sampler) belongs(w *watch, pid int) bool {
	if known, ok := w.known[pid]; ok {
		return known
	}
	seen := map[int]bool{}
	p := pid
	for depth := 0; depth < 64 && p > 1 && !seen[p]; depth++ {
		seen[p] = true
		if w.known[p] {
			w.known[pid] = true
			return true
		}
		info := s.proc(p)
		if !info.ok {
			break
		}
		if info.pgid == w.pgid || (w.cgroup != "" && info.cgroup == w.cgroup) {
			w.known[pid] = true
			return true
		}
		p = info.ppid
	}
	// Remembered as foreign once its whole line of parents was read: a
	// process joins the run's family only by being born into it (a new
	// pid), and cannot join its group from another session. Every poll
	// would read the other runs' /proc entries again otherwise.
	if p <= 1 {
		w.known[pid] = false
	}
	return false
}

// readProc reads /proc/PID/stat (parent and group) and /proc/PID/cgroup.
func readProc(pid int) procInfo {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}
	}
	// The command's name, in parentheses, may hold spaces and ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procInfo{}
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 {
		return procInfo{}
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procInfo{}
	}
	cg, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return procInfo{ok: true, ppid: ppid, pgid: pgid, cgroup: strings.TrimSpace(string(cg))}
}

// initPidNamespace is the inode of the first pid namespace, fixed by the
// kernel (PROC_PID_INIT_INO).
const initPidNamespace = "pid:[4026531836]"

// firstPidNamespace tells whether this process sees the pids that the
// driver reports: those of the first pid namespace.
func firstPidNamespace() bool {
	ns, err := os.Readlink("/proc/self/ns/pid")
	return err == nil && ns == initPidNamespace
}

// Fake is a Watcher that answers from Sights, by pid, for tests.
type Fake struct {
	mu sync.Mutex
	// Sights are what each pid's watch returns; a pid not there returns
	// Default.
	Sights  map[int]Sight
	Default Sight
	// Off: no driver here; every watch is nil.
	Off bool
	// Watched lists the pids watched, in order.
	Watched []int
}

var _ Watcher = (*Fake)(nil)

// Watch implements Watcher.
func (f *Fake) Watch(pid int) func() Sight {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Watched = append(f.Watched, pid)
	if f.Off {
		return nil
	}
	s, ok := f.Sights[pid]
	if !ok {
		s = f.Default
	}
	return func() Sight { return s }
}
