package author

import (
	"slices"
	"strconv"
	"strings"
)

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

// syncTwin replaces each stream-ordered call of line n, one mutant each.
func (m *mutator) syncTwin(n int) {
	l := m.src.Lines[n-1]
	cs := calls(m.code[n-1], l, anyCallRE)
	var twins []call
	for _, c := range cs {
		if t, ok := syncTwins[c.name]; ok && len(c.args) > t.stream && allPure(c) {
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
		repl := l[:c.start] + t.twin + "(" + strings.Join(args, ", ") + ")" + l[c.end+1:]
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
