package grade

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/tracer"
)

// maxLoadAgain is how many runs of a grade are made again alone because
// they failed only checks the machine's load can change (a run alone
// holds the whole machine; a class of wrong programs that serialise
// their streams would otherwise be graded one by one).
const maxLoadAgain = 32

// Item is one build and run of a batch: a student's file (grade), a
// solution, an exercise or a lesson (verify).
type Item struct {
	// Name and Args label the item's spans in the trace.
	Name string
	Args map[string]string
	// Timed items' runs have their GPU to themselves.
	Timed bool
	// Build builds the item on a build slot and says whether there is a
	// run to make (false: it did not build, or it was judged already),
	// and, for the trace, what came of it ("": it built nothing, as an
	// item whose build another item shared; no span is drawn).
	Build func(ctx context.Context, slot int) (run bool, outcome string)
	// Run runs the built item on a GPU (as CUDA_VISIBLE_DEVICES names
	// it), on a run slot of its own, alone on the machine when alone is
	// set; it returns how long the program itself ran, for the trace (0:
	// unknown), and again: why the run must be made once more alone
	// ("" when it was judged). A run made alone is judged whatever came
	// of it; again then says that it stalled even so.
	Run func(ctx context.Context, device string, slot int, alone bool) (took time.Duration, again string)
	// Group is whose item it is (a student): once a run of the group,
	// made again alone, stalls even so, the group's other runs that ask
	// are judged as they came (Settle), not made again. "" for none.
	Group string
	// Settle judges an item whose run asked to be made again as it
	// came, with why it was not made again.
	Settle func(why string)
	// GPUs is how many GPUs a run needs (0: one). Where the batch has
	// fewer, the item is not run: Unrun is told why (a *TooFewGPUs).
	GPUs  int
	Unrun func(err error)
}

// TooFewGPUs says that a run was not made: it needs more GPUs than the
// batch has. It is no verdict on the program.
type TooFewGPUs struct{ Need, Have int }

func (e *TooFewGPUs) Error() string {
	return fmt.Sprintf("not run: it needs %d GPUs that can reach each other's memory, and this machine gives %d; run it on a machine with %d", e.Need, e.Have, e.Need)
}

// devicesFor is what a run needing n GPUs is given on a slot of device
// dev: dev and the devices after it in all, wrapping round, joined as
// CUDA_VISIBLE_DEVICES takes them.
func devicesFor(n int, all []string, dev string) string {
	if n <= 1 {
		return dev
	}
	at := 0
	for i, d := range all {
		if d == dev {
			at = i
		}
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, all[(at+i)%len(all)])
	}
	return strings.Join(out, ",")
}

// Slots are how a batch shares the machine.
type Slots struct {
	Jobs      int      // builds at once
	Devices   []string // the GPUs, as CUDA_VISIBLE_DEVICES names them
	PerDevice int      // runs at once on each GPU
	// Machine is the most runs at once on the whole machine, over every
	// GPU (0: PerDevice on each, no more): CUDA starts wait in the
	// driver's lock, and on four H200s they hardly scaled with the GPUs.
	Machine int
	Trace   *tracer.Tracer // when set, records each build and run
}

