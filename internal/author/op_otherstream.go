package author

import (
	"slices"
	"strconv"
	"strings"
)

// otherStream replaces each stream argument of line n by the default
// stream and by each other stream in scope: declared before it in its
// function or outside functions, or a member (named with a trailing _).
func (m *mutator) otherStream(n int) {
	full := m.src.Lines[n-1]
	spots := streamSpots(m.code[n-1])
	decls := m.streamsDeclared()
	fn := enclosingFunc(m.code, n)
	for k, sp := range spots {
		if !pure(full[sp[0]:sp[1]], m.code[n-1][sp[0]:sp[1]]) {
			continue // a comment or a literal in it: not a stream to replace
		}
		cur := strings.TrimSpace(full[sp[0]:sp[1]])
		alts := []string{"0"}
		for _, d := range decls {
			inScope := (d.line <= n && (d.fn == fn || d.fn == "")) || strings.HasSuffix(d.expr, "_")
			if d.expr != cur && inScope && !slices.Contains(alts, d.expr) {
				alts = append(alts, d.expr)
			}
		}
		for _, alt := range alts {
			if alt == cur || (alt == "0" && (cur == "nullptr" || cur == "cudaStreamLegacy" || cur == "NULL")) {
				continue
			}
			variant := alt
			if len(spots) > 1 {
				variant = strconv.Itoa(k+1) + ":" + alt
			}
			repl := full[:sp[0]] + leading(full[sp[0]:sp[1]]) + alt + full[sp[1]:]
			m.add("other-stream", n, variant, func(lines []string) []string {
				lines[n-1] = repl
				return lines
			})
		}
	}
}
