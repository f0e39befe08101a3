package grade

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/ui"
)

// Chosen says, for a start line, what was chosen without a flag and why.
func (c Choice) Chosen() string {
	if c.Why == "" {
		return ""
	}
	return " (chosen: " + c.Why + "; --per-gpu and --gpu-queues override)"
}

// Start is what a local grade of cl says before it starts: what runs
// where, how many at once and why, the sandbox and the driver's
// cross-check. perGPU is --per-gpu (0 when not given).
func (l *Local) Start(cl *Class, perGPU int) string {
	alone := ""
	switch {
	case len(l.Timed) > 0 && l.Choice.PerDevice > 1:
		alone = fmt.Sprintf(" (timed, so alone on theirs: %s)", strings.Join(l.Timed, ", "))
	case len(l.Timed) == 0 && perGPU == 1:
		// One at a time keeps the GPU quiet for timing checks; none here.
		alone = " (no exercise here is timed: without --per-gpu several run at once)"
	}
	if l.Choice.Machine > 0 {
		alone = fmt.Sprintf(", %d at a time on the machine", l.Choice.Machine) + alone
	}
	return fmt.Sprintf("Grading %s on %s: builds on %d cores, runs on %d GPU(s) (%s), %d at a time on each%s%s.\n%s",
		ui.Count(len(cl.Students), "student"), ui.Count(len(cl.Exercises), "exercise"), l.Jobs, len(l.Devices), strings.Join(l.Devices, ","),
		l.Choice.PerDevice, alone, l.Choice.Chosen(), l.Guards())
}

// Guards are the lines that say what guards this grade's runs: what the
// sandbox's probe found it holds, the driver cross-check and the outside
// witness, each on or off and why. A grade's start line and the class
// server's first lines print them.
// A Local whose runs are all on other machines (a class server's GPU
// pilots) has no witness of its own: their logs say it.
func (l *Local) Guards() string {
	s := fmt.Sprintf("Sandbox: %s.\nDriver cross-check: %s.\n", l.Sandbox.Report(), exercise.DriverCheckSummary())
	if l.rig.Witness != "" {
		s += fmt.Sprintf("Outside witness: %s.\n", l.rig.Witness)
	}
	return s
}

// Line sums up a grade run, its gradebook named book.
func (s *Summary) Line(book string) string {
	return fmt.Sprintf("%d graded in %s: %d passed, %d failed, %d missing, %d could not be graded; %d unchanged since the last run (skipped); %d builds.\nGradebook: %s (lessons grade export, lessons grade feedback)\n%s",
		s.Passed+s.Failed+s.Missing+s.Errors, s.Took.Round(10*time.Millisecond), s.Passed, s.Failed, s.Missing, s.Errors, s.Skipped, s.Builds, book, s.Limit())
}

// Limit says where a grade run's time went and what limited its speed:
// the builds' work over their slots, the runs' over theirs (each the
// least time it could have taken), the programs started a second, and
// the runs made again alone; "" when nothing was built or run.
func (s *Summary) Limit() string {
	if s.BuildWork == 0 && s.RunWork == 0 {
		return ""
	}
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	buildFloor := s.BuildWork / time.Duration(max(s.BuildSlots, 1))
	runFloor := s.RunWork / time.Duration(max(s.RunSlots, 1))
	var b strings.Builder
	fmt.Fprintf(&b, "Time: %s of builds on %d at once (%s at least), %s of runs on %d at once (%s at least)",
		secs(s.BuildWork), s.BuildSlots, secs(buildFloor), secs(s.RunWork), s.RunSlots, secs(runFloor))
	if s.Took > 0 && s.Programs > 0 {
		fmt.Fprintf(&b, ", %d programs started (%.1f a second)", s.Programs, float64(s.Programs)/s.Took.Seconds())
	}
	if s.RunsAgain > 0 {
		fmt.Fprintf(&b, ", %s made again alone on the machine (stopped while waiting in the GPU's driver, or failed only checks the machine's load can change)", ui.Count(s.RunsAgain, "run"))
	}
	switch {
	case runFloor >= buildFloor:
		b.WriteString(": the runs set the pace (each program's CUDA start and its calls into the driver, which on four H200s served four GPUs hardly faster than one; a student's endless loop holds its slot until its time limit)")
	default:
		b.WriteString(": the builds set the pace (nvcc, on the cores given by --jobs)")
	}
	b.WriteString(".\n")
	return b.String()
}

