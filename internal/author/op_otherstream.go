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
	spots := streamSpots(stripComment(full))
	decls := m.streamsDeclared()
	fn := enclosingFunc(m.src.Lines, n)
	for k, sp := range spots {
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
