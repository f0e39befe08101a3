package author

import (
	"strconv"
	"strings"
)

// wrongPool allocates from another pool than the one the program
// configured: cudaMallocFromPoolAsync(p, n, pool, s) becomes
// cudaMallocAsync(p, n, s), the device's current pool, so that the
// settings made on pool reach no allocation.
func (m *mutator) wrongPool(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(m.code[n-1], l, anyCallRE) {
		if c.name == "cudaMallocFromPoolAsync" && len(c.args) == 4 && allPure(c) {
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
