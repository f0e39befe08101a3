package author

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cudalessons/lessons/internal/failure"
)

// Outcome is what the checks made of one mutant.
type Outcome struct {
	Exercise string
	Mutant   Mutant
	// KilledBy is the first check the mutant failed ("compiles" when it
	// does not build); "" when it passed every check: a survivor.
	KilledBy string
	// Passed are the checks the mutant passed.
	Passed []string
	// Equivalent is the spec's reason when it lists the mutant as
	// equivalent to the solution.
	Equivalent string
	// Err is a failure of the machine or a tool, not of the mutant.
	Err error
	// Identical: the mutant's program is the solution's, byte for byte
	// (what is loaded of it): equivalent, known without a run.
	Identical bool
	// SameAs is the mutant whose program this one's is, byte for byte:
	// judged by that one's run, not run itself ("" when it ran).
	SameAs string
	// Accepted: the spec lists the mutant as equivalent, and it was
	// neither built nor run: the reason is the author's word.
	Accepted bool
}

// IdenticalReason is why a mutant whose program is the solution's is
// equivalent, where the spec gives no reason of its own.
const IdenticalReason = "its program is the solution's, byte for byte: the compiler made the change vanish"

// Survived reports whether the mutant passed every check and the spec
// does not accept it as equivalent.
func (o *Outcome) Survived() bool { return o.Err == nil && o.KilledBy == "" && o.Equivalent == "" }

// Report is the outcomes of every mutant of a course.
type Report struct {
	Outcomes []Outcome
	Took     time.Duration
	// Started counts the programs the mutants' runs started (each run,
	// each run under a sanitizer; 0: not counted).
	Started int
	// Again counts the mutants whose run was made again alone on the
	// machine: stopped at its limit while waiting in the GPU's driver
	// beside other runs.
	Again int
	// Order is the exercises in course order.
	Order []string
}

// Survivors counts the surviving mutants.
func (r *Report) Survivors() int {
	n := 0
	for i := range r.Outcomes {
		if r.Outcomes[i].Survived() {
			n++
		}
	}
	return n
}

// Err fails silently (the report says why) when a mutant survived or
// could not be judged.
func (r *Report) Err() error {
	if r.Survivors() > 0 || r.Errors() > 0 {
		return &failure.Silent{}
	}
	return nil
}

// Errors counts the mutants that could not be judged.
func (r *Report) Errors() int {
	n := 0
	for i := range r.Outcomes {
		if r.Outcomes[i].Err != nil {
			n++
		}
	}
	return n
}

// Write prints one line per exercise (mutants, killed, equivalent,
// surviving), then each survivor with its exercise, its diff and the
// checks it passed, and each mutant that could not be judged.
func (r *Report) Write(w io.Writer) {
	rows := map[string]*tally{}
	for _, x := range r.Order {
		rows[x] = &tally{}
	}
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		rw := rows[o.Exercise]
		if rw == nil {
			rw = &tally{}
			rows[o.Exercise] = rw
			r.Order = append(r.Order, o.Exercise)
		}
		rw.add(o)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tMUTANTS\tKILLED\tEQUIVALENT\tSURVIVING")
	var total tally
	for _, x := range r.Order {
		rw := rows[x]
		mark := "✓"
		if rw.survived+rw.errs > 0 {
			mark = "✗"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s %d\n", x, rw.mutants, rw.killed, rw.equivalent, mark, rw.survived)
		total.mutants += rw.mutants
		total.killed += rw.killed
		total.equivalent += rw.equivalent
		total.survived += rw.survived
		total.errs += rw.errs
	}
	tw.Flush()
	r.writeOperators(w)
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		switch {
		case o.Survived():
			fmt.Fprintf(w, "\nsurvivor %s %s: passed every check (%s)\n", o.Exercise, o.Mutant.ID, strings.Join(o.Passed, "; "))
			fmt.Fprintf(w, "%s", indent(o.Mutant.Diff))
			fmt.Fprintf(w, "  kill it with a check (or a hidden run) it fails, or accept it in the spec:\n  [[equivalent_mutants]]\n  mutant = %q\n  reason = \"...\"\n", o.Mutant.ID)
		case o.Err != nil:
			fmt.Fprintf(w, "\nnot judged %s %s: %v\n", o.Exercise, o.Mutant.ID, o.Err)
		}
	}
	fmt.Fprintf(w, "\n%d mutants of %d exercises in %s: %d killed, %d equivalent, %d surviving", total.mutants, len(r.Order), r.Took.Round(10*time.Millisecond), total.killed, total.equivalent, total.survived)
	if total.errs > 0 {
		fmt.Fprintf(w, ", %d not judged", total.errs)
	}
	fmt.Fprintln(w)
	identical, same, accepted, ran := 0, 0, 0, 0
	for i := range r.Outcomes {
		if o := &r.Outcomes[i]; o.Err == nil && !o.Identical && o.SameAs == "" && !o.Accepted && o.KilledBy != "compiles" && o.Mutant.ID != "(solution)" {
			ran++
		}
		if r.Outcomes[i].Accepted {
			accepted++
		}
		if r.Outcomes[i].Identical {
			identical++
		}
		if r.Outcomes[i].SameAs != "" {
			same++
		}
	}
	if identical+same > 0 {
		fmt.Fprintf(w, "Not run, their programs compared byte for byte: %d the solution's (equivalent), %d another mutant's (judged by its run)\n", identical, same)
	}
	if accepted > 0 {
		fmt.Fprintf(w, "Not built or run, accepted as equivalent by the spec (equivalent_mutants): %d\n", accepted)
	}
	if r.Started > 0 {
		fmt.Fprintf(w, "The mutants' runs started %d programs (%.1f for each mutant that ran", r.Started, float64(r.Started)/float64(max(ran, 1)))
		if s := r.Took.Seconds(); s > 0 {
			fmt.Fprintf(w, ", %.1f a second", float64(r.Started)/s)
		}
		fmt.Fprint(w, ")")
		if r.Again > 0 {
			fmt.Fprintf(w, "; %d made again alone on the machine (stopped at its limit while waiting in the GPU's driver beside others)", r.Again)
		}
		fmt.Fprintln(w)
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l)
	}
	b.WriteString("\n")
	return b.String()
}

