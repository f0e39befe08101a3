package author

import (
	"strconv"
	"strings"
)

// pollFor is an expression that polls query(arg) on the host until it
// stops answering cudaErrorNotReady, and gives its last answer: it
// stands where a cudaError_t is expected (inside CHECK(...) too).
func pollFor(query, arg string) string {
	return "[&] { cudaError_t lessons_r; while ((lessons_r = " + query + "(" + arg + ")) == cudaErrorNotReady) {} return lessons_r; }()"
}

// pollWait replaces each cudaStreamWaitEvent(s, e, f) of line n by the
// host polling e: the stream is then ordered only because the host
// waited, a host wait the exercise forbids.
func (m *mutator) pollWait(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(m.code[n-1], l, anyCallRE) {
		if c.name == "cudaStreamWaitEvent" && len(c.args) >= 2 && allPure(c) {
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

// pollHost makes the host poll the loop's stream at the end of each
// loop of region r (the last statement of the region inside the loop;
// of the region, when its function runs in a loop): a wait on the host,
// written as a loop on cudaStreamQuery, where the exercise forbids host
// waits. One mutant per loop, not per statement: host-wait puts a wait
// of each other kind after every statement.
func (m *mutator) pollHost(r Region, fnInLoop bool) {
	first, last := r.SolutionLines()
	lastIn := map[int]int{} // loop line (0: the function's) -> its last statement in r
	var order []int
	for n := first; n <= last; n++ {
		code := m.code[n-1]
		lp := m.loops[n-1]
		if (lp == 0 && !fnInLoop) || !statement(code) || jump(code) || !m.joint(n) || m.onDevice(n) {
			continue
		}
		if _, ok := lastIn[lp]; !ok {
			order = append(order, lp)
		}
		lastIn[lp] = n
	}
	for _, lp := range order {
		n := lastIn[lp]
		from := r.Begin
		if lp != 0 {
			from = lp
		}
		stream := m.loopStream(from, n)
		if stream == "" {
			continue
		}
		l := m.src.Lines[n-1]
		poll := leading(l) + "while (cudaStreamQuery(" + stream + ") == cudaErrorNotReady) {}" + eolOf(l)
		m.add("poll-wait", n, "host", func(lines []string) []string {
			return append(lines[:n], append([]string{poll}, lines[n:]...)...)
		})
	}
}
