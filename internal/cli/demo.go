package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/demo"
)

func addDemo(grade *cobra.Command, o *gradeOptions, run gradeRunE) {
	grade.AddCommand(&cobra.Command{
		Use:     "demo DIR",
		Short:   "Try grading without a GPU: a demo class of four graded, with its gradebook, feedback and Canvas export",
		Example: "  lessons grade demo /tmp/demo\n  . /tmp/demo/env.sh; cd /tmp/demo/course; lessons grade export --csv -",
		Args:    cobra.ExactArgs(1),
		RunE:    run("demo", gradeDemo),
	})
}

func gradeDemo(o *gradeOptions, args []string) error {
	d, err := demo.Write(args[0])
	if err != nil {
		return err
	}
	for _, kv := range d.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	o.g.courseDir, o.book, o.lms.roster, o.jobs = d.Course, d.Book, d.Roster, runtime.NumCPU()
	if err := gradeRun(o, []string{d.Submissions}); err != nil {
		return err
	}
	o.csv, o.json, o.lms.canvas = filepath.Join(d.Dir, "grades.csv"), filepath.Join(d.Dir, "grades.json"), filepath.Join(d.Dir, "canvas.csv")
	if err := gradeExport(o, nil); err != nil {
		return err
	}
	o.out, o.hidden = d.Feedback, "summary"
	if err := gradeFeedback(o, nil); err != nil {
		return err
	}
	fmt.Fprint(o.io.Out, d.Next())
	return nil
}
