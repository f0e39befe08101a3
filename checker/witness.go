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
	// started. Each must equal the record's figure.
	Counts map[string]uint64
	// Driver, for a run whose record says its processes called the
	// driver's allocation functions themselves (cuMemAlloc and the like,
	// which the library counts as their runtime twins), are the calls of
	// those functions the kernel counted, by the twin's statistic: such a
	// statistic of Counts is compared as a range, from the larger of the
	// runtime's count and the driver's to their sum, not for equality (the driver's
	// entry points may also be reached by the runtime's own calls). The
	// choice rests on the record's word, so the record's claim is
	// bounded too (Claims).
	Driver map[string]uint64
	// Claims are bounds one way only: the driver allocation calls the
	// record's guard says the program made may not exceed the calls of
	// the driver's allocation functions counted; and the other way, the
	// kernel's count of the runtime's host waits may not exceed the
	// record's statistic, nor its count of writes through /proc/PID/mem
	// 0 (internal/exercise/witness.go).
	Claims []Claim
	// Counted are counts shown beside the comparison, compared with
	// nothing (the driver's launches, say): what the kernel saw.
	Counted map[string]uint64
	// Past are the functions the run entered past their first
	// instruction: the kernel counted some way out of the function, or
	// the function behind it, more often than its entry. An honest call
	// passes each once; a program that does a function's first
	// instruction itself and jumps to its second is counted at the
	// entry never. Such a run fails, whatever its record says.
	Past []Past
	// Faults are the fault signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	// SIGTRAP, SIGSYS) the run's threads caught in handlers of their
	// own: a way out of a CUDA function that no probe sees. An honest
	// program that faults ends by the signal. Such a run fails.
	Faults uint64
	// Snapshot says the run was stopped or crashed (a signal, its time
	// limit, its output cut): its record is the last snapshot the
	// library sent, and the calls made after it are counted by the
	// kernel alone. Each count is then compared one way, the record's
	// figure no more than the kernel's (a record above what the kernel
	// saw is still a forgery); such a run fails "ends by itself"
	// whatever else it did. Before, 57 wrong answers of the course that
	// crash (signal 6 or 11) or run out of time were marked for review as
	// records that did not match (two H200s, session 26).
	Snapshot bool
}

// Past is a CUDA function a run entered past its first instruction.
type Past struct {
	// Name is the count's ("cuMemAlloc"), Driver whether the function is
	// the driver's (else the runtime's), Counts what was counted at each
	// kind of its sites ("entered 0, left 0, work entered 0, work left
	// 100").
	Name   string
	Driver bool
	Counts string
}

// Claim is a figure bounded by another: one of the record's by the
// kernel's count, or one of the kernel's counts by the record's figure
// (or by 0).
type Claim struct {
	// Name says what is claimed ("driver allocation calls").
	Name string
	// Record is the figure bounded, Most the bound: the record's figure
	// and the kernel's count (the program's own driver calls), or the
	// kernel's count and the record's figure (the runtime's host waits;
	// writes through /proc/PID/mem, Most 0). Record is named for the
	// first kind; Over says which is which.
	Record, Most uint64
	// Over, when set, says what a Record above Most means, with the two
	// figures (a format of two %d); else "the record says, the kernel
	// counted".
	Over string
}

// WitnessCheckName is the name of the comparison's result.
const WitnessCheckName = "statistics match what the kernel saw"