// Schedule builds every item on Jobs slots and runs each, as soon as its
// own build is done, on the first free run slot: PerDevice on each
// device, where a timed item's run waits for its GPU to itself (and the
// others wait for it). An item whose run asks to be made again (it was
// stopped while waiting in the GPU's driver, perhaps for its neighbours)
// runs once more after every other run has ended, alone on the machine,
// one such run at a time. Once ctx is done nothing more is started.
func Schedule(ctx context.Context, items []*Item, s Slots) {
	s.Jobs = max(s.Jobs, 1)
	s.PerDevice = max(s.PerDevice, 1)
	if len(s.Devices) == 0 {
		s.Devices = []string{"0"}
	}
	buildQ := make(chan *Item)
	runQ := make(chan *Item, len(items))
	var bwg sync.WaitGroup
	for slot := range s.Jobs {
		bwg.Add(1)
		go func() {
			defer bwg.Done()
			for it := range buildQ {
				if ctx.Err() != nil {
					continue // stopped: drain
				}
				began := time.Now()
				run, outcome := it.Build(ctx, slot)
				if outcome != "" {
					span(s.Trace, "build", tracePIDBuilds, slot, it.Name, began, time.Now(), withArgs(it.Args, "outcome", outcome))
				}
				if run && it.Run != nil && ctx.Err() == nil {
					if it.GPUs > len(s.Devices) {
						if it.Unrun != nil {
							it.Unrun(&TooFewGPUs{Need: it.GPUs, Have: len(s.Devices)})
						}
						continue
					}
					runQ <- it
				}
			}
		}()
	}
	go func() {
		for _, it := range items {
			select {
			case buildQ <- it:
			case <-ctx.Done():
			}
		}
		close(buildQ)
		bwg.Wait()
		close(runQ)
	}()
	type retry struct {
		it  *Item
		dev string
		why string
	}
	var again []retry
	var againMu sync.Mutex
	var machine chan struct{} // a token for each run at once on the machine
	if s.Machine > 0 && s.Machine < len(s.Devices)*s.PerDevice {
		machine = make(chan struct{}, s.Machine)
	}
	var rwg sync.WaitGroup
	slot := 0
	gpus := map[string]*GPU{}
	for _, dev := range s.Devices {
		gpus[dev] = new(GPU)
	}
	for _, dev := range s.Devices {
		for range s.PerDevice {
			rwg.Add(1)
			go func(dev string, slot int) {
				defer rwg.Done()
				for it := range runQ {
					if ctx.Err() != nil {
						continue // drain: nothing half-judged is recorded
					}
					var began, ended time.Time // while the GPU is ours
					var took time.Duration
					var why string
					if machine != nil {
						machine <- struct{}{}
					}
					devs := devicesFor(it.GPUs, s.Devices, dev)
					useAll(gpus, s.Devices, devs, it.Timed, func() {
						began = time.Now()
						took, why = it.Run(ctx, devs, slot, false)
						ended = time.Now()
					})
					if machine != nil {
						<-machine
					}
					span(s.Trace, "run", tracePIDRuns, slot, it.Name, began, ended, runArgs(it, dev, took, why))
					if why != "" {
						againMu.Lock()
						again = append(again, retry{it, dev, why})
						againMu.Unlock()
					}
				}
			}(dev, slot)
			slot++
		}
	}
	rwg.Wait()
	// Every other run has ended: each run made again has the machine,
	// every GPU and the driver's locks, to itself. A program can stall
	// in the driver on purpose, for a run alone: each group (a student)
	// has its runs made again only until one stalls even alone.
	// A run that failed only checks the load can change (how many
	// streams ran at once) is made again too, but at most once a group
	// and maxLoadAgain times a grade: a wrong program fails them alone
	// as well, and each run alone holds the machine.
	stalledAlone := map[string]bool{}
	loadAgain, loadGroup := 0, map[string]bool{}
	for _, r := range again {
		if ctx.Err() != nil {
			break
		}
		if r.it.Group != "" && stalledAlone[r.it.Group] {
			r.it.Settle("another run of " + r.it.Group + "'s stalled in the GPU's driver even alone on the machine")
			continue
		}
		if strings.HasPrefix(r.why, checker.LoadFailure) {
			switch {
			case r.it.Group != "" && loadGroup[r.it.Group]:
				r.it.Settle("another run of " + r.it.Group + "'s was made again alone for the same reason")
				continue
			case loadAgain >= maxLoadAgain:
				r.it.Settle(fmt.Sprintf("%d runs of this grade were already made again alone for the same reason", maxLoadAgain))
				continue
			}
			loadAgain++
			if r.it.Group != "" {
				loadGroup[r.it.Group] = true
			}
		}
		began := time.Now()
		took, still := r.it.Run(ctx, devicesFor(r.it.GPUs, s.Devices, r.dev), 0, true)
		if still != "" && r.it.Group != "" {
			stalledAlone[r.it.Group] = true
		}
		args := runArgs(r.it, r.dev, took, "")
		args["alone"] = "again, after: " + r.why
		span(s.Trace, "run", tracePIDRuns, 0, r.it.Name, began, time.Now(), args)
	}
}

