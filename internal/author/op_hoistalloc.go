package author

import "strings"

// hoistAlloc moves an allocation out of the loop around it, to just
// before the loop.
func (m *mutator) hoistAlloc(first, last int) {
	for n := first; n <= last; n++ {
		l := m.src.Lines[n-1]
		loop := m.loops[n-1]
		if code := m.code[n-1]; loop == 0 || !allocRE.MatchString(code) || !statement(code) || !m.joint(n-1) || !m.joint(n) || !m.joint(loop-1) {
			continue
		}
		moved := leading(m.src.Lines[loop-1]) + strings.TrimLeft(l, " \t")
		m.add("hoist-alloc", n, "", func(lines []string) []string {
			lines = append(lines[:n-1], lines[n:]...)
			return append(lines[:loop-1], append([]string{moved}, lines[loop-1:]...)...)
		})
	}
}
