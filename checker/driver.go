package checker

import (
	"fmt"
	"strings"
	"time"
)

// DriverView is what the GPU's driver showed of a run, from outside the
// program: the running-process list (NVML), polled while the run lasted.
// It is a second witness beside the statistics record, which the
// program's own address space holds while it runs.
type DriverView struct {
	// Pid is the run's first process.
	Pid int
	// Seen: the driver listed the run's process (or one it started) with
	// a GPU context at least once.
	Seen bool
	// MaxBytes is the most GPU memory the driver counted for the run's
	// processes in one look, their contexts' own included.
	MaxBytes uint64
	// Polls is how many looks answered during the run; MaxGap is the
	// longest time between two of them, the run's start and end included.
	Polls  int
	MaxGap time.Duration
	// SamePids: the driver's process ids are those lessons sees (it is
	// in the first pid namespace, or the driver has listed one of its runs
	// before). Without it nothing can be concluded from an absence.
	SamePids bool
}

// The rule's thresholds. A program that makes any CUDA call that
// succeeds has a context, and the driver lists it from the context's
// creation to its end. On the H100 (driver 580, CUDA 13) the shortest
// honest program there is (16 MiB allocated, one kernel, freed, exit)
// was listed for 149 to 186 ms (10 runs, polled every millisecond); a
// context cannot be missed by looks never more than half that apart.
// MinVisible keeps a third of the margin again: a run whose every moment,
// from its start to its end, was within MaxLookGap of an answered look
// cannot have had a context the driver never listed, however short the
// run (a program that exits in 5 ms was looked at twice, and had no
// time to make a context).
const (
	MinVisible = 100 * time.Millisecond
	MaxLookGap = MinVisible / 2
)

// UnaccountedBytes is how much more GPU memory than the record accounts
// for the driver may count before an instructor is told: a CUDA context's
// own (about 500 MiB on the H100 with CUDA 13), its growth with the
// kernels loaded, and the allocator's rounding, with room to spare.
const UnaccountedBytes = 2 << 30

// DriverCheckName is the name of the cross-check's result.
const DriverCheckName = "statistics match what the driver saw"

// CrossCheck compares a run's statistics record (nil when there was none)
// with the driver's view of it. The rule, conservative because polls miss
// what happens between them (short peaks, whole short-lived processes):
//
//   - Impossible, the run fails: the record claims what only a process with
//     a GPU context can do (device memory allocated and live, a pool that
//     reserved memory, physical memory created, a kernel launched with its
//     arguments read), and the driver never listed the run's process or
//     any it started, though it was looked at closely enough over the whole
//     run (no moment from its start to its end more than MaxLookGap from a
//     look that answered) and its process ids are ours. Such a record was
//     written, not recorded.
//   - For review, the run is not failed for it: the driver counted far more
//     GPU memory (UnaccountedBytes more) than the record accounts for, at
//     its peaks added up: memory taken around the statistics library
//     (the driver API, a static runtime, dlsym of the real runtime).
//   - Nothing else: a peak the record claims and the driver did not see
//     may have fallen between two looks, and the record has no times to
//     say when a figure held.
//
// Impossible is "" when nothing is; Note is "" when there is nothing to
// review; Got says what was compared, in words.
func CrossCheck(s *Stats, d *DriverView) (impossible, note, got string) {
	claims := gpuClaims(s)
	closely := d.SamePids && d.Polls > 0 && d.MaxGap <= MaxLookGap
	looked := fmt.Sprintf("%d looks over the run, at most %s apart", d.Polls, d.MaxGap.Round(time.Millisecond))
	switch {
	case d.Seen:
		got = fmt.Sprintf("the driver listed it with up to %s of GPU memory (%s)", mib(d.MaxBytes), looked)
	case !d.SamePids:
		got = "not checked: the driver's process ids are not this machine's (a container?), and no run has been listed yet"
	case !closely:
		got = "not checked: the driver never listed it, but was not looked at closely enough to say it had no GPU context (" + looked + ")"
	default:
		got = "the driver never listed it (" + looked + "): it had no GPU context"
	}
	if claims != "" && !d.Seen && closely {
		impossible = fmt.Sprintf("statistics do not match what the driver saw: the record claims %s, but the driver never listed process %d (or one it started) with a GPU context in %s", claims, d.Pid, looked)
	}
	if acc := accounted(s); d.Seen && d.MaxBytes > acc+UnaccountedBytes {
		note = fmt.Sprintf("the driver counted %s of GPU memory for this run, the statistics record accounts for %s: memory taken around the statistics library (the driver API, a static runtime, the real runtime reached with dlsym)?", mib(d.MaxBytes), mib(acc))
	}
	return impossible, note, got
}

// gpuClaims says in words what the record claims that needs a GPU
// context, or "" when it claims nothing of the kind. Only what succeeded
// counts: a failed call needs no context.
func gpuClaims(s *Stats) string {
	if s == nil {
		return ""
	}
	var parts []string
	if s.PeakLiveBytes > 0 {
		parts = append(parts, mib(s.PeakLiveBytes)+" of device memory live at its peak")
	}
	if v, _ := s.Value("pool_reserved_high"); v > 0 {
		parts = append(parts, mib(uint64(v))+" reserved by a pool")
	}
	if s.VMMCreateBytes > 0 {
		parts = append(parts, mib(s.VMMCreateBytes)+" of physical memory created")
	}
	if s.LaunchesInspected > 0 {
		parts = append(parts, fmt.Sprintf("%d kernel launches", s.LaunchesInspected))
	}
	return strings.Join(parts, ", ")
}

// accounted is the GPU memory the record accounts for at most: its
// peaks, added up as if they were at the same moment.
func accounted(s *Stats) uint64 {
	if s == nil {
		return 0
	}
	v, _ := s.Value("pool_reserved_high")
	return s.PeakLiveBytes + uint64(v) + s.VMMCreateBytes
}

func mib(b uint64) string {
	if b%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// judgeDriver is the cross-check's result for a run the driver watched.
func judgeDriver(r *Run) Result {
	impossible, note, got := CrossCheck(r.Stats, r.Driver)
	res := Result{Name: DriverCheckName, Pass: impossible == "", Got: got, Review: note,
		Want: "the figures of the record to be possible given what the GPU's driver saw of the program"}
	if impossible != "" {
		res.Got, res.Review = impossible, impossible
	}
	return res
}
