package author

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Mutant is a solution with one mistake of the kind students make with
// CUDA memory and streams, made inside a solution region (or, for
// print-recorded, the whole program replaced).
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

// Operators are the mutation operators, in the order they are applied.
var Operators = []string{"delete-call", "sync-twin", "other-stream", "host-sync", "hoist-alloc", "off-by-one", "print-recorded"}

// apiCallRE is a call of the CUDA allocator, stream, event, pool or VMM
// API, or of a memset or copy in stream order.
var apiCallRE = regexp.MustCompile(`\b(cuda(?:Malloc\w*|Free\w*|Stream\w+|Event\w+|MemPool\w+|DeviceSetMemPool|DeviceGetDefaultMemPool|MemsetAsync|MemcpyAsync|MemPrefetchAsync)|cuMem\w+)\s*\(`)

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
	"cudaMallocFromPoolAsync": {"cudaMalloc", 3, []int{2}},
}

// streamArgs are the calls that take a stream, and which argument it is.
var streamArgs = map[string]int{
	"cudaMallocAsync": 2, "cudaFreeAsync": 1, "cudaMemsetAsync": 3, "cudaMemcpyAsync": 4,
	"cudaMallocFromPoolAsync": 3, "cudaEventRecord": 1, "cudaStreamWaitEvent": 0,
	"cudaStreamSynchronize": 0, "cudaMemPrefetchAsync": 3, "cudaLaunchHostFunc": 0,
}

var allocRE = regexp.MustCompile(`\b(cudaMalloc\w*|cuMemCreate|cuMemAddressReserve)\s*\(`)

// Mutants are the mutants of a parsed solution. recorded is what the
// solution printed when it ran; without it there is no print-recorded
// mutant.
func Mutants(src *Source, recorded string) []Mutant {
	m := &mutator{src: src, base: src.Solution(), loops: loopsOf(src.Lines)}
	for _, r := range src.Regions {
		first, last := r.SolutionLines()
		for n := first; n <= last; n++ {
			m.deleteCall(n)
			m.syncTwin(n)
			m.otherStream(n)
			m.offByOne(n)
		}
		m.hostSync(first, last)
		m.hoistAlloc(first, last)
	}
	if recorded != "" {
		m.printRecorded(recorded)
	}
	return m.out
}

type mutator struct {
	src   *Source
	base  []byte
	loops []int // loops[i]: the line (from 1) of the loop around line i+1; 0 outside loops
	out   []Mutant
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
	data := []byte(b.String())
	if string(data) == string(m.base) {
		return
	}
	id := fmt.Sprintf("%s@%d", op, n)
	if variant != "" {
		id += "/" + variant
	}
	m.out = append(m.out, Mutant{ID: id, Op: op, Line: n, Data: data, Diff: Diff(string(m.base), string(data))})
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

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
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
		depth, start := 0, c.open+1
		for i := c.open; i < len(l); i++ {
			switch l[i] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
				if depth == 0 {
					c.args = append(c.args, l[start:i])
					c.argsStarts = append(c.argsStarts, start)
					c.end = i
				}
			case ',':
				if depth == 1 {
					c.args = append(c.args, l[start:i])
					c.argsStarts = append(c.argsStarts, start)
					start = i + 1
				}
			}
			if c.end > 0 {
				break
			}
		}
		if c.end > 0 {
			out = append(out, c)
		}
	}
	return out
}

var anyCallRE = regexp.MustCompile(`\b(cuda\w+|cu[A-Z]\w+)\s*\(`)