// writeOperators prints one line per operator: how many mutants it made
// in each exercise, and what became of them (killed by not compiling
// apart, since those cost least and say least).
func (r *Report) writeOperators(w io.Writer) {
	type row struct {
		tally
		per map[string]int
	}
	rows := map[string]*row{}
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		if o.Mutant.Op == "" {
			continue
		}
		rw := rows[o.Mutant.Op]
		if rw == nil {
			rw = &row{per: map[string]int{}}
			rows[o.Mutant.Op] = rw
		}
		rw.per[o.Exercise]++
		rw.add(o)
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "OPERATOR")
	for _, x := range r.Order {
		fmt.Fprintf(tw, "\t%s", x)
	}
	fmt.Fprintln(tw, "\tMUTANTS\tKILLED\tNOT BUILT\tEQUIVALENT\tSURVIVING")
	for _, op := range append(slices.Clone(Operators), "") {
		rw := rows[op]
		if op == "" || rw == nil {
			continue
		}
		fmt.Fprint(tw, op)
		for _, x := range r.Order {
			fmt.Fprintf(tw, "\t%d", rw.per[x])
		}
		fmt.Fprintf(tw, "\t%d\t%d\t%d\t%d\t%d\n", rw.mutants, rw.killed-rw.unbuilt, rw.unbuilt, rw.equivalent, rw.survived)
	}
	tw.Flush()
}

// tally counts mutants by what came of them.
type tally struct {
	mutants, equivalent, survived, errs int
	// killed counts every mutant a check killed; unbuilt those of them
	// that did not compile.
	killed, unbuilt int
}

func (t *tally) add(o *Outcome) {
	t.mutants++
	switch {
	case o.Err != nil:
		t.errs++
	case o.KilledBy != "":
		t.killed++
		if o.KilledBy == "compiles" {
			t.unbuilt++
		}
	case o.Equivalent != "":
		t.equivalent++
	default:
		t.survived++
	}
}

// WriteKills writes, one line per mutant, tab-separated: its exercise,
// its id, and the check that killed it ("equivalent: REASON",
// "survived" or "not judged: ERROR" otherwise), so that an author sees
// which check kills which mistake.
func (r *Report) WriteKills(w io.Writer) error {
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		what := o.KilledBy
		switch {
		case o.Err != nil:
			what = "not judged: " + o.Err.Error()
		case o.KilledBy != "":
		case o.Equivalent != "":
			what = "equivalent: " + o.Equivalent
		default:
			what = "survived"
		}
		if o.SameAs != "" {
			what += " (the program of " + o.SameAs + ", not run again)"
		}
		if o.Accepted {
			what += " (accepted by the spec, not run)"
		}
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\n", o.Exercise, o.Mutant.ID, strings.NewReplacer("\t", " ", "\n", " ").Replace(what)); err != nil {
			return err
		}
	}
	return nil
}
