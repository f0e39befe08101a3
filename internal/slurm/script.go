package slurm

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Options are the cluster's side of a grade: where and how the tasks run.
// course.toml's [grade.slurm] gives them (the keys are the toml tags;
// the others come only from flags), and flags override them.
type Options struct {
	BuildPartition string   `toml:"build_partition" flag:"build-partition"` // the CPU partition of the build tasks ("" the cluster's default)
	RunPartition   string   `toml:"partition" flag:"partition"`             // the GPU partition of the run tasks
	Account        string   `toml:"account" flag:"account"`                 // --account
	QOS            string   `toml:"qos" flag:"qos"`                         // --qos
	Time           string   `toml:"time" flag:"time"`                       // each task's time limit, in Slurm's words (30:00, 1-00:00:00)
	ItemsPerTask   int      `toml:"items_per_task" flag:"items-per-task"`   // (student, exercise) runs per run task
	BuildsPerTask  int      `toml:"builds_per_task" flag:"builds-per-task"` // distinct files per build task
	BuildCPUs      int      `toml:"-"`                                      // cores of a build task (its parallel builds)
	Throttle       int      `toml:"throttle" flag:"throttle"`               // tasks of an array at once (the array's %N); 0 for no limit
	Gres           string   `toml:"gres" flag:"gres"`                       // what a run task asks for (gpu:1)
	PerGPU         int      `toml:"-"`                                      // runs at once on a run task's GPU (a timed exercise's still alone); 0 to choose
	Queues         int      `toml:"-"`                                      // CUDA_DEVICE_MAX_CONNECTIONS of each run (0: CUDA's default)
	Extra          []string `toml:"sbatch_args" flag:"sbatch-arg"`          // more sbatch arguments, each as one #SBATCH line
}

// Flags are the names of the flags that set options (the flag tags):
// a grade's flags override the course's [grade.slurm] by them.
func Flags() []string {
	var names []string
	t := reflect.TypeFor[Options]()
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("flag"); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// Override is o with each option whose flag changed says is given taken
// from given instead; sbatch arguments given are added to o's.
func (o Options) Override(given Options, changed func(flag string) bool) Options {
	o.Extra = slices.Clone(o.Extra)
	ov, gv := reflect.ValueOf(&o).Elem(), reflect.ValueOf(given)
	for i := range ov.NumField() {
		name := ov.Type().Field(i).Tag.Get("flag")
		switch {
		case name == "" || !changed(name):
		case ov.Field(i).Kind() == reflect.Slice:
			ov.Field(i).Set(reflect.AppendSlice(ov.Field(i), gv.Field(i)))
		default:
			ov.Field(i).Set(gv.Field(i))
		}
	}
	return o
}

// Defaults fill what o leaves empty.
func (o Options) Defaults() Options {
	if o.ItemsPerTask <= 0 {
		o.ItemsPerTask = 20
	}
	if o.BuildsPerTask <= 0 {
		o.BuildsPerTask = 40
	}
	if o.BuildCPUs <= 0 {
		o.BuildCPUs = 4
	}
	if o.Gres == "" {
		o.Gres = "gpu:1"
	}
	if o.Time == "" {
		o.Time = "1:00:00"
	}
	return o
}

var timeRE = regexp.MustCompile(`^(\d+-)?\d+(:\d+){0,2}$`)

// Check says what is wrong with o, naming the option.
func (o Options) Check() error {
	if o.Time != "" && !timeRE.MatchString(o.Time) {
		return fmt.Errorf("time %q is not a Slurm time limit: write minutes (30), MM:SS, HH:MM:SS or D-HH:MM:SS", o.Time)
	}
	if o.Throttle < 0 {
		return fmt.Errorf("throttle %d: give how many tasks of an array may run at once (0 for no limit)", o.Throttle)
	}
	for _, s := range []struct{ name, v string }{{"partition", o.BuildPartition}, {"partition", o.RunPartition}, {"account", o.Account}, {"qos", o.QOS}, {"gres", o.Gres}} {
		if strings.ContainsAny(s.v, " \t\n'\"$`\\;") {
			return fmt.Errorf("%s %q: a name has no spaces, quotes or shell characters", s.name, s.v)
		}
	}
	for _, e := range o.Extra {
		if !strings.HasPrefix(e, "-") || strings.ContainsAny(e, "\n") {
			return fmt.Errorf("extra sbatch argument %q: give options such as --constraint=a100, one per argument", e)
		}
	}
	return nil
}

// Stage names the two arrays.
const (
	StageBuild = "build"
	StageRun   = "run"
)

// Job is what a job script runs: lessons grade worker ARGS.
type Job struct {
	Name   string // build, run, preflight-run, ...: the job's name and its logs'
	GPU    bool   // its tasks run programs: the run partition and gres
	Tasks  int
	Dir    string // the job folder (logs go in Dir/logs)
	Args   []string
	Exe    string // the lessons binary, as the nodes see it
	Course string
	Cache  string   // LESSONS_CACHE, shared by every node
	Env    []string // NAME=VALUE set in the script (the sandbox's settings)
}

// Script is the batch script of one array.
func Script(j Job, o Options) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("#!/bin/bash")
	line("#SBATCH --job-name=lessons-%s", j.Name)
	throttle := ""
	if o.Throttle > 0 {
		throttle = fmt.Sprintf("%%%d", o.Throttle)
	}
	line("#SBATCH --array=0-%d%s", j.Tasks-1, throttle)
	line("#SBATCH --output=%s/logs/%s-%%A_%%a.log", j.Dir, j.Name)
	line("#SBATCH --ntasks=1")
	part := o.BuildPartition
	if !j.GPU {
		line("#SBATCH --cpus-per-task=%d", o.BuildCPUs)
	} else {
		part = o.RunPartition
		// A run's host side (CUDA's start) needs a core; more runs at
		// once, more cores.
		cpus := 4
		if o.PerGPU > 0 {
			cpus = max(2, o.PerGPU)
		}
		line("#SBATCH --cpus-per-task=%d", cpus)
		line("#SBATCH --gres=%s", o.Gres)
	}
	if part != "" {
		line("#SBATCH --partition=%s", part)
	}
	if o.Account != "" {
		line("#SBATCH --account=%s", o.Account)
	}
	if o.QOS != "" {
		line("#SBATCH --qos=%s", o.QOS)
	}
	line("#SBATCH --time=%s", o.Time)
	// A task killed by a node failure or a preemption starts again and
	// skips the items it had finished.
	line("#SBATCH --requeue")
	for _, e := range o.Extra {
		line("#SBATCH %s", e)
	}
	line("")
	switch j.Name {
	case StageBuild:
		line("# lessons grade --slurm: builds, into the shared compile cache, of a share of the class's distinct files.")
	case StageRun:
		line("# lessons grade --slurm: runs and judges a share of the class's (student, exercise) items on this task's GPU")
		line("# (CUDA_VISIBLE_DEVICES as Slurm sets it), one at a time; each finished item is a file in the results folder.")
	}
	line("set -euo pipefail")
	line("cd %s", quote(j.Course))
	line("export LESSONS_CACHE=%s", quote(j.Cache))
	for _, e := range j.Env {
		k, v, _ := strings.Cut(e, "=")
		line("export %s=%s", k, quote(v))
	}
	args := ""
	for _, a := range j.Args {
		args += " " + quote(a)
	}
	line("exec %s --course %s grade worker%s", quote(j.Exe), quote(j.Course), args)
	return b.String()
}

// quote quotes s for the shell.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
