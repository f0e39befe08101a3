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
