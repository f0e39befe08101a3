package author

import (
	"regexp"
	"strconv"
	"strings"
)

// The families of mistakes that the record of version 8 sees in any
// program (checker/stats.go): a host poll where the GPU should wait, an
// allocation from another pool than the one configured, a wait for one
// stream where the host reads what several wrote, one event standing for
// many. Each is applied at every site of its kind in the regions.

// pollFor is an expression that polls query(arg) on the host until it
// stops answering cudaErrorNotReady, and gives its last answer: it
// stands where a cudaError_t is expected (inside CHECK(...) too).
func pollFor(query, arg string) string {
	return "[&] { cudaError_t lessons_r; while ((lessons_r = " + query + "(" + arg + ")) == cudaErrorNotReady) {} return lessons_r; }()"
}

// replaceCall is line l with call c (found in l's code without its
// comment, which starts at the same offsets) replaced by repl.
func replaceCall(l string, c call, repl string) string {
	return l[:c.open-len(c.name)] + repl + l[c.end+1:]
}

// pollWait replaces each cudaStreamWaitEvent(s, e, f) of line n by the
// host polling e: the stream is then ordered only because the host
// waited, a host wait the exercise forbids.
func (m *mutator) pollWait(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(stripComment(l), anyCallRE) {
		if c.name == "cudaStreamWaitEvent" && len(c.args) >= 2 {
			sites = append(sites, c)
		}
	}
	for k, c := range sites {
		repl := replaceCall(l, c, pollFor("cudaEventQuery", strings.TrimSpace(c.args[1])))
		variant := ""
		if len(sites) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("poll-wait", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// wrongPool allocates from another pool than the one the program
// configured: cudaMallocFromPoolAsync(p, n, pool, s) becomes
// cudaMallocAsync(p, n, s), the device's current pool, so that the
// settings made on pool reach no allocation.
func (m *mutator) wrongPool(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(stripComment(l), anyCallRE) {
		if c.name == "cudaMallocFromPoolAsync" && len(c.args) == 4 {
			sites = append(sites, c)
		}
	}
	for k, c := range sites {
		args := []string{strings.TrimSpace(c.args[0]), strings.TrimSpace(c.args[1]), strings.TrimSpace(c.args[3])}
		repl := replaceCall(l, c, "cudaMallocAsync("+strings.Join(args, ", ")+")")
		variant := ""
		if len(sites) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("wrong-pool", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// partialDrain replaces each cudaDeviceSynchronize() of line n by a wait
// for one stream in scope (each, one mutant each): the host then reads
// what the other streams wrote before they are done.
func (m *mutator) partialDrain(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(stripComment(l), anyCallRE) {
		if c.name == "cudaDeviceSynchronize" {
			sites = append(sites, c)
		}
	}
	if len(sites) == 0 {
		return
	}
	fn := enclosingFunc(m.src.Lines, n)
	var streams []string
	for _, d := range m.streamsDeclared() {
		inScope := (d.line <= n && (d.fn == fn || d.fn == "")) || strings.HasSuffix(d.expr, "_")
		if inScope && !contains(streams, d.expr) {
			streams = append(streams, d.expr)
		}
	}
	for k, c := range sites {
		for _, s := range streams {
			repl := replaceCall(l, c, "cudaStreamSynchronize("+s+")")
			variant := s
			if len(sites) > 1 {
				variant = strconv.Itoa(k+1) + ":" + s
			}
			m.add("partial-drain", n, variant, func(lines []string) []string {
				lines[n-1] = repl
				return lines
			})
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// eventArgs are the calls that take an event, and which argument it is.
var eventArgs = map[string]int{
	"cudaEventRecord": 0, "cudaEventRecordWithFlags": 0, "cudaStreamWaitEvent": 1,
	"cudaEventQuery": 0, "cudaEventSynchronize": 0,
}

// indexedRE is an element of an array or a vector: name[index].
var indexedRE = regexp.MustCompile(`^([A-Za-z_][\w.\->]*)\s*\[(.+)\]$`)

// oneEvent makes one event stand for many: an event argument e[i] of
// line n (i not 0) becomes e[0], so that a block, a round or a stream
// is ordered by another one's event (or by one never recorded).
func (m *mutator) oneEvent(n int) {
	l := m.src.Lines[n-1]
	code := stripComment(l)
	type site struct {
		start, end int
		repl       string
	}
	var sites []site
	for _, c := range calls(code, anyCallRE) {
		i, ok := eventArgs[c.name]
		if !ok || i >= len(c.args) {
			continue
		}
		arg := strings.TrimSpace(c.args[i])
		mm := indexedRE.FindStringSubmatch(arg)
		if mm == nil || strings.TrimSpace(mm[2]) == "0" {
			continue
		}
		st := c.argsStarts[i] + strings.Index(c.args[i], arg)
		sites = append(sites, site{st, st + len(arg), mm[1] + "[0]"})
	}
	for k, s := range sites {
		repl := l[:s.start] + s.repl + l[s.end:]
		variant := ""
		if len(sites) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("one-event", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

var barrierRE = regexp.MustCompile(`^\s*__syncthreads\s*\(\s*\)\s*;`)

// resetAfterBarrier moves the statement before a __syncthreads() of
// line n after it: what every thread must see set (a shared offset
// reset, a flag cleared) is then written while other threads already
// read it, a race only racecheck sees.
func (m *mutator) resetAfterBarrier(r Region, n int) {
	first, _ := r.SolutionLines()
	if n-1 < first || !barrierRE.MatchString(stripComment(m.src.Lines[n-1])) {
		return
	}
	prev := m.src.Lines[n-2]
	if !statement(prev) || jump(prev) || barrierRE.MatchString(stripComment(prev)) {
		return
	}
	m.add("reset-after-barrier", n, "", func(lines []string) []string {
		lines[n-2], lines[n-1] = lines[n-1], lines[n-2]
		return lines
	})
}