func (m *mutator) syncTwin(n int) {
	l := m.src.Lines[n-1]
	for _, c := range calls(l, anyCallRE) {
		t, ok := syncTwins[c.name]
		if !ok || len(c.args) <= t.stream {
			continue
		}
		var args []string
		for i, a := range c.args {
			if i != t.stream && !containsInt(t.drop, i) {
				args = append(args, strings.TrimSpace(a))
			}
		}
		repl := l[:c.open-len(c.name)] + t.twin + "(" + strings.Join(args, ", ") + ")" + l[c.end+1:]
		m.add("sync-twin", n, "", func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
		return
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// launchRE is a kernel launch's configuration with a stream: <<<g, b, s, stream>>>.
var launchRE = regexp.MustCompile(`<<<([^,>]+),([^,>]+),([^,>]+),([^>]+)>>>`)

// streams are the stream expressions the solution passes, for "another
// stream".
func (m *mutator) streams() []string {
	var out []string
	seen := map[string]bool{"0": true, "nullptr": true, "cudaStreamLegacy": true, "cudaStreamPerThread": true}
	for _, l := range m.src.Lines {
		for _, c := range calls(stripComment(l), anyCallRE) {
			if i, ok := streamArgs[c.name]; ok && i < len(c.args) {
				s := strings.TrimSpace(c.args[i])
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		for _, mm := range launchRE.FindAllStringSubmatch(stripComment(l), -1) {
			if s := strings.TrimSpace(mm[4]); !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func (m *mutator) otherStream(n int) {
	l := stripComment(m.src.Lines[n-1])
	full := m.src.Lines[n-1]
	type spot struct{ start, end int }
	var spots []spot
	for _, c := range calls(l, anyCallRE) {
		if i, ok := streamArgs[c.name]; ok && i < len(c.args) {
			st := c.argsStarts[i]
			spots = append(spots, spot{st, st + len(c.args[i])})
		}
	}
	for _, loc := range launchRE.FindAllStringSubmatchIndex(l, -1) {
		spots = append(spots, spot{loc[8], loc[9]})
	}
	for k, sp := range spots {
		cur := strings.TrimSpace(full[sp.start:sp.end])
		alts := []string{"0"}
		for _, s := range m.streams() {
			if s != cur && identRE.MatchString(s) {
				alts = append(alts, s)
				break
			}
		}
		for _, alt := range alts {
			if alt == cur {
				continue
			}
			variant := alt
			if len(spots) > 1 {
				variant = strconv.Itoa(k+1) + ":" + alt
			}
			repl := full[:sp.start] + leading(full[sp.start:sp.end]) + alt + full[sp.end:]
			m.add("other-stream", n, variant, func(lines []string) []string {
				lines[n-1] = repl
				return lines
			})
		}
	}
}

var identRE = regexp.MustCompile(`^[A-Za-z_]\w*$`)

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// hostSync inserts a device-wide synchronisation after the region's
// first statement, when the region is inside a loop.
func (m *mutator) hostSync(first, last int) {
	for n := first; n <= last; n++ {
		l := m.src.Lines[n-1]
		if m.loops[n-1] == 0 || !statement(l) {
			continue
		}
		ind := leading(l)
		eol := lineEnding(l)
		m.add("host-sync", n, "", func(lines []string) []string {
			return append(lines[:n], append([]string{ind + "cudaDeviceSynchronize();" + eol}, lines[n:]...)...)
		})
		return
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

var mainRE = regexp.MustCompile(`(?m)^\s*int\s+main\s*\(`)

// printRecorded replaces the program by one that prints what the
// solution printed and does nothing else. A file without main (a header
// the exercise's main includes) keeps its declarations, so that the rest
// compiles, and prints and exits before main runs.
func (m *mutator) printRecorded(recorded string) {
	lit := cString(recorded)
	var prog string
	if mainRE.Match(m.base) {
		prog = "#include <cstdio>\nint main() {\n    fputs(" + lit + ", stdout);\n    return 0;\n}\n"
	} else {
		prog = string(m.base) + "\n#include <cstdio>\n#include <cstdlib>\nstatic const int lessons_print_recorded = [] {\n    fputs(" + lit + ", stdout);\n    fflush(stdout);\n    std::_Exit(0);\n    return 0;\n}();\n"
	}
	m.out = append(m.out, Mutant{ID: "print-recorded", Op: "print-recorded", Data: []byte(prog), Diff: Diff(string(m.base), prog)})
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
