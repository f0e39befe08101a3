package author

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
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
	"host-wait",           // a host wait (device, stream, event, memcpy, memset) after a statement that runs in a loop
	"sync-twin",           // a stream-ordered call replaced by its synchronous twin
	"delete-launch",       // a kernel launch left out
	"serialise",           // every launch on a stream of the regions waited for at once: the streams never overlap
	"wrong-buffer",        // a launch given another buffer than the one allocated for it
	"hoist-alloc",         // an allocation moved out of its loop
	"delete-call",         // a call of the allocator, stream, event, pool or VMM API left out
	"other-stream",        // a stream argument replaced by another stream in scope, or by 0
	"off-by-one",          // a loop bound or an allocated size changed by one
	"poll-wait",           // a stream's wait for an event replaced by the host polling the event
	"wrong-pool",          // an allocation from the configured pool made from the device's current pool instead
	"partial-drain",       // a wait for the whole device replaced by a wait for one stream
	"one-event",           // an event of an array (a block's, a round's, a stream's) replaced by the first one
	"reset-after-barrier", // the statement before a __syncthreads() moved after it
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

// apiCallRE is a call of the CUDA allocator, stream, event, pool or VMM
// API, or of a memset or copy in stream order.
var apiCallRE = regexp.MustCompile(`\b(cuda(?:Malloc\w*|Free\w*|Stream\w+|Event\w+|MemPool\w+|DeviceSetMemPool|DeviceGetDefaultMemPool|MemsetAsync|MemcpyAsync|MemPrefetchAsync)|cuMem\w+)\s*\(`)

// workCallRE are the calls no-work removes: the allocator's, the pools',
// VMM's, and memsets and copies.
var workCallRE = regexp.MustCompile(`\b(cuda(?:Malloc\w*|Free\w*|MemPool\w+|Memset\w*|Memcpy\w*|MemPrefetchAsync)|cuMem\w+)\s*\(`)

// syncTwins are the stream-ordered calls and their synchronous twins,
// with the index of the stream argument dropped.
var syncTwins = map[string]struct {
	twin   string
	stream int // the stream's argument, dropped from the twin
	drop   []int
}{
	"cudaMallocAsync":         {"cudaMalloc", 2, nil},
	"cudaFreeAsync":           {"cudaFree", 1, nil},
	"cudaMemsetAsync":         {"cudaMemset", 3, nil},
	"cudaMemcpyAsync":         {"cudaMemcpy", 4, nil},
	"cudaMemset2DAsync":       {"cudaMemset2D", 5, nil},
	"cudaMemcpy2DAsync":       {"cudaMemcpy2D", 7, nil},
	"cudaMemcpyToSymbolAsync": {"cudaMemcpyToSymbol", 5, nil},
	"cudaMallocFromPoolAsync": {"cudaMalloc", 3, []int{2}},
	"cuMemAllocAsync":         {"cuMemAlloc", 2, nil},
	"cuMemFreeAsync":          {"cuMemFree", 1, nil},
}

// streamArgs are the calls that take a stream, and which argument it is.
var streamArgs = map[string]int{
	"cudaMallocAsync": 2, "cudaFreeAsync": 1, "cudaMemsetAsync": 3, "cudaMemcpyAsync": 4,
	"cudaMallocFromPoolAsync": 3, "cudaEventRecord": 1, "cudaStreamWaitEvent": 0,
	"cudaStreamSynchronize": 0, "cudaMemPrefetchAsync": 3, "cudaLaunchHostFunc": 0,
}

var allocRE = regexp.MustCompile(`\b(cudaMalloc\w*|cuMemCreate|cuMemAddressReserve)\s*\(`)

// launchStmtRE is a kernel launch: name<<<config>>>(args).
var launchStmtRE = regexp.MustCompile(`\b\w+\s*<<<([^>]*)>>>\s*\(`)

