package exercise

import (
	"fmt"
	"os"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/gpu"
)

// driverWatch follows what the GPU's driver sees of one run, when the
// toolkit has a watcher: nil otherwise, and then every method does
// nothing.
type driverWatch struct {
	w    gpu.Watcher
	pid  int
	stop func() gpu.Sight
}

func (tk *Toolkit) watchDriver() *driverWatch {
	if tk.Driver == nil {
		return nil
	}
	return &driverWatch{w: tk.Driver}
}

// started is runner.Spec.Started: the watch begins as the program does.
func (d *driverWatch) started(pid int) {
	if d != nil {
		d.pid, d.stop = pid, d.w.Watch(pid)
	}
}

// view ends the watch and says what the driver saw; nil when the run was
// not watched (no driver here). It may be called more than once.
func (d *driverWatch) view() *checker.DriverView {
	if d == nil || d.stop == nil {
		return nil
	}
	s := d.stop()
	return &checker.DriverView{Pid: d.pid, Seen: s.Seen, MaxBytes: s.MaxBytes, Polls: s.Polls, MaxGap: s.MaxGap, SamePids: s.SamePids}
}

// DriverWatcher is the Toolkit's Driver for a command that judges runs:
// this machine's driver, opened in the background, or nil when
// LESSONS_DRIVER_CHECK=off. Where there is no NVML, its watches are nil
// and runs are judged as without it.
func DriverWatcher() gpu.Watcher {
	if driverCheckOff() {
		return nil
	}
	return gpu.NewBackground()
}

func driverCheckOff() bool {
	switch os.Getenv("LESSONS_DRIVER_CHECK") {
	case "off", "none", "0":
		return true
	}
	return false
}

// DriverCheck is the watcher for the cross-check of statistics records
// against the driver on this machine, or nil and why there is none: no
// NVML (no NVIDIA driver, as on CI), or LESSONS_DRIVER_CHECK=off.
func DriverCheck() (gpu.Watcher, string) {
	if driverCheckOff() {
		return nil, "turned off by LESSONS_DRIVER_CHECK=off"
	}
	s, err := gpu.DriverSampler()
	if err != nil {
		return nil, err.Error()
	}
	return s, ""
}

// DriverCheckSummary says in a line whether runs' statistics are
// cross-checked against the driver here, and why not.
func DriverCheckSummary() string {
	w, why := DriverCheck()
	if w == nil {
		return "off (" + why + "): statistics records are not compared with what the driver sees"
	}
	s := fmt.Sprintf("on: NVML's running-process list, read every %s during each run (read only: no setting of the GPU changes)", gpu.PollEvery)
	if sm, ok := w.(*gpu.Sampler); ok && !sm.SamePids() {
		s += "; lessons is not in the first pid namespace, so an absence counts only once the driver has listed one of its runs"
	}
	return s
}