// DoctorRows are what lessons doctor says of grading here, beside the
// machine's GPUs and tools: the sandbox, the driver's cross-check and
// the pace.
func DoctorRows() [][2]string {
	return [][2]string{
		{"grading sandbox", exercise.Probe().Brief()},
		{"driver cross-check", exercise.DriverCheckSummary()},
		{"outside witness", exercise.WitnessDoctor()},
		{"grading pace", MachinePace()},
	}
}

// MachinePace is Pace for this machine: its GPUs (as CUDA_VISIBLE_DEVICES
// leaves them) and its cores.
func MachinePace() string { return Pace(machineGPUs(), runtime.NumCPU()) }

// MachinePerGPU is how many runs at once a grade gives each GPU of this
// machine when no flag says (lessons doctor --pace measures starts so).
func MachinePerGPU() int { return choiceFor(max(machineGPUs(), 1), runtime.NumCPU()).PerDevice }

// machineGPUs is the GPUs of this machine as CUDA_VISIBLE_DEVICES leaves
// them, 0 without any.
func machineGPUs() int {
	if info, err := machine.Prober().Probe(false); err == nil && len(info.Devices) > 0 {
		return len(machine.Devices(len(info.Devices)))
	}
	return 0
}

// choiceFor is the runs at once a grade chooses on gpus GPUs and cores
// cores when no flag says.
func choiceFor(gpus, cores int) Choice {
	c := Choice{PerDevice: 1}
	if per := perDeviceFor(cores); per > 1 {
		c.PerDevice = per
		c.spread(gpus, machineRuns(cores))
	}
	return c
}

// Pace says, for lessons doctor, how a class would be graded on a
// machine of gpus GPUs and cores cores when no flag says, and what
// limits its speed.
func Pace(gpus, cores int) string {
	if gpus < 1 {
		return "no GPU: lessons grade builds, but cannot run"
	}
	c := choiceFor(gpus, cores)
	at := c.PerDevice * gpus
	if c.Machine > 0 {
		at = c.Machine
	}
	return fmt.Sprintf("%d builds at once (one a core; nvcc takes 1 to 2 s a file), %d runs at once (%d on each of %s); the runs set the pace of most classes: CUDA starts and calls into the driver (on four H200s, 64 runs at once on four GPUs graded a class only 1.1 times as fast as 16 on one, some runs asleep in the driver's lock), so more GPUs make room for long runs and timed exercises more than for starts",
		cores, at, c.PerDevice, ui.Count(gpus, "GPU"))
}

// Progress draws done/total, rate and time left on a terminal, and a
// line per graded file elsewhere: Done is Options.Done.
type Progress struct {
	w     io.Writer
	tty   bool
	total int
	n     int
	start time.Time
}

// NewProgress draws the progress of total files to w, a terminal or not.
func NewProgress(w io.Writer, tty bool, total int) *Progress {
	return &Progress{w: w, tty: tty, total: total, start: time.Now()}
}

// Done counts a file graded (or skipped, unchanged since the last run).
func (p *Progress) Done(a *gradebook.Attempt, skipped bool) {
	p.n++
	el := time.Since(p.start)
	rate := float64(p.n) / el.Seconds()
	left := time.Duration(float64(p.total-p.n) / max(rate, 1e-9) * float64(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s %d/%d  %.1f/s  %s left ", ui.Bar(p.n, p.total, 30), p.n, p.total, rate, left.Round(time.Second))
		return
	}
	what := a.Status
	if skipped {
		what = "unchanged, " + a.Status
	}
	fmt.Fprintf(p.w, "[%d/%d] %s %s: %s %d/%d\n", p.n, p.total, a.Student, a.Exercise, what, a.Points, a.MaxPoints)
}

// Finish ends the bar's line on a terminal.
func (p *Progress) Finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
