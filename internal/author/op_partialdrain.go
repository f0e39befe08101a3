package author

import (
	"strconv"
	"strings"
)

// partialDrain replaces each cudaDeviceSynchronize() of line n by a wait
// for one stream in scope (each, one mutant each): the host then reads
// what the other streams wrote before they are done.
func (m *mutator) partialDrain(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(m.code[n-1], l, anyCallRE) {
		if c.name == "cudaDeviceSynchronize" && allPure(c) {
			sites = append(sites, c)
		}
	}
	if len(sites) == 0 {
		return
	}
	fn := enclosingFunc(m.code, n)
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

// partialDrainFirst makes each wait for one stream of an array of
// streams, x[i] (i not 0: a loop over the streams), a wait for x[0]: the
// host waits for the first stream only, and reads what the others wrote
// before they are done.
func (m *mutator) partialDrainFirst(n int) {
	l := m.src.Lines[n-1]
	type site struct {
		start, end int
		repl       string
	}
	var sites []site
	for _, c := range calls(m.code[n-1], l, anyCallRE) {
		if c.name != "cudaStreamSynchronize" || len(c.args) != 1 || !allPure(c) {
			continue
		}
		arg := strings.TrimSpace(c.args[0])
		mm := indexedRE.FindStringSubmatch(arg)
		if mm == nil || strings.TrimSpace(mm[2]) == "0" {
			continue
		}
		st := c.argsStarts[0] + len(leading(c.args[0]))
		sites = append(sites, site{st, st + len(arg), mm[1] + "[0]"})
	}
	for k, s := range sites {
		repl := l[:s.start] + s.repl + l[s.end:]
		variant := "first"
		if len(sites) > 1 {
			variant = strconv.Itoa(k+1) + ":first"
		}
		m.add("partial-drain", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}
