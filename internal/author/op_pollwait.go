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
