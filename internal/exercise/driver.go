package exercise

import (
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
// not watched. It may be called more than once.
func (d *driverWatch) view() *checker.DriverView {
	if d == nil || d.stop == nil {
		return nil
	}
	s := d.stop()
	return &checker.DriverView{Pid: d.pid, Seen: s.Seen, MaxBytes: s.MaxBytes, Polls: s.Polls, MaxGap: s.MaxGap, SamePids: s.SamePids}
}