func runArgs(it *Item, dev string, took time.Duration, again string) map[string]string {
	args := withArgs(it.Args, "device", dev)
	if took > 0 {
		args["program_ms"] = fmt.Sprint(took.Milliseconds())
	}
	if again != "" {
		args["again"] = again
	}
	return args
}

func withArgs(args map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// useAll runs run on every GPU of devs (as devicesFor joins them): a
// run of several GPUs (gpus = 2) holds each of them as a run on one
// holds its own, so that a timed run has its GPU to itself even beside
// a run of two GPUs that reaches it from the one before, and a timed run
// of two GPUs has both. The GPUs are taken in the batch's order (all),
// whatever the order of devs, so that two runs never wait for each other.
func useAll(gpus map[string]*GPU, all []string, devs string, alone bool, run func()) {
	mine := map[string]bool{}
	for _, d := range strings.Split(devs, ",") {
		mine[d] = true
	}
	for i := len(all) - 1; i >= 0; i-- {
		if g, inner := gpus[all[i]], run; mine[all[i]] && g != nil {
			run = func() { g.Use(alone, inner) }
		}
	}
	run()
}

// GPU lets the runs on one GPU share it, except a timed item's run,
// which waits for the GPU to itself (and the others wait for it).
type GPU struct{ mu sync.RWMutex }

// Use runs run on the GPU: alone, or beside the other runs.
func (g *GPU) Use(alone bool, run func()) {
	defer g.Take(alone)()
	run()
}

// Take holds the GPU, alone or beside the other runs, until release is
// called: Use for a caller that runs its program itself (the class
// server), with no callback handed down.
func (g *GPU) Take(alone bool) (release func()) {
	if alone {
		g.mu.Lock()
		return g.mu.Unlock
	}
	g.mu.RLock()
	return g.mu.RUnlock
}

// autoPerDevice is how many runs share a GPU when no flag says: CUDA
// starts about 10 processes a second on an H100 with 8 or 16 at once (and
// fewer with fewer), so 16, that a run waiting for its time limit (a
// student's endless loop) leaves the others most of the slots; but no
// more than the cores, since each start is host work, and on a machine of
// fewer than minSharedCores one at a time: there a run beside another (or
// beside a student's loop) would have no core of its own, and the builds
// none left. A timed item still has its GPU to itself.
func autoPerDevice() int { return perDeviceFor(runtime.NumCPU()) }

// minSharedCores is the fewest cores on which runs share a GPU by default.
const minSharedCores = 4

func perDeviceFor(cores int) int {
	if cores < minSharedCores {
		return 1
	}
	return min(16, cores)
}

// autoQueues is the hardware queues (CUDA_DEVICE_MAX_CONNECTIONS) of an
// untimed item's program when no flag says: with 2, CUDA starts about 10
// processes a second on an H100 against 3.5 with CUDA's default of 8.
// Streams beyond 2 share a queue, which changes timings, not results, so
// a timed item keeps CUDA's default.
const autoQueues = 2

// Choice is how a batch runs on the GPUs, and why.
type Choice struct {
	PerDevice int
	// Machine is the most runs at once over all the GPUs (Slots.Machine;
	// 0: no more than PerDevice on each).
	Machine int
	// Queues and TimedQueues are the hardware queues of untimed and timed
	// items' programs; 0 leaves CUDA's default (8).
	Queues, TimedQueues int
	Why                 string
}

// Choose picks runs per GPU and hardware queues for a batch of untimed
// and timed items: perDevice and queues as given when above 0 (the
// flags), else from what the batch runs. kept names, for Why, what keeps
// CUDA's queues ("the timed ones"), "" for nothing.
func Choose(perDevice, queues, untimed, timed int, kept string) Choice {
	items := untimed + timed
	c := Choice{PerDevice: perDevice, Queues: queues, TimedQueues: queues}
	var why []string
	if perDevice <= 0 {
		c.PerDevice = 1
		switch n := autoPerDevice(); {
		case items > timed && n > 1:
			c.PerDevice = n
			why = append(why, fmt.Sprintf("%d at a time (untimed runs share a GPU; CUDA starts overlap)", n))
		case items > timed:
			why = append(why, fmt.Sprintf("1 at a time (%d cores: a run beside another would have no core of its own)", runtime.NumCPU()))
		default:
			why = append(why, "1 at a time (every run is timed)")
		}
	}
	if timed > 0 && c.PerDevice > 1 {
		why = append(why, "timed exercises alone on their GPU")
	}
	if queues <= 0 {
		c.TimedQueues = 0
		if items > timed {
			c.Queues = autoQueues
			q := fmt.Sprintf("%d hardware queues (CUDA starts faster)", autoQueues)
			if kept != "" {
				q = fmt.Sprintf("%d hardware queues for the untimed (CUDA starts faster), CUDA's 8 for %s", autoQueues, kept)
			}
			why = append(why, q)
		}
	}
	c.Why = strings.Join(why, "; ")
	return c
}

// ChooseFor is Choose for a grade's tasks, the timed among them keeping
// CUDA's queues.
func ChooseFor(perDevice, queues int, tasks []*Task) Choice {
	_, timed := Timed(tasks)
	kept := ""
	if timed > 0 {
		kept = "the timed"
	}
	return Choose(perDevice, queues, len(tasks)-timed, timed, kept)
}

// machineRuns is how many runs at once a machine keeps over all its GPUs
// when no flag says: CUDA starts (and the other calls into the driver)
// behave as if they waited in one lock for the whole machine, not one
// per GPU (bench/cudastarts.sh tells which; not yet run on four GPUs).
// On a machine of four H200s, 16 runs at once on each GPU, 64 in all,
// graded no faster than 16 on one GPU (207 s against 229 s), and 122 of
// 672 correct runs were stopped at their time limit asleep in that lock
// (issue 44); 16 at once on one of them graded every run right.
func machineRuns(cores int) int { return perDeviceFor(cores) }

// minSpread is the fewest runs at once on each GPU of a machine whose
// runs are spread over its GPUs: a student's endless loop holds its slot
// until its time limit, and the others go on beside it.
const minSpread = 2

// Spread spreads the choice over n GPUs when the runs per GPU were chosen
// (given is false: no --per-gpu): at most machineRuns at once on the
// whole machine, as evenly as can be over its GPUs.
func (c *Choice) Spread(n int, given bool) {
	if !given {
		c.spread(n, machineRuns(runtime.NumCPU()))
	}
}

// SlotsOn spreads the choice over devices (Spread) and returns the slots
// a batch runs in: what grade, verify's course, its mutants and its wrong
// answers all run with.
func (c *Choice) SlotsOn(devices []string, jobs int, given bool) Slots {
	c.Spread(len(devices), given)
	return Slots{Jobs: jobs, Devices: devices, PerDevice: c.PerDevice, Machine: c.Machine}
}

func (c *Choice) spread(n, m int) {
	if n <= 1 || c.PerDevice <= 1 {
		return
	}
	c.PerDevice = max(minSpread, min(c.PerDevice, (m+n-1)/n))
	if c.PerDevice*n > m {
		c.Machine = m
	}
	why := fmt.Sprintf("%d at a time on the machine, %d on each of its %d GPUs (more at once wait in the driver's lock: four H200s served 64 at once hardly faster than one served 16)", min(m, c.PerDevice*n), c.PerDevice, n)
	if i := strings.Index(c.Why, ";"); i >= 0 {
		c.Why = why + c.Why[i:]
	} else {
		c.Why = why
	}
}
