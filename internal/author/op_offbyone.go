package author

import (
	"regexp"
	"strings"
)

var (
	loopCondRE = regexp.MustCompile(`(for\s*\([^;]*;[^;<>]*)(<=|<|>=|>)([^;]*;)`)
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
	code := m.code[n-1]
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
	for _, c := range calls(code, l, sizeArgRE) {
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