// WitnessCheck compares a run's record (the program's own, s, and its
// children's, merged, c; nil when none) with the kernel's counts. Every
// count must equal the record's figure for the program and its children:
// the library counts each call the program makes, and the kernel each
// call any code of the run makes, so a record that says fewer or more
// calls was changed, or calls went around the library; a count with a
// driver twin (v.Driver) lies in its range, and a claim (v.Claims) is
// within its bound. mismatch says which
// figures differ ("" when none do); got says what was compared, and what
// was counted beside (v.Counted).
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
		if d, ok := v.Driver[n]; ok {
			// The runtime's calls and the program's own driver calls:
			// no more than both, and no fewer than either. The runtime
			// enters the driver once a call at most (the bound where the
			// record claims no driver call), so the driver's count is
			// the program's own calls, or those and the runtime's: a
			// record below it left driver calls out.
			lo, hi := float64(max(v.Counts[n], d)), float64(v.Counts[n]+d)
			if v.Snapshot {
				lo = 0
			}
			switch {
			case rec >= lo && rec <= hi:
				same = append(same, fmt.Sprintf("%s %d (runtime %d, driver %d)", n, uint64(rec), v.Counts[n], d))
			case rec > hi && rec-hi <= float64(failed):
				failed -= int(rec - hi)
				same = append(same, fmt.Sprintf("%s %d (runtime %d, driver %d, %d made to fail)", n, uint64(rec), v.Counts[n], d, int(rec-hi)))
			default:
				diff = append(diff, fmt.Sprintf("%s: the record says %d, the kernel counted %d of the runtime's and %d of the driver's", n, uint64(rec), v.Counts[n], d))
			}
			continue
		}
		if k := float64(v.Counts[n]); rec > k && rec-k <= float64(failed) {
			failed -= int(rec - k)
			same = append(same, fmt.Sprintf("%s %d (%d made to fail)", n, v.Counts[n], int(rec-k)))
			continue
		}
		if v.Snapshot && rec >= 0 && uint64(rec) < v.Counts[n] {
			same = append(same, fmt.Sprintf("%s %d of the kernel's %d (the record's last snapshot: the run was stopped)", n, uint64(rec), v.Counts[n]))
			continue
		}
		if uint64(rec) != v.Counts[n] || rec < 0 {
			diff = append(diff, fmt.Sprintf("%s: the record says %d, the kernel counted %d", n, uint64(rec), v.Counts[n]))
		} else {
			same = append(same, fmt.Sprintf("%s %d", n, v.Counts[n]))
		}
	}
	for _, c := range v.Claims {
		switch {
		case c.Record > c.Most && c.Over != "":
			diff = append(diff, fmt.Sprintf(c.Over, c.Record, c.Most))
		case c.Record > c.Most:
			diff = append(diff, fmt.Sprintf("%s: the record says %d, the kernel counted %d", c.Name, c.Record, c.Most))
		default:
			same = append(same, fmt.Sprintf("%s %d of at most %d", c.Name, c.Record, c.Most))
		}
	}
	counted := ""
	if len(v.Counted) > 0 {
		var names []string
		for n := range v.Counted {
			names = append(names, n)
		}
		sort.Strings(names)
		var cs []string
		for _, n := range names {
			cs = append(cs, fmt.Sprintf("%s %d", n, v.Counted[n]))
		}
		counted = "; counted, not compared: " + strings.Join(cs, ", ")
	}
	var wrong []string
	if len(v.Past) > 0 {
		var past []string
		which := "runtime"
		for _, p := range v.Past {
			past = append(past, p.Name+": "+p.Counts)
			if p.Driver {
				which = "driver"
			}
		}
		wrong = append(wrong, "a CUDA "+which+" function was entered past its first instruction ("+strings.Join(past, "; ")+")")
	}
	if v.Faults > 0 {
		wrong = append(wrong, fmt.Sprintf("the program caught %d fault signals in handlers of its own (a call leaves a CUDA function so, past every way out the kernel counts)", v.Faults))
	}
	if len(wrong) > 0 {
		mismatch = strings.Join(wrong, "; and ")
		if len(diff) > 0 {
			mismatch += "; and the statistics record does not match what the kernel saw (" + strings.Join(diff, "; ") + ")"
		}
		return mismatch, mismatch + counted
	}
	if len(diff) > 0 {
		mismatch = "the statistics record does not match what the kernel saw (" + strings.Join(diff, "; ") + ")"
		return mismatch, mismatch + counted
	}
	return "", "the kernel counted the same calls: " + strings.Join(same, ", ") + counted
}

func judgeWitness(r *Run, failed int) Result {
	mismatch, got := WitnessCheck(r.Stats, r.Children, r.Witness, failed)
	res := Result{Name: WitnessCheckName, Pass: mismatch == "", Got: got,
		Want: "the record's calls of CUDA's entry points to be those the kernel counted from outside the program"}
	if mismatch != "" {
		res.Review = mismatch
	}
	return res
}
