package author

import "regexp"

var (
	// firstErrorRE is an error kept only while none is:
	// `if (err == cudaSuccess) err = e;`.
	firstErrorRE = regexp.MustCompile(`^(\s*)if\s*\(\s*(\w+)\s*==\s*cudaSuccess\s*\)\s*((\w+)\s*=\s*[^;=][^;]*;)`)
	// checkedGetRE is a get of a pool's attribute (the get a hidden run
	// can make fail) whose failure is answered with a value of the
	// program's: `if (cudaMemPoolGetAttribute(...) != cudaSuccess) return 0;`.
	checkedGetRE = regexp.MustCompile(`^(\s*)if\s*\(\s*(cudaMemPoolGetAttribute\s*\(.*\))\s*!=\s*cudaSuccess\s*\)\s*return\b[^;]*;`)
)

// errorKept turns an error path into the mistake students make on it:
// the first error kept becomes the last one (the guard dropped, so a
// later call that succeeds wipes it out: first-error), and a get whose
// failure was answered is made and its value used as the call left it
// (unchecked-get). Only a run that makes a call fail tells them from the
// solution. The operators read the line's code (comments and literals
// blanked, at the same places) and cut the line itself, never where
// what they drop holds a comment or a literal.
func (m *mutator) errorKept(n int) {
	l, code := m.src.Lines[n-1], m.code[n-1]
	if x := firstErrorRE.FindStringSubmatchIndex(code); x != nil && code[x[4]:x[5]] == code[x[8]:x[9]] && l[x[3]:x[6]] == code[x[3]:x[6]] {
		repl := l[:x[3]] + l[x[6]:x[7]] + l[x[1]:]
		m.add("first-error", n, "", func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
		return
	}
	if x := checkedGetRE.FindStringSubmatchIndex(code); x != nil && l[x[3]:x[4]] == code[x[3]:x[4]] && l[x[5]:x[1]] == code[x[5]:x[1]] {
		repl := l[:x[3]] + l[x[4]:x[5]] + ";" + l[x[1]:]
		m.add("unchecked-get", n, "", func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}