// Mutants are the mutants of a parsed solution, identical programs made
// once (the first operator's). runs are the solution's recorded runs;
// without them there is no replay mutant. others are the exercise's
// other files, read (never mutated) for the loops that call the
// functions of the solution's regions.
func Mutants(src *Source, runs []RecordedRun, others ...[]byte) []Mutant {
	m := &mutator{src: src, base: src.Solution(), loops: loopsOf(src.Lines), seen: map[string]bool{}}
	m.seen[string(m.base)] = true
	files := [][]string{src.Lines}
	for _, o := range others {
		files = append(files, splitLines(o))
	}
	m.calledInLoop = calledInLoop(files)
	for _, r := range src.Regions {
		first, last := r.SolutionLines()
		inLoop := m.calledInLoop[enclosingFunc(src.Lines, r.Begin)]
		for n := first; n <= last; n++ {
			m.hostWait(r, n, inLoop)
		}
	}
	for _, r := range src.Regions {
		first, last := r.SolutionLines()
		for n := first; n <= last; n++ {
			m.syncTwin(n)
			m.deleteLaunch(n)
			m.wrongBuffer(r, n, m.loops[n-1] != 0 || m.calledInLoop[enclosingFunc(src.Lines, r.Begin)])
		}
		m.hoistAlloc(first, last)
		for n := first; n <= last; n++ {
			m.deleteCall(n)
			m.otherStream(n)
			m.offByOne(n)
			m.pollWait(n)
			m.wrongPool(n)
			m.partialDrain(n)
			m.oneEvent(n)
			m.resetAfterBarrier(r, n)
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
	base         []byte
	loops        []int // loops[i]: the line (from 1) of the loop around line i+1; 0 outside loops
	calledInLoop map[string]bool
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

// statement reports whether line n is a whole statement: it ends with ;
// and its parentheses balance.
func statement(l string) bool {
	code := strings.TrimSpace(stripComment(l))
	return strings.HasSuffix(code, ";") && strings.Count(code, "(") == strings.Count(code, ")") && !strings.HasPrefix(code, "for") && !strings.HasPrefix(code, "return")
}

// jump reports whether a statement leaves the block: nothing after it
// in the block runs.
func jump(l string) bool {
	code := strings.TrimSpace(stripComment(l))
	for _, k := range []string{"return", "break", "continue", "goto", "throw"} {
		if code == k+";" || strings.HasPrefix(code, k+" ") || strings.HasPrefix(code, k+"(") {
			return true
		}
	}
	return false
}

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
}

func eolOf(l string) string {
	if e := lineEnding(l); e != "" {
		return e
	}
	return "\n"
}

func (m *mutator) deleteCall(n int) {
	l := m.src.Lines[n-1]
	if !apiCallRE.MatchString(stripComment(l)) || !statement(l) {
		return
	}
	m.add("delete-call", n, "", func(lines []string) []string {
		return append(lines[:n-1], lines[n:]...)
	})
}

// call is a call found in a line: its name, the span of its arguments
// (inside the parentheses) and the arguments.
type call struct {
	name       string
	open, end  int // l[open] is '(', l[end] is ')'
	args       []string
	argsStarts []int
}

// calls finds the calls of names in l.
func calls(l string, re *regexp.Regexp) []call {
	var out []call
	for _, loc := range re.FindAllStringSubmatchIndex(l, -1) {
		c := call{name: l[loc[2]:loc[3]], open: loc[1] - 1}
		c.args, c.argsStarts, c.end = splitArgs(l, c.open)
		if c.end > 0 {
			out = append(out, c)
		}
	}
	return out
}

// splitArgs splits the arguments of the parenthesis that opens at
// l[open]: each argument, where it starts, and where the parenthesis
// closes (0 when it does not on this line).
func splitArgs(l string, open int) (args []string, starts []int, end int) {
	depth, start := 0, open+1
	for i := open; i < len(l); i++ {
		switch l[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return append(args, l[start:i]), append(starts, start), i
			}
		case ',':
			if depth == 1 {
				args = append(args, l[start:i])
				starts = append(starts, start)
				start = i + 1
			}
		}
	}
	return nil, nil, 0
}

var anyCallRE = regexp.MustCompile(`\b(cuda\w+|cu[A-Z]\w+)\s*\(`)

// syncTwin replaces each stream-ordered call of line n, one mutant each.
func (m *mutator) syncTwin(n int) {
	l := m.src.Lines[n-1]
	cs := calls(stripComment(l), anyCallRE)
	var twins []call
	for _, c := range cs {
		if t, ok := syncTwins[c.name]; ok && len(c.args) > t.stream {
			twins = append(twins, c)
		}
	}
	for k, c := range twins {
		t := syncTwins[c.name]
		var args []string
		for i, a := range c.args {
			if i != t.stream && !slices.Contains(t.drop, i) {
				args = append(args, strings.TrimSpace(a))
			}
		}
		repl := l[:c.open-len(c.name)] + t.twin + "(" + strings.Join(args, ", ") + ")" + l[c.end+1:]
		variant := ""
		if len(twins) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("sync-twin", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// launchRE is a kernel launch's configuration with a stream: <<<g, b, s, stream>>>.
var launchRE = regexp.MustCompile(`<<<([^,>]+),([^,>]+),([^,>]+),([^>]+)>>>`)

// streamDeclRE is a declaration of streams (variables, parameters,
// members): what follows cudaStream_t up to = ; ( ) or {.
var streamDeclRE = regexp.MustCompile(`\bcudaStream_t\s*&?\s*([^;=(){}]+)`)

// streamDecl is a stream in the source: its expression (an array's first
// element for an array), the line it is declared on, and the function
// whose body or parameters hold it ("" outside functions).
type streamDecl struct {
	expr string
	line int
	fn   string
}

// streamsDeclared are the streams the source declares.
func (m *mutator) streamsDeclared() []streamDecl {
	var out []streamDecl
	seen := map[string]bool{}
	for i, l := range m.src.Lines {
		for _, mm := range streamDeclRE.FindAllStringSubmatch(stripComment(l), -1) {
			for _, d := range strings.Split(mm[1], ",") {
				d = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(d), "*&"))
				name, arr, _ := strings.Cut(d, "[")
				name = strings.TrimSpace(name)
				if !identRE.MatchString(name) {
					continue
				}
				if arr != "" || strings.Contains(d, "[") {
					name += "[0]"
				}
				fn := enclosingFunc(m.src.Lines, i+1)
				if mm := funcHeadRE.FindStringSubmatch(strings.TrimRight(stripComment(l), " \t\r\n")); mm != nil && !controlWords[mm[1]] {
					fn = mm[1] // a parameter
				}
				if !seen[name+"\x00"+fn] {
					seen[name+"\x00"+fn] = true
					out = append(out, streamDecl{name, i + 1, fn})
				}
			}
		}
	}
	return out
}

// streamSpots are the stream arguments of line l: calls' and launches'.
func streamSpots(l string) [][2]int {
	var spots [][2]int
	for _, c := range calls(l, anyCallRE) {
		if i, ok := streamArgs[c.name]; ok && i < len(c.args) {
			st := c.argsStarts[i]
			spots = append(spots, [2]int{st, st + len(c.args[i])})
		}
	}
	for _, loc := range launchRE.FindAllStringSubmatchIndex(l, -1) {
		spots = append(spots, [2]int{loc[8], loc[9]})
	}
	return spots
}

// otherStream replaces each stream argument of line n by the default
// stream and by each other stream in scope: declared before it in its
// function or outside functions, or a member (named with a trailing _).
func (m *mutator) otherStream(n int) {
	full := m.src.Lines[n-1]
	spots := streamSpots(stripComment(full))
	decls := m.streamsDeclared()
	fn := enclosingFunc(m.src.Lines, n)
	for k, sp := range spots {
		cur := strings.TrimSpace(full[sp[0]:sp[1]])
		alts := []string{"0"}
		for _, d := range decls {
			inScope := (d.line <= n && (d.fn == fn || d.fn == "")) || strings.HasSuffix(d.expr, "_")
			if d.expr != cur && inScope && !slices.Contains(alts, d.expr) {
				alts = append(alts, d.expr)
			}
		}
		for _, alt := range alts {
			if alt == cur || (alt == "0" && (cur == "nullptr" || cur == "cudaStreamLegacy" || cur == "NULL")) {
				continue
			}
			variant := alt
			if len(spots) > 1 {
				variant = strconv.Itoa(k+1) + ":" + alt
			}
			repl := full[:sp[0]] + leading(full[sp[0]:sp[1]]) + alt + full[sp[1]:]
			m.add("other-stream", n, variant, func(lines []string) []string {
				lines[n-1] = repl
				return lines
			})
		}
	}
}

var identRE = regexp.MustCompile(`^[A-Za-z_]\w*$`)

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// loopStream is the stream that the code from line from to line n uses:
// the last stream argument passed there, or "".
func (m *mutator) loopStream(from, n int) string {
	s := ""
	for i := from; i <= n; i++ {
		l := stripComment(m.src.Lines[i-1])
		for _, sp := range streamSpots(l) {
			if e := strings.TrimSpace(l[sp[0]:sp[1]]); e != "0" && e != "" {
				s = e
			}
		}
	}
	return s
}

var addrOfRE = regexp.MustCompile(`^\(?\s*(?:\([^()]*\)\s*)?&\s*([A-Za-z_][\w.\->\[\]]*)\s*\)?$`)

// buffers are the device buffers that the code from line from to line n
// has in hand: those it allocated (and has not freed) and those its
// stream-ordered memsets and copies write, most recent last.
func (m *mutator) buffers(from, n int) []string {
	var out []string
	addBuf := func(b string) {
		b = strings.TrimSpace(b)
		if b == "" || b == "nullptr" || b == "0" {
			return
		}
		out = slices.DeleteFunc(out, func(x string) bool { return x == b })
		out = append(out, b)
	}
	for i := from; i <= n; i++ {
		l := stripComment(m.src.Lines[i-1])
		for _, c := range calls(l, anyCallRE) {
			switch {
			case allocRE.MatchString(c.name+"(") && strings.HasPrefix(c.name, "cudaMalloc") && len(c.args) >= 2:
				if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil {
					addBuf(mm[1])
				}
			case (c.name == "cudaMemsetAsync" || c.name == "cudaMemcpyAsync") && len(c.args) >= 3:
				addBuf(c.args[0])
			case (c.name == "cudaFreeAsync" || c.name == "cudaFree") && len(c.args) >= 1:
				b := strings.TrimSpace(c.args[0])
				out = slices.DeleteFunc(out, func(x string) bool { return x == b })
			}
		}
	}
	return out
}

// hostWait inserts, after statement n when it runs in a loop (the
// loop around it, or a loop around a call of its function), each kind
// of host wait: the device's, the loop's stream's, an event's on that
// stream, a synchronous copy from a buffer in hand, and a synchronous
// memset of a buffer just allocated or reset.
func (m *mutator) hostWait(r Region, n int, fnInLoop bool) {
	l := m.src.Lines[n-1]
	if (!fnInLoop && m.loops[n-1] == 0) || !statement(l) || jump(l) {
		return
	}
	from := r.Begin
	if lp := m.loops[n-1]; lp != 0 {
		from = lp
	}
	ind, eol := leading(l), eolOf(l)
	stream := m.loopStream(from, n)
	type wait struct{ kind, code string }
	var waits []wait
	waits = append(waits, wait{"device", "cudaDeviceSynchronize();"})
	if stream != "" {
		waits = append(waits, wait{"stream", "cudaStreamSynchronize(" + stream + ");"})
	}
	es := stream
	if es == "" {
		es = "0"
	}
	waits = append(waits, wait{"event", "{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, " + es + "); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }"})
	if bufs := m.buffers(from, n); len(bufs) > 0 {
		waits = append(waits, wait{"memcpy", "{ char lessons_c; cudaMemcpy(&lessons_c, " + bufs[len(bufs)-1] + ", 1, cudaMemcpyDeviceToHost); }"})
	}
	code := stripComment(l)
	for _, c := range calls(code, anyCallRE) {
		switch {
		case (c.name == "cudaMallocAsync" || c.name == "cudaMalloc" || c.name == "cudaMallocFromPoolAsync") && len(c.args) >= 2:
			if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil {
				waits = append(waits, wait{"memset", "cudaMemset(" + mm[1] + ", 0, " + strings.TrimSpace(c.args[1]) + ");"})
			}
		case c.name == "cudaMemsetAsync" && len(c.args) >= 3:
			waits = append(waits, wait{"memset", "cudaMemset(" + strings.TrimSpace(c.args[0]) + ", " + strings.TrimSpace(c.args[1]) + ", " + strings.TrimSpace(c.args[2]) + ");"})
		}
		if len(waits) > 0 && waits[len(waits)-1].kind == "memset" {
			break
		}
	}
	for _, w := range waits {
		m.add("host-wait", n, w.kind, func(lines []string) []string {
			return append(lines[:n], append([]string{ind + w.code + eol}, lines[n:]...)...)
		})
	}
}

// deleteLaunch leaves out a kernel launch.
func (m *mutator) deleteLaunch(n int) {
	l := m.src.Lines[n-1]
	if !launchStmtRE.MatchString(stripComment(l)) || !statement(l) {
		return
	}
	m.add("delete-launch", n, "", func(lines []string) []string {
		return append(lines[:n-1], lines[n:]...)
	})
}

// allocated are the pointers the source allocates with the runtime
// (&p passed to a cudaMalloc), in order.
func (m *mutator) allocated() []string {
	var out []string
	for _, l := range m.src.Lines {
		for _, c := range calls(stripComment(l), allocRE) {
			if !strings.HasPrefix(c.name, "cudaMalloc") || len(c.args) == 0 {
				continue
			}
			if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil && identRE.MatchString(mm[1]) && !slices.Contains(out, mm[1]) {
				out = append(out, mm[1])
			}
		}
	}
	return out
}

// pointee is the type a pointer variable is declared to point to
// ("float" for float* x), or "" when no declaration is found.
func (m *mutator) pointee(name string) string {
	re := regexp.MustCompile(`([A-Za-z_][\w:]*)\s*\*\s*` + regexp.QuoteMeta(name) + `\b`)
	for _, l := range m.src.Lines {
		if mm := re.FindStringSubmatch(stripComment(l)); mm != nil {
			return mm[1]
		}
	}
	return ""
}

// wrongBuffer gives each launch of line n, for each argument that is a
// buffer the source allocates, another buffer: in a loop, the one this
// argument had the first time round (kept in a static); and each other
// buffer the source allocates.
func (m *mutator) wrongBuffer(r Region, n int, inLoop bool) {
	l := m.src.Lines[n-1]
	code := stripComment(l)
	loc := launchStmtRE.FindStringIndex(code)
	if loc == nil || !statement(l) {
		return
	}
	args, starts, end := splitArgs(code, loc[1]-1)
	if end == 0 {
		return
	}
	bufs := m.allocated()
	ind, eol := leading(l), eolOf(l)
	for k, a := range args {
		name := strings.TrimSpace(a)
		if !slices.Contains(bufs, name) {
			continue
		}
		at := starts[k] + len(leading(a))
		with := func(repl string) string { return l[:at] + repl + l[at+len(name):] }
		if inLoop {
			first := with("lessons_first")
			m.add("wrong-buffer", n, name+"=first", func(lines []string) []string {
				lines[n-1] = first
				return append(lines[:n-1], append([]string{ind + "static auto lessons_first = " + name + ";" + eol}, lines[n-1:]...)...)
			})
		}
		for _, other := range bufs {
			if other == name || m.pointee(other) != m.pointee(name) {
				continue
			}
			repl := with(other)
			m.add("wrong-buffer", n, name+"="+other, func(lines []string) []string {
				lines[n-1] = repl
				return lines
			})
		}
	}
}

// hoistAlloc moves an allocation out of the loop around it, to just
// before the loop.
func (m *mutator) hoistAlloc(first, last int) {
	for n := first; n <= last; n++ {
		l := m.src.Lines[n-1]
		loop := m.loops[n-1]
		if loop == 0 || !allocRE.MatchString(stripComment(l)) || !statement(l) {
			continue
		}
		moved := leading(m.src.Lines[loop-1]) + strings.TrimLeft(l, " \t")
		m.add("hoist-alloc", n, "", func(lines []string) []string {
			lines = append(lines[:n-1], lines[n:]...)
			return append(lines[:loop-1], append([]string{moved}, lines[loop-1:]...)...)
		})
	}
}

var (
	loopCondRE = regexp.MustCompile(`(for\s*\([^;]*;[^;<>]*)(<|<=|>|>=)([^;]*;)`)
	sizeArgRE  = regexp.MustCompile(`\b(cudaMalloc|cudaMallocAsync|cudaMallocFromPoolAsync|cudaMemset|cudaMemsetAsync|cudaMemcpy|cudaMemcpyAsync|cuMemCreate|cuMemMap|cuMemSetAccess)\s*\(`)
)

// sizeArg is the size argument of the calls offByOne changes.
var sizeArg = map[string]int{
	"cudaMalloc": 1, "cudaMallocAsync": 1, "cudaMallocFromPoolAsync": 1, "cudaMemset": 2, "cudaMemsetAsync": 2,
	"cudaMemcpy": 2, "cudaMemcpyAsync": 2, "cuMemCreate": 1, "cuMemMap": 1, "cuMemSetAccess": 1,
}

// offByOne changes a loop's bound (< to <=, <= to <) or a size passed to
// the allocator (one byte less).
func (m *mutator) offByOne(n int) {
	l := m.src.Lines[n-1]
	code := stripComment(l)
	if loc := loopCondRE.FindStringSubmatchIndex(code); loc != nil {
		op := code[loc[4]:loc[5]]
		flip := map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}[op]
		repl := l[:loc[4]] + flip + l[loc[5]:]
		m.add("off-by-one", n, "", func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
		return
	}
	for _, c := range calls(code, sizeArgRE) {
		i := sizeArg[c.name]
		if i >= len(c.args) {
			continue
		}
		st := c.argsStarts[i]
		arg := strings.TrimSpace(c.args[i])
		repl := l[:st] + leading(c.args[i]) + "(" + arg + ") - 1" + l[st+len(c.args[i]):]
		m.add("off-by-one", n, "", func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
		return
	}
}

// serialise is the solution with a cudaStreamSynchronize of each launch's
// stream right after every kernel launch of its regions that names a
// stream (not 0): what a student who does not trust stream order writes,
// and the streams' kernels never run at once (max_concurrent_streams 1).
// Launches on the default stream are left alone: they overlap nothing
// anyway.
func (m *mutator) serialise() {
	first := 0
	m.add("serialise", 0, "", func(lines []string) []string {
		for _, r := range m.src.Regions {
			a, b := r.SolutionLines()
			for n := a; n <= b; n++ {
				l := lines[n-1]
				stream := launchStream(stripComment(l))
				if stream == "" || !statement(l) || jump(l) {
					continue
				}
				if lineEnding(l) == "" {
					l += "\n"
				}
				lines[n-1] = l + leading(l) + "cudaStreamSynchronize(" + stream + ");" + eolOf(l)
				if first == 0 {
					first = n
				}
			}
		}
		if first == 0 {
			return nil
		}
		return lines
	})
	if k := len(m.out) - 1; k >= 0 && m.out[k].Op == "serialise" {
		m.out[k].ID, m.out[k].Line = "serialise", first
	}
}

// launchStream is the stream a launch statement names (its fourth
// <<< >>> argument), or "" for none or the default stream.
func launchStream(code string) string {
	mm := launchStmtRE.FindStringSubmatch(code)
	if mm == nil {
		return ""
	}
	args, _, _ := splitArgs("("+mm[1]+")", 0)
	if len(args) < 4 {
		return ""
	}
	s := strings.TrimSpace(args[3])
	switch s {
	case "", "0", "NULL", "nullptr", "cudaStreamLegacy", "cudaStreamPerThread":
		return ""
	}
	return s
}

// noWork is the solution with every kernel launch of its regions left
// out and every allocator call (pools, VMM, memsets and copies too)
// replaced by success: what it prints is kept.
func (m *mutator) noWork() {
	first := 0
	m.add("no-work", 0, "", func(lines []string) []string {
		for _, r := range m.src.Regions {
			a, b := r.SolutionLines()
			for n := a; n <= b; n++ {
				l := lines[n-1]
				code := stripComment(l)
				if launchStmtRE.MatchString(code) && statement(l) {
					lines[n-1] = dropped
					if first == 0 {
						first = n
					}
					continue
				}
				cs := calls(code, workCallRE)
				for k := len(cs) - 1; k >= 0; k-- {
					c := cs[k]
					ok := "cudaSuccess"
					if strings.HasPrefix(c.name, "cuMem") {
						ok = "CUDA_SUCCESS"
					}
					l = l[:c.open-len(c.name)] + ok + l[c.end+1:]
					if first == 0 {
						first = n
					}
				}
				lines[n-1] = l
			}
		}
		return lines
	})
	if k := len(m.out) - 1; k >= 0 && m.out[k].Op == "no-work" {
		m.out[k].ID, m.out[k].Line = "no-work", first
	}
}

var mainRE = regexp.MustCompile(`(?m)^\s*int\s+main\s*\(`)

// replay replaces the program by one that prints, for each run the spec
// makes, what the solution printed for that run's arguments and
// environment, and makes no CUDA call. It runs before main (a
// constructor, told argc, argv and envp by the C library), so that a
// file without main (a header the exercise's main includes) keeps its
// declarations and the rest compiles.
func (m *mutator) replay(runs []RecordedRun) {
	// The most specific run first: more environment to match.
	order := slices.Clone(runs)
	sort.SliceStable(order, func(i, j int) bool { return len(order[i].Env) > len(order[j].Env) })
	if strings.EqualFold(filepath.Ext(m.src.File), ".py") {
		m.addData("replay", "replay", 0, pythonReplay(order, runs[0].Output))
		return
	}
	var b strings.Builder
	b.WriteString("#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n")
	b.WriteString("static bool lessons_env(char** envp, const char* kv) {\n    for (char** e = envp; e && *e; e++) if (strcmp(*e, kv) == 0) return true;\n    return false;\n}\n")
	b.WriteString("__attribute__((constructor)) static void lessons_replay(int argc, char** argv, char** envp) {\n")
	for _, r := range order {
		cond := []string{fmt.Sprintf("argc == %d", len(r.Args)+1)}
		for i, a := range r.Args {
			cond = append(cond, fmt.Sprintf("strcmp(argv[%d], %s) == 0", i+1, cString(a)))
		}
		keys := make([]string, 0, len(r.Env))
		for k := range r.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cond = append(cond, "lessons_env(envp, "+cString(k+"="+r.Env[k])+")")
		}
		fmt.Fprintf(&b, "    if (%s) {\n        fputs(%s, stdout);\n        fflush(stdout);\n        _Exit(0);\n    }\n", strings.Join(cond, " && "), cString(r.Output))
	}
	fmt.Fprintf(&b, "    fputs(%s, stdout);\n    fflush(stdout);\n    _Exit(0);\n}\n", cString(runs[0].Output))
	prog := b.String()
	if mainRE.Match(m.base) {
		prog += "int main() { return 0; }\n"
	} else {
		prog = string(m.base) + "\n" + prog
	}
	m.addData("replay", "replay", 0, prog)
}

// pythonReplay is the replay mutant of a Python exercise (run as python3
// FILE.py): a script in Python, since C appended to the solution is a
// SyntaxError, a mutant killed by exit whatever the spec checks. order
// is the runs, the most specific first; printed is what a run that
// matches none prints (the public run's output, as in C).
func pythonReplay(order []RecordedRun, printed string) string {
	var b strings.Builder
	b.WriteString("import os\nimport sys\n\nRUNS = [\n")
	for _, r := range order {
		args, _ := json.Marshal(append([]string{}, r.Args...))
		env, _ := json.Marshal(r.Env)
		if r.Env == nil {
			env = []byte("{}")
		}
		out, _ := json.Marshal(r.Output)
		fmt.Fprintf(&b, "    (%s, %s, %s),\n", args, env, out)
	}
	out, _ := json.Marshal(printed)
	fmt.Fprintf(&b, "]\n\nprinted = %s\n", out)
	b.WriteString("for args, env, out in RUNS:\n")
	b.WriteString("    if sys.argv[1:] == args and all(os.environ.get(k) == v for k, v in env.items()):\n")
	b.WriteString("        printed = out\n        break\n")
	b.WriteString("sys.stdout.buffer.write(printed.encode(\"utf-8\", \"surrogateescape\"))\nsys.stdout.flush()\nos._exit(0)\n")
	return b.String()
}

// cString is s as a C string literal.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range []byte(s) {
		switch {
		case r == '\n':
			b.WriteString(`\n"` + "\n    \"")
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(r)
		case r == '?':
			b.WriteString(`\?`) // no trigraphs
		case r < 0x20 || r >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		default:
			b.WriteByte(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// funcHeadRE is the head of a function's definition: a name, its
// parameters, and the opening brace.
var funcHeadRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:final\s*)?(?::[^{;]*)?\{\s*(?://.*)?$`)

var controlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "do": true}

// enclosingFunc is the name of the function whose body holds line n (the
// nearest function head above it that is not closed before it), or "".
func enclosingFunc(lines []string, n int) string {
	depth := 0
	for i := n - 2; i >= 0; i-- {
		code := stripComment(lines[i])
		depth += strings.Count(code, "}") - strings.Count(code, "{")
		if depth >= 0 {
			continue
		}
		if mm := funcHeadRE.FindStringSubmatch(strings.TrimRight(code, " \t\r\n")); mm != nil && !controlWords[mm[1]] {
			return mm[1]
		}
		depth = 0
	}
	return ""
}

// oneLineFuncRE is a function defined on one line: its name and body.
var oneLineFuncRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:final\s*)?\{(.*)\}\s*;?\s*$`)

var callNameRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// calledInLoop are the functions that run in a loop of the files: called
// on a line inside a loop's braces or on a loop's own line (a body
// without braces), or called by a function that runs in a loop.
func calledInLoop(files [][]string) map[string]bool {
	out := map[string]bool{}
	calls := map[string][]string{} // function -> the functions it calls
	loopLineRE := regexp.MustCompile(`^\s*(?:for|while)\s*\(`)
	for _, lines := range files {
		loops := loopsOf(lines)
		for i, l := range lines {
			code := stripComment(l)
			caller := enclosingFunc(lines, i+1)
			body := code
			if mm := oneLineFuncRE.FindStringSubmatch(code); mm != nil && !controlWords[mm[1]] {
				caller, body = mm[1], mm[2]
			}
			inLoop := loops[i] != 0 || loopLineRE.MatchString(code)
			for _, mm := range callNameRE.FindAllStringSubmatch(body, -1) {
				if controlWords[mm[1]] {
					continue
				}
				if inLoop {
					out[mm[1]] = true
				}
				if caller != "" {
					calls[caller] = append(calls[caller], mm[1])
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for f := range out {
			for _, g := range calls[f] {
				if !out[g] {
					out[g], changed = true, true
				}
			}
		}
	}
	delete(out, "")
	return out
}

// loopsOf finds, for each line, the line of the innermost loop whose
// braces hold it (0 when none). It reads braces, skipping comments,
// strings and characters: enough for the solutions of a course.
func loopsOf(lines []string) []int {
	out := make([]int, len(lines))
	type open struct{ loop int }
	var stack []open
	header := ""    // code since the last ; { or }
	headerLine := 0 // where it began
	inBlock := false
	cur := func() int {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].loop > 0 {
				return stack[i].loop
			}
		}
		return 0
	}
	loopRE := regexp.MustCompile(`^\s*(for|while)\s*\(|^\s*do\s*$`)
	macro := false // a line of a #define, continued with \\
	for i, l := range lines {
		out[i] = cur()
		trimmed := strings.TrimSpace(l)
		if macro || strings.HasPrefix(trimmed, "#") {
			macro = strings.HasSuffix(trimmed, "\\")
			continue
		}
		for j := 0; j < len(l); j++ {
			ch := l[j]
			if inBlock {
				if ch == '*' && j+1 < len(l) && l[j+1] == '/' {
					inBlock = false
					j++
				}
				continue
			}
			switch {
			case ch == '/' && j+1 < len(l) && l[j+1] == '/':
				j = len(l)
				continue
			case ch == '/' && j+1 < len(l) && l[j+1] == '*':
				inBlock = true
				j++
				continue
			case ch == '"' || ch == '\'':
				for j++; j < len(l) && l[j] != ch; j++ {
					if l[j] == '\\' {
						j++
					}
				}
				continue
			}
			switch ch {
			case '{':
				loop := 0
				if loopRE.MatchString(header) {
					loop = headerLine
				}
				stack = append(stack, open{loop})
				header, headerLine = "", 0
			case '}':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				header, headerLine = "", 0
			case ';':
				if !strings.Contains(header, "(") || strings.Count(header, "(") == strings.Count(header, ")") {
					header, headerLine = "", 0
				} else {
					header += ";"
				}
			default:
				if headerLine == 0 && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
					headerLine = i + 1
				}
				if headerLine != 0 {
					header += string(ch)
				}
			}
		}
		if headerLine != 0 {
			header += " "
		}
		// A line that opens a loop's body is itself outside it; the
		// lines after are in it.
	}
	return out
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
