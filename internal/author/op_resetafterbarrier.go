package author

import "regexp"

var barrierRE = regexp.MustCompile(`^\s*__syncthreads\s*\(\s*\)\s*;`)

// resetAfterBarrier moves the statement before a __syncthreads() of
// line n after it: what every thread must see set (a shared offset
// reset, a flag cleared) is then written while other threads already
// read it, a race only racecheck sees.
func (m *mutator) resetAfterBarrier(r Region, n int) {
	first, _ := r.SolutionLines()
	if n-1 < first || !barrierRE.MatchString(m.code[n-1]) {
		return
	}
	prev := m.code[n-2]
	if !statement(prev) || jump(prev) || barrierRE.MatchString(prev) || !m.joint(n-2) || !m.joint(n-1) || !m.joint(n) {
		return
	}
	m.add("reset-after-barrier", n, "", func(lines []string) []string {
		lines[n-2], lines[n-1] = lines[n-1], lines[n-2]
		return lines
	})
}
