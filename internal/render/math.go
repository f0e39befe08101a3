package render

import (
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
)

// A notebook's markdown holds LaTeX between dollars, which Jupyter hands
// to MathJax untouched. Read as markdown it was garbled: `$\sigma_i
// \sigma_j$` lost its underscores to emphasis, and an align's `\\` row
// ends became `\` (53 spans in the two corpora of real notebooks). Neither
// the terminal nor the site typesets LaTeX, so math is shown as what it
// is, its source, verbatim: inline math as a code span, display math on
// lines of its own as a code span a line.

// mathAsCode is a notebook markdown cell's source with its math made
// code: $...$ and $$...$$ outside code spans and fences. A dollar that
// does not open math (a price, $HOME in prose) is left alone: as in
// pandoc, an opening $ has no space after it, and a closing $ no space
// before it and no digit after it.
func mathAsCode(md string) string {
	if !strings.Contains(md, "$") {
		return md
	}
	lines := strings.Split(md, "\n")
	var out []string
	fence := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(t)]
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
			out = append(out, l)
			continue
		}
		if len(indent) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
			for len(fence) < len(t) && t[len(fence)] == t[0] {
				fence += t[:1]
			}
			out = append(out, l)
			continue
		}
		if len(indent) < 4 && strings.HasPrefix(t, "$$") && !strings.Contains(t[2:], "$$") {
			// display math over lines: up to the line that closes it
			end := -1
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) == "" {
					break // a blank line ends the paragraph, and the math
				}
				if strings.HasSuffix(strings.TrimRight(lines[j], " "), "$$") {
					end = j
					break
				}
			}
			if end > 0 {
				// a code span a line, with hard breaks: glamour's
				// fenced blocks drop a backslash of \\
				for j := i; j <= end; j++ {
					span := indent + lesson.CodeSpan(strings.TrimSpace(lines[j]))
					if j < end {
						span += "  "
					}
					out = append(out, span)
				}
				i = end
				continue
			}
		}
		out = append(out, inlineMath(l))
	}
	return strings.Join(out, "\n")
}

// inlineMath makes the math of one line code spans.
func inlineMath(l string) string {
	if !strings.Contains(l, "$") {
		return l
	}
	var b strings.Builder
	for i := 0; i < len(l); {
		switch c := l[i]; {
		case c == '\\' && i+1 < len(l):
			b.WriteString(l[i : i+2])
			i += 2
		case c == '`':
			// a code span stays as it is, dollars and all
			n := run(l, i, '`')
			if j := strings.Index(l[i+n:], l[i:i+n]); j >= 0 && run(l, i+n+j, '`') == n {
				b.WriteString(l[i : i+n+j+n])
				i += n + j + n
			} else {
				b.WriteString(l[i : i+n])
				i += n
			}
		case c == '$':
			if end := mathEnd(l, i); end > 0 {
				b.WriteString(lesson.CodeSpan(l[i:end]))
				i = end
			} else {
				b.WriteByte(c)
				i++
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// mathEnd is where the math that opens at l[i] ends (after its closing
// dollars), or 0 when it is not math.
func mathEnd(l string, i int) int {
	d := min(run(l, i, '$'), 2)
	open := i + d
	if open >= len(l) || l[open] == ' ' || l[open] == '\t' {
		return 0
	}
	for j := open; j < len(l); j++ {
		switch {
		case l[j] == '\\':
			j++
		case strings.HasPrefix(l[j:], strings.Repeat("$", d)):
			if j == open || l[j-1] == ' ' || l[j-1] == '\t' {
				return 0
			}
			if d == 1 && j+1 < len(l) && (l[j+1] >= '0' && l[j+1] <= '9' || l[j+1] == '$') {
				return 0
			}
			return j + d
		}
	}
	return 0
}

// run is how many bytes c follow one another from l[i].
func run(l string, i int, c byte) int {
	n := 0
	for i+n < len(l) && l[i+n] == c {
		n++
	}
	return n
}
