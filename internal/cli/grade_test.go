package cli

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestGradeFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *gradeOptions
	var name string
	var args []string
	cmd := newGrade(ios, &globals{}, func(o *gradeOptions, n string, a []string) error { got, name, args = o, n, a; return nil })
	if err := execute(cmd, "subs", "pipe", "--regrade", "--per-gpu", "4", "-j", "3", "--gradebook", "b.db"); err != nil {
		t.Fatal(err)
	}
	if name != "" || len(args) != 2 || args[0] != "subs" || args[1] != "pipe" || !got.regrade || got.perGPU != 4 || got.jobs != 3 || got.book != "b.db" {
		t.Errorf("options: %+v, %q, %q", got, name, args)
	}
	cmd = newGrade(ios, &globals{}, func(o *gradeOptions, d string, x []string) error { got = o; return nil })
	if err := execute(cmd, "subs"); err != nil || got.perGPU != 0 || got.queues != 0 {
		t.Errorf("defaults: %+v, %v (0: chosen from the class)", got, err)
	}
	var usage *failure.Usage
	if err := execute(newGrade(ios, &globals{}, nil), "subs", "--per-gpu", "65"); !errors.As(err, &usage) {
		t.Errorf("--per-gpu 65: %v", err)
	}
}

// Each subcommand of grade reaches the hook with its name, its
// arguments and its flags.
func TestGradeSubcommandFlags(t *testing.T) {
	for _, c := range []struct {
		args  []string
		name  string
		check func(o *gradeOptions, args []string) bool
	}{
		{[]string{"export", "--canvas", "c.csv"}, "export", func(o *gradeOptions, _ []string) bool {
			return o.lms.canvas == "c.csv" && o.csv == "" && o.json == "" // only what was asked for
		}},
		{[]string{"export", "--csv", "-"}, "export", func(o *gradeOptions, _ []string) bool { return o.csv == "-" && o.json == "grades.json" }},
		{[]string{"feedback", "--out", "fb", "--hidden", "none", "--lms"}, "feedback", func(o *gradeOptions, _ []string) bool {
			return o.out == "fb" && o.hidden == "none" && o.lms.names
		}},
		{[]string{"unpack", "dl.zip", "--out", "class", "--roster", "r.csv"}, "unpack", func(o *gradeOptions, a []string) bool {
			return a[0] == "dl.zip" && o.lms.unpackTo == "class" && o.lms.roster == "r.csv"
		}},
		{[]string{"collect", "--wait", "--slurm-dir", "jobs", "--poll", "2s"}, "collect", func(o *gradeOptions, _ []string) bool {
			return o.slurm.wait && o.slurm.dir == "jobs" && o.slurm.poll == 2*time.Second
		}},
		{[]string{"worker", "run", "plan-0.json", "--task", "3"}, "worker", func(o *gradeOptions, a []string) bool {
			return a[0] == "run" && a[1] == "plan-0.json" && o.slurm.task == 3
		}},
	} {
		ios, _, _, _ := iostreams.Test()
		ran := false
		cmd := newGrade(ios, &globals{}, func(o *gradeOptions, name string, args []string) error {
			ran = true
			if name != c.name || !c.check(o, args) {
				t.Errorf("grade %q: ran %q with %q, options %+v", c.args, name, args, o)
			}
			return nil
		})
		if err := execute(cmd, c.args...); err != nil || !ran {
			t.Errorf("grade %q: ran %v, %v", c.args, ran, err)
		}
	}
	ios, _, _, _ := iostreams.Test()
	wantUsage(t, execute(newGrade(ios, &globals{courseDir: tinyCourse(t)}, nil), t.TempDir(), "--partition", "gpu", "--gradebook", filepath.Join(t.TempDir(), "gb.db")), "--partition is an option of grade --slurm")
}
