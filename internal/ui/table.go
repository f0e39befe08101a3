package ui

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Fit wraps text laid out in columns (a command's help, lessons doctor's
// report) to width: a line wider than the terminal breaks at spaces, and
// its next lines hang under its last column, the text after the first
// gap of two spaces or more, as gh and cargo wrap theirs. A line with no
// gap hangs under its own indentation. Where the last column would have
// less than a third of the width, it hangs four columns in instead. A word
// wider than the room is cut.
func Fit(text string, width int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for _, line := range lines {
		out = append(out, fitLine(line, width)...)
	}
	return strings.Join(out, "\n")
}

// Reflow joins the lines of each paragraph of text that starts at the
// left margin (help's prose, written wrapped at about 78 columns), so that
// Fit wraps it as one paragraph on a narrower terminal instead of leaving
// a short line after each long one. Indented lines (usage, flags,
// examples), blank lines and a line ending in ':' (a heading) are kept.
func Reflow(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	prose := func(l string) bool {
		mark, _, _ := strings.Cut(l, " ")
		return l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") && !strings.HasSuffix(l, ":") && !listMarks[mark]
	}
	item := func(l string) bool { mark, _, _ := strings.Cut(l, " "); return listMarks[mark] }
	for i, l := range lines {
		// A list item's own continuation lines join it too.
		if i > 0 && prose(l) && len(out) > 0 && (prose(out[len(out)-1]) || item(out[len(out)-1])) {
			out[len(out)-1] += " " + l
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// listMarks start an item whose lines hang under its text.
var listMarks = map[string]bool{"•": true, "-": true, "–": true, "*": true, "✓": true, "✗": true, "→": true}

func fitLine(line string, width int) []string {
	line = strings.TrimRight(line, " ")
	if ansi.StringWidth(line) <= width {
		return []string{line}
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if indent > width/2 { // deep on a narrow terminal: less deep
		indent = width / 4
		line = strings.Repeat(" ", indent) + strings.TrimLeft(line, " ")
	}
	hang := indent
	// A mark drawn in colour (check's ✗ in red) is the same mark.
	if mark, _, _ := strings.Cut(line[indent:], " "); listMarks[ansi.Strip(mark)] {
		hang = indent + ansi.StringWidth(mark) + 1 // under the item's text
	} else if label := labelWidth(line[indent:]); label > 0 {
		hang = indent + label // "expected: ..." hangs under its text
	} else if gap := strings.Index(line[indent:], "  "); gap >= 0 {
		rest := line[indent+gap:]
		hang = ansi.StringWidth(line[:indent+gap]) + len(rest) - len(strings.TrimLeft(rest, " "))
	}
	if width-hang < width/3 {
		hang = min(indent+4, hang)
	}
	return hangWrap(line, width, hang)
}

// labelWidth is the width of a "label: " that starts s (a word of at
// most 12 columns ending in ':', then spaces), with the spaces; 0 when s
// does not start with one, or has nothing after it.
func labelWidth(s string) int {
	word, rest, ok := strings.Cut(s, " ")
	if !ok || !strings.HasSuffix(word, ":") || ansi.StringWidth(word) > 12 || strings.TrimSpace(rest) == "" {
		return 0
	}
	return ansi.StringWidth(word) + 1 + len(rest) - len(strings.TrimLeft(rest, " "))
}

// hangWrap breaks line at spaces into lines of at most width columns; the
// first keeps its start (a flag's name, the key of a row), the others are
// indented by hang. A word wider than the room is cut.
func hangWrap(line string, width, hang int) []string {
	total := ansi.StringWidth(line)
	if total <= width {
		return []string{line}
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	head, rest := line[:indent], line[indent:]
	if hang > indent && hang < total && strings.TrimSpace(ansi.Cut(line, hang-1, hang)) == "" {
		head, rest = ansi.Cut(line, 0, hang), ansi.Cut(line, hang, total)
	}
	pad := strings.Repeat(" ", hang)
	var out []string
	cur, curW, words := head, ansi.StringWidth(head), 0
	if strings.TrimSpace(head) != "" {
		words = 1
	}
	flush := func() {
		out = append(out, strings.TrimRight(cur, " "))
		cur, curW, words = pad, hang, 0
	}
	for _, w := range strings.Fields(rest) {
		ww := ansi.StringWidth(w)
		if words > 0 && curW+1+ww > width {
			flush()
		}
		if words > 0 && !strings.HasSuffix(cur, " ") {
			cur += " "
			curW++
		}
		for ww > width-curW && width-curW > 0 {
			n := width - curW
			piece, left := cutWord(w, n)
			cur += piece
			w = left
			ww -= ansi.StringWidth(piece)
			flush()
		}
		cur += w
		curW += ww
		words++
	}
	return append(out, strings.TrimRight(cur, " "))
}

// cutWord is the first n columns of word w and the rest. A word with no
// escape sequence (a program's output printed with no space, up to a
// megabyte of it under check -v) is cut in one pass over what is kept,
// so that cutting it into lines takes time in its length, not its square;
// the first character is kept even when wider than n, so that a cut
// always moves on. One with escape sequences is cut as ansi.Cut cuts it.
func cutWord(w string, n int) (string, string) {
	if strings.IndexByte(w, 0x1b) >= 0 {
		ww := ansi.StringWidth(w)
		return ansi.Cut(w, 0, n), ansi.Cut(w, n, ww)
	}
	col := 0
	for i := 0; i < len(w); {
		_, size := utf8.DecodeRuneInString(w[i:])
		rw := ansi.StringWidth(w[i : i+size])
		if col+rw > n {
			if i == 0 {
				i = size
			}
			return w[:i], w[i:]
		}
		col += rw
		i += size
	}
	return w, ""
}

// Table is rows of cells under a header, drawn for a terminal of a given
// width: in columns when they fit; with the last column wrapped under
// itself when only it does not; else as a list, a record per row, each
// cell under its header's name, as glow and gh do on a narrow terminal.
type Table struct {
	Header []string
	Rows   [][]string
	// Right aligns a column to the right (numbers, times).
	Right []bool
}

// minLast is the narrowest the last column may be before the table is
// drawn as a list.
const minLast = 24

// Write draws the table in width columns.
func (t Table) Write(w io.Writer, width int) error {
	n := len(t.Header)
	if n == 0 {
		return nil
	}
	widths := make([]int, n)
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i := range min(len(r), n) {
			widths[i] = max(widths[i], ansi.StringWidth(r[i]))
		}
	}
	lead := 0 // the columns before the last, with their gaps
	for i := range n - 1 {
		lead += widths[i] + 2
	}
	var b strings.Builder
	if lead+min(widths[n-1], minLast) > width {
		t.list(&b, width)
	} else {
		for _, r := range append([][]string{t.Header}, t.Rows...) {
			var line strings.Builder
			for i := range n {
				cell := ""
				if i < len(r) {
					cell = r[i]
				}
				pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(cell))
				switch {
				case i == n-1:
					line.WriteString(cell)
				case i < len(t.Right) && t.Right[i]:
					line.WriteString(pad + cell + "  ")
				default:
					line.WriteString(cell + pad + "  ")
				}
			}
			for _, l := range hangWrap(strings.TrimRight(line.String(), " "), width, lead) {
				b.WriteString(l + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (t Table) list(b *strings.Builder, width int) {
	hw := 0
	for _, h := range t.Header[1:] {
		hw = max(hw, ansi.StringWidth(h))
	}
	for k, r := range t.Rows {
		if k > 0 {
			b.WriteByte('\n')
		}
		if len(r) > 0 {
			for _, l := range hangWrap(r[0], width, 2) {
				b.WriteString(l + "\n")
			}
		}
		for i := 1; i < len(t.Header) && i < len(r); i++ {
			h := t.Header[i]
			line := "  " + h + strings.Repeat(" ", hw-ansi.StringWidth(h)) + "  " + r[i]
			hang := 2 + hw + 2
			if width-hang < width/3 {
				hang = 6
			}
			for _, l := range hangWrap(strings.TrimRight(line, " "), width, hang) {
				b.WriteString(l + "\n")
			}
		}
	}
}
