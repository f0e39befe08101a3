package author

import (
	"fmt"
	"strings"

	"github.com/cudalessons/lessons/checker"
)

// Mutant is a solution with one mistake of the kind students make with
// CUDA memory and streams, made inside a solution region (or, for
// replay, the whole program replaced).
type Mutant struct {
	// ID names the mutant within its exercise: the operator and the
	// line of the solution file, with a variant when one line gives
	// several ("other-stream@41/0"). equivalent_mutants names mutants so.
	ID string
	Op string
	// Line is the line of the solution file (markers included) mutated.
	Line int
	// Data is the mutated file, markers removed, as a student would
	// hand it in.
	Data []byte
	// Diff is the change against the solution, markers removed.
	Diff string
}

// Operators are the mutation operators (families), in the order they
// are applied. Each is applied at every site where it applies, in every
// solution region; each mutant is one program.
var Operators = []string{
	"host-wait",           // a host wait (device, stream, event, memcpy, memset) after a statement that runs in a loop and reaches a stream
	"sync-twin",           // a stream-ordered call replaced by its synchronous twin
	"delete-launch",       // a kernel launch left out
	"serialise",           // every launch on a stream of the regions waited for at once: the streams never overlap
	"wrong-buffer",        // a launch given another buffer than the one allocated for it
	"hoist-alloc",         // an allocation moved out of its loop
	"delete-call",         // a call of the allocator, stream, event, pool or VMM API left out
	"other-stream",        // a stream argument replaced by another stream in scope, or by 0
	"off-by-one",          // a loop bound or an allocated size changed by one
	"poll-wait",           // a stream's wait for an event replaced by the host polling the event; the host polling a loop's stream
	"wrong-pool",          // an allocation from the configured pool made from the device's current pool instead; a pool's setting made on the default pool
	"partial-drain",       // a wait for the whole device replaced by a wait for one stream; a wait for x[i] by one for x[0]
	"one-event",           // an event of an array (a block's, a round's, a stream's), or one a function gives, replaced by the first one
	"record-late",         // an interprocess event's record moved after the next statement that sends bytes to the other process
	"reset-after-barrier", // the statement before a __syncthreads() moved after it
	"subrange-race",       // a stream-ordered use of a sub-range of a block (p + off) moved to a stream of its own
	"first-error",         // an error kept only while none is, kept always: a later call that succeeds wipes it out
	"unchecked-get",       // a pool attribute's get whose failure was answered, made and its value used as the call left it
	"const-arg",           // a size or count read from the command line used as its value in the default run
	"no-work",             // every launch and allocator call of the regions removed, the prints kept
	"replay",              // a program that prints, for each run, what the solution printed, and does no CUDA work
}

// RecordedRun is one run of a solution that the spec makes (its public
// run, or a hidden run): its arguments, its environment and what the
// solution printed. The replay mutant prints it back.
type RecordedRun struct {
	Name   string
	Args   []string
	Env    map[string]string
	Output string
}

// Mutants are the mutants of a parsed solution, identical programs made
// once (the first operator's). runs are the solution's recorded runs;
// without them there is no replay mutant. others are the exercise's
// other files, read (never mutated) for the loops that call the
// functions of the solution's regions.
func Mutants(src *Source, runs []RecordedRun, others ...[]byte) []Mutant {
	m := &mutator{src: src, base: src.Solution(), seen: map[string]bool{}}
	m.seen[string(m.base)] = true
	if !cFile(src.File) {
		if len(runs) > 0 {
			m.replay(runs)
		}
		return m.out
	}
	// The code is read as the solution has it: without its marker and
	// stub lines (a marker inside a block comment would otherwise end it
	// in one view and not in the other).
	solution := m.marked()
	for i, l := range solution {
		if l == dropped {
			solution[i] = ""
		}
	}
	m.code, m.comments, m.open = codeAndComments(solution)
	m.loops = loopsOf(m.code)
	files := [][]string{m.code}
	for _, o := range others {
		files = append(files, codeOf(splitLines(o)))
	}
	m.calledInLoop = calledInLoop(files)
	m.defined = defined(files)
	for _, r := range src.Regions {
		first, last := r.SolutionLines()
		inLoop := m.calledInLoop[enclosingFunc(m.code, r.Begin)]
		for n := first; n <= last; n++ {
			m.hostWait(r, n, inLoop)
		}
	}
	values := m.argValues(runs, files[1:])
	for _, r := range src.Regions {
		first, last := r.SolutionLines()
		for n := first; n <= last; n++ {
			m.syncTwin(n)
			m.deleteLaunch(n)
			m.wrongBuffer(r, n, m.loops[n-1] != 0 || m.calledInLoop[enclosingFunc(m.code, r.Begin)])
		}
		m.hoistAlloc(first, last)
		m.pollHost(r, m.calledInLoop[enclosingFunc(m.code, r.Begin)])
		for n := first; n <= last; n++ {
			m.deleteCall(n)
			m.otherStream(n)
			m.offByOne(n)
			m.pollWait(n)
			m.wrongPool(n)
			m.wrongPoolSetting(n)
			m.partialDrain(n)
			m.partialDrainFirst(n)
			m.oneEvent(n)
			m.oneEventFirst(n)
			m.recordLate(r, n)
			m.resetAfterBarrier(r, n)
			m.subRangeRace(n)
			m.errorKept(n)
			m.constArg(n, values)
		}
	}
	m.serialise()
	m.noWork()
	if len(runs) > 0 {
		m.replay(runs)
	}
	return m.out
}

