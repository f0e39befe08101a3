package checker

import (
	"fmt"
	"sort"
	"strings"
)

// WitnessView is what the kernel counted of a run's calls of CUDA's entry
// points, from outside the program (uprobes on the runtime's and the
// driver's functions, counted per cgroup: internal/witness). The program
// can neither write it nor reach it; it is a second witness beside the
// statistics record, which the program's own address space holds.
type WitnessView struct {
	// Counts are the calls counted, by the statistic of the record they
	// witness ("malloc_async_calls"), of the program and every process it
	// started.
	Counts map[string]uint64
}

// WitnessCheckName is the name of the comparison's result.
const WitnessCheckName = "statistics match what the kernel saw"

// WitnessCheck compares a run's record (the program's own, s, and its
// children's, merged, c; nil when none) with the kernel's counts. Every
// count must equal the record's figure for the program and its children:
// the library counts each call the program makes, and the kernel each
// call any code of the run makes, so a record that says fewer or more
// calls was changed, or calls went around the library. mismatch says
// which figures differ ("" when none do); got says what was compared.
//
// failed is how many calls the run's spec made fail (a hidden run's
// fail = [...]): the library counts such a call and never makes it, so
// the record may say more than the kernel counted by that many calls in
// all, and no more. The number is the spec's, never the record's.
func WitnessCheck(s, c *Stats, v *WitnessView, failed int) (mismatch, got string) {
	names := make([]string, 0, len(v.Counts))
	for n := range v.Counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var diff, same []string
	for _, n := range names {
		var rec float64
		if s != nil {
			rec, _ = s.Value(n)
		}
		if c != nil {
			cv, _ := c.Value(n)
			rec += cv
		}
		if k := float64(v.Counts[n]); rec > k && rec-k <= float64(failed) {
			failed -= int(rec - k)
			same = append(same, fmt.Sprintf("%s %d (%d made to fail)", n, v.Counts[n], int(rec-k)))
			continue
		}
		if uint64(rec) != v.Counts[n] || rec < 0 {
			diff = append(diff, fmt.Sprintf("%s: the record says %d, the kernel counted %d", n, uint64(rec), v.Counts[n]))
		} else {
			same = append(same, fmt.Sprintf("%s %d", n, v.Counts[n]))
		}
	}
	if len(diff) > 0 {
		return "the statistics record does not match what the kernel saw (" + strings.Join(diff, "; ") + ")", strings.Join(diff, "; ")
	}
	return "", "the kernel counted the same calls: " + strings.Join(same, ", ")
}

func judgeWitness(r *Run, failed int) Result {
	mismatch, got := WitnessCheck(r.Stats, r.Children, r.Witness, failed)
	res := Result{Name: WitnessCheckName, Pass: mismatch == "", Got: got,
		Want: "the record's calls of CUDA's entry points to be those the kernel counted from outside the program"}
	if mismatch != "" {
		res.Got, res.Review = mismatch, mismatch
	}
	return res
}
