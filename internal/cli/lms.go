package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/lms"
	"github.com/cudalessons/lessons/internal/roster"
	"github.com/cudalessons/lessons/internal/ui"
)

// lmsFlags are grade's flags for classes that come from an LMS and
// grades that go back to one.
type lmsFlags struct {
	roster                     string
	canvas, moodle, gradescope string
	columns, assignment        string
	outOf                      int
	names                      bool   // grade feedback --lms
	unpackTo                   string // grade unpack --out
}

func (f *lmsFlags) readRoster() ([]gradebook.Person, error) {
	return roster.Load(f.roster)
}

// openSubmissions reads SUBMISSIONS: an LMS's download (a zip, or a
// folder it named) is arranged into a temporary folder per student, and
// what could not be matched is said. The course is loaded here, once for
// the whole grade.
func openSubmissions(o *gradeOptions, dir string) (*lms.Submissions, *course.Course, error) {
	if (o.slurm.on || o.slurm.given() != "") && lms.IsDownload(dir) {
		return nil, nil, usagef("a cluster's nodes need the submissions on shared storage: unpack %s there first (lessons grade unpack %s --out DIR) and grade DIR", dir, dir)
	}
	roster, err := o.lms.readRoster()
	if err != nil {
		return nil, nil, err
	}
	c, err := o.g.course()
	if err != nil {
		return nil, nil, err
	}
	subs, err := lms.Open(dir, c, roster)
	if err == nil && (subs.Unpacked() || roster != nil) {
		var b strings.Builder
		subs.WriteReport(&b)
		fmt.Fprint(o.io.ErrOut, ui.Fit(b.String(), o.io.Width()))
	}
	return subs, c, err
}

// addLMSFlags adds grade unpack, --roster and the LMS formats.
func addLMSFlags(grade, export, feedback *cobra.Command, o *gradeOptions, run gradeRunE) {
	unpack := &cobra.Command{
		Use:   "unpack DOWNLOAD --out DIR",
		Short: "Arrange an LMS's download of the submissions (Canvas, Moodle, a zip) into a folder per student",
		Example: `  lessons grade unpack submissions.zip --out class/ --roster roster.csv
  lessons grade class/ --roster class/roster.csv`,
		Args: cobra.ExactArgs(1),
		RunE: run("unpack", gradeUnpack),
	}
	unpack.Flags().StringVar(&o.lms.unpackTo, "out", "", "the `FOLDER` for a folder per student (new or empty)")
	unpack.MarkFlagRequired("out")
	grade.AddCommand(unpack)
	grade.PersistentFlags().StringVar(&o.lms.roster, "roster", "", "a roster `CSV` (id,name,email,lms_id,section) that names the students")
	f := export.Flags()
	f.StringVar(&o.lms.canvas, "canvas", "", "write Canvas's gradebook import CSV to `FILE`")
	f.StringVar(&o.lms.moodle, "moodle", "", "write Moodle's grade import CSV to `FILE`")
	f.StringVar(&o.lms.gradescope, "gradescope", "", "write Gradescope's results.json of each student under `FOLDER`")
	f.StringVar(&o.lms.columns, "columns", "exercises", "what --canvas and --moodle hold: a column per exercise (exercises) or the total (total)")
	f.StringVar(&o.lms.assignment, "assignment", "", "the heading of the total's column (Canvas: \"Name (id)\" as its export heads it)")
	f.IntVar(&o.lms.outOf, "out-of", 0, "with --columns total: the total scaled to `N` points, the assignment's")
	feedback.Flags().BoolVar(&o.lms.names, "lms", false, "name each page as the LMS the class came from attaches it (into a zip when --out ends in .zip)")
}

func gradeUnpack(o *gradeOptions, args []string) error {
	roster, err := o.lms.readRoster()
	if err != nil {
		return err
	}
	c, err := o.g.course()
	if err != nil {
		return err
	}
	cl, err := lms.Unpack(args[0], o.lms.unpackTo, c, roster, writeAtomic)
	if err != nil {
		return err
	}
	cl.WriteReport(o.io.ErrOut)
	fmt.Fprintf(o.io.Out, "unpacked %d students into %s, with roster.csv (who each is in the LMS)\n", len(cl.People), o.lms.unpackTo)
	return nil
}

// exportLMS writes the LMS formats asked for, and says whom an LMS will
// not find.
func exportLMS(o *gradeOptions, s *gradebook.Sheet, write func(string, func(io.Writer) error) error) error {
	e := &lms.Export{Sheet: s, Columns: lms.Columns(o.lms.columns), Assignment: o.lms.assignment, OutOf: o.lms.outOf}
	if err := e.Check(); err != nil || !o.lms.any() {
		return err // no LMS format asked for: nothing to read or write
	}
	people, err := lmsPeople(o)
	if err != nil {
		return err
	}
	e.People = people
	warnings, err := e.WriteAll(lms.Outputs{Canvas: o.lms.canvas, Moodle: o.lms.moodle, Gradescope: o.lms.gradescope},
		func(name string, data []byte) error {
			return write(name, func(w io.Writer) error { _, err := w.Write(data); return err })
		})
	for _, w := range warnings {
		fmt.Fprintf(o.io.ErrOut, "lessons: warning: %s\n", w)
	}
	return err
}

// lmsPeople is who the students are: what grade learnt, with --roster.
func lmsPeople(o *gradeOptions) (map[string]gradebook.Person, error) {
	roster, err := o.lms.readRoster()
	if err != nil {
		return nil, err
	}
	book, err := gradebook.OpenExisting(o.book)
	if err != nil {
		return nil, err
	}
	defer book.Close()
	return lms.People(book, roster)
}

func (f *lmsFlags) any() bool { return f.canvas != "" || f.moodle != "" || f.gradescope != "" }