type mutator struct {
	src          *Source
	code         []string // the source's lines' code (codeOf): what the operators read
	comments     []string // the comments on each of the source's lines
	open         []bool   // open[i]: a comment or a literal runs on from line i+1 into the next
	base         []byte
	loops        []int // loops[i]: the line (from 1) of the loop around line i+1; 0 outside loops
	calledInLoop map[string]bool
	defined      map[string]bool // the functions (and macros) the exercise's files define
	seen         map[string]bool // programs made already (the solution's among them)
	out          []Mutant
}

// add records the mutant that edit makes of the source's lines. The
// marker and stub lines are dropped after the edit, so that an edit may
// move lines across them.
func (m *mutator) add(op string, n int, variant string, edit func(lines []string) []string) {
	lines := edit(m.marked())
	if lines == nil {
		return
	}
	var b strings.Builder
	for _, l := range lines {
		if l != dropped {
			b.WriteString(l)
		}
	}
	id := fmt.Sprintf("%s@%d", op, n)
	if variant != "" {
		id += "/" + variant
	}
	m.addData(op, id, n, b.String())
}

// addData records a mutant unless it is the solution or a program made
// already.
func (m *mutator) addData(op, id string, n int, data string) {
	if m.seen[data] {
		return
	}
	m.seen[data] = true
	m.out = append(m.out, Mutant{ID: id, Op: op, Line: n, Data: []byte(data), Diff: Diff(string(m.base), data)})
}

// joint reports whether something may be put, or a line moved, between
// lines n and n+1 (from 1; 0 is the start of the file): no comment or
// literal runs on from one into the other.
func (m *mutator) joint(n int) bool {
	return n <= 0 || n > len(m.open) || !m.open[n-1]
}

// deleteLine is lines without line n, a statement an operator leaves
// out; its comments, if it has any, stay on a line of their own.
func (m *mutator) deleteLine(lines []string, n int) []string {
	if c := m.commentsLeft(n); c != "" {
		lines[n-1] = c
		return lines
	}
	return append(lines[:n-1], lines[n:]...)
}

// commentsLeft is what is left of line n when its code goes: its
// comments on a line of their own, or "" when it has none.
func (m *mutator) commentsLeft(n int) string {
	c := m.comments[n-1]
	if c == "" {
		return ""
	}
	l := m.src.Lines[n-1]
	if m.joint(n - 1) { // else the line starts inside a comment, its indentation part of it
		c = leading(l) + c
	}
	return c + eolOf(l)
}

// dropped stands for a line of the source that the solution leaves out.
const dropped = "\x00dropped"

// marked are the source's lines with the marker and stub lines replaced
// by dropped.
func (m *mutator) marked() []string {
	lines := append([]string(nil), m.src.Lines...)
	for _, r := range m.src.Regions {
		_, last := r.SolutionLines()
		lines[r.Begin-1] = dropped
		for i := last; i < r.End; i++ {
			lines[i] = dropped
		}
	}
	return lines
}

// Diff is a small unified-style diff of two texts: the lines between
// their common start and end, removed and added, with their line
// numbers in a.
func Diff(a, b string) string {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	var out strings.Builder
	removed, added := al[p:len(al)-s], bl[p:len(bl)-s]
	if len(removed) > 12 {
		removed = append(removed[:12:12], fmt.Sprintf("... %d more lines\n", len(al[p:len(al)-s])-12))
	}
	if len(added) > 12 {
		added = append(added[:12:12], fmt.Sprintf("... %d more lines\n", len(bl[p:len(bl)-s])-12))
	}
	fmt.Fprintf(&out, "@@ line %d @@\n", p+1)
	for _, l := range removed {
		out.WriteString("-" + strings.TrimRight(l, "\r\n") + "\n")
	}
	for _, l := range added {
		out.WriteString("+" + strings.TrimRight(l, "\r\n") + "\n")
	}
	return out.String()
}

// Recorded are the runs of spec (the public run first) with what the
// solution printed on each, from outputs by run name.
func Recorded(spec *checker.Spec, outputs map[string]string) []RecordedRun {
	var out []RecordedRun
	for _, name := range spec.Runs() {
		s := spec.ForRun(name)
		out = append(out, RecordedRun{Name: name, Args: s.Args, Env: s.Env, Output: outputs[name]})
	}
	return out
}
