package author

import (
	"slices"
	"strings"
)

// wrongBuffer gives each launch of line n, for each argument that is a
// buffer the source allocates, another buffer: in a loop, the one this
// argument had the first time round (kept in a static); and each other
// buffer the source allocates.
func (m *mutator) wrongBuffer(r Region, n int, inLoop bool) {
	l := m.src.Lines[n-1]
	code := m.code[n-1]
	loc := launchStmtRE.FindStringIndex(code)
	if loc == nil || !statement(code) || !m.joint(n-1) {
		return
	}
	args, starts, end := splitArgs(code, l, loc[1]-1)
	if end == 0 {
		return
	}
	bufs := m.allocated()
	ind, eol := leading(l), eolOf(l)
	for k, a := range args {
		name := strings.TrimSpace(a)
		if !slices.Contains(bufs, name) {
			continue
		}
		at := starts[k] + len(leading(a))
		with := func(repl string) string { return l[:at] + repl + l[at+len(name):] }
		if inLoop {
			first := with("lessons_first")
			m.add("wrong-buffer", n, name+"=first", func(lines []string) []string {
				lines[n-1] = first
				return append(lines[:n-1], append([]string{ind + "static auto lessons_first = " + name + ";" + eol}, lines[n-1:]...)...)
			})
		}
		for _, other := range bufs {
			if other == name || m.pointee(other) != m.pointee(name) {
				continue
			}
			repl := with(other)
			m.add("wrong-buffer", n, name+"="+other, func(lines []string) []string {
				lines[n-1] = repl
				return lines
			})
		}
	}
}
