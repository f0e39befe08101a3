package render

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// hardBreak stands for a forced line break (two spaces or a backslash at
// the end of a line) between unbreak and wrap: glamour, asked not to wrap,
// would print soft and hard breaks alike.
const hardBreak = "\uE000"

// unbreak joins the lines of every paragraph and list item of a markdown
// text (soft breaks become spaces) and marks its forced breaks, so that
// each logical line reaches wrap whole.
func unbreak(md string) string {
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cs, ok := n.(*ast.CodeSpan); ok && entering {
			// A code span's line break is a space (CommonMark): joined
			// here, or the line after it would lose its list indentation.
			for c := cs.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					if i := t.Segment.Stop - 1; i >= 0 && i < len(src) && src[i] == '\n' {
						j := i + 1
						for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '>') {
							j++
						}
						edits = append(edits, edit{i, j, " "})
					}
				}
			}
			return ast.WalkSkipChildren, nil
		}
		t, ok := n.(*ast.Text)
		if !entering || !ok || (!t.SoftLineBreak() && !t.HardLineBreak()) {
			return ast.WalkContinue, nil
		}
		i := t.Segment.Stop
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\\') {
			i++
		}
		if i >= len(src) || src[i] != '\n' {
			return ast.WalkContinue, nil
		}
		i++
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '>') {
			i++
		}
		with := " "
		if t.HardLineBreak() {
			with = hardBreak
		}
		edits = append(edits, edit{t.Segment.Stop, i, with})
		return ast.WalkContinue, nil
	})
	slices.SortFunc(edits, func(a, b edit) int { return b.from - a.from })
	for _, e := range edits {
		src = slices.Concat(src[:e.from], []byte(e.with), src[e.to:])
	}
	return string(src)
}

// bulletRE matches what starts a line of rendered prose that its wrapped
// lines hang under: indentation, then a bullet, a number or a quote bar.
var bulletRE = regexp.MustCompile(`^ *(?:(?:•|[-*+]|\d+[.)]|\|) )?`)

// wrap breaks every line of rendered prose wider than width at spaces,
// greedily, so no word is left alone on a line that the line before had
// room for; continuation lines keep the indentation of the text after a
// list's bullet. A word is never broken (a URL stays whole, hyphens and
// all) unless it alone is wider than the line.
func wrap(s string, width int) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		hang := ansi.StringWidth(bulletRE.FindString(ansi.Strip(line)))
		for i, part := range strings.Split(line, hardBreak) {
			if i > 0 {
				part = strings.Repeat(" ", hang) + strings.TrimLeft(part, " ")
			}
			out = append(out, wrapLine(part, width, hang)...)
		}
	}
	return strings.Join(out, "\n")
}

func wrapLine(line string, width, hang int) []string {
	if ansi.StringWidth(line) <= width {
		return []string{line}
	}
	toks := strings.Split(line, " ")
	lead := 0 // leading empty tokens: the line's indentation
	for lead < len(toks) && ansi.Strip(toks[lead]) == "" {
		lead++
	}
	var lines []string
	var cur strings.Builder
	if lead > 0 {
		cur.WriteString(strings.Join(toks[:lead], " ") + " ")
	}
	w, n := lead, 0 // columns and words in cur
	var words []string
	for _, tok := range glue(toks[lead:], width-max(hang, lead)) {
		// Only a word wider than the whole line is cut, at the line's width.
		if room := width - max(hang, lead); ansi.StringWidth(tok) > room && room > 0 {
			words = append(words, strings.Split(ansi.Hardwrap(tok, room, true), "\n")...)
		} else {
			words = append(words, tok)
		}
	}
	for _, tok := range words {
		tw := ansi.StringWidth(tok)
		if n > 0 && w+1+tw > width {
			lines = append(lines, strings.TrimRight(cur.String(), " "))
			cur.Reset()
			cur.WriteString(strings.Repeat(" ", hang))
			w, n = hang, 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			w++
		}
		cur.WriteString(tok)
		w += tw
		if tw > 0 {
			n++
		}
	}
	return append(lines, cur.String())
}

// tableSepRE matches the line under a table's header as glamour draws it,
// plain (-|-) or in color (─┼─).
var tableSepRE = regexp.MustCompile(`^\s*(?:-+(?:\|-+)+|─+(?:┼─+)+)\s*$`)

// tableBlocks finds the tables in rendered prose, as [first, end) line
// ranges: a separator line, the header line above it, and the lines with
// a column bar below it.
func tableBlocks(lines []string) [][2]int {
	bar := func(l string) bool { return strings.ContainsAny(ansi.Strip(l), "|│") }
	var out [][2]int
	for i := 0; i < len(lines); i++ {
		if !tableSepRE.MatchString(ansi.Strip(lines[i])) {
			continue
		}
		start, end := i, i+1
		for start > 0 && bar(lines[start-1]) {
			start--
		}
		for end < len(lines) && bar(lines[end]) {
			end++
		}
		out = append(out, [2]int{start, end})
		i = end - 1
	}
	return out
}

// codeBlocks finds the code blocks of markdown source md in its rendering
// (a markdown cell keeps those of a list item or a quote, which glamour
// draws with no gutter), as [first, end) line ranges: each is the first
// run of lines, after the one before, that shows the block's lines in
// order.
func codeBlocks(lines []string, md string) [][2]int {
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	var blocks [][]string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering && n.Lines().Len() > 0 {
				var code []string
				for i := 0; i < n.Lines().Len(); i++ {
					seg := n.Lines().At(i)
					code = append(code, squashSpace(string(seg.Value(src))))
				}
				blocks = append(blocks, code)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	shows := func(at int, code []string) bool {
		for k, c := range code {
			if at+k >= len(lines) || squashSpace(ansi.Strip(lines[at+k])) != c {
				return false
			}
		}
		return true
	}
	var out [][2]int
	from := 0
	for _, code := range blocks {
		for at := from; at+len(code) <= len(lines); at++ {
			if shows(at, code) {
				out = append(out, [2]int{at, at + len(code)})
				from = at + len(code)
				break
			}
		}
	}
	return out
}

// tooWide reports whether a table's line is wider than width.
func tooWide(lines []string, blocks [][2]int, width int) bool {
	for _, b := range blocks {
		for _, l := range lines[b[0]:b[1]] {
			if ansi.StringWidth(strings.TrimRight(l, " ")) > width {
				return true
			}
		}
	}
	return false
}

// spliceTables puts the tables of one rendering (fitted to the width) in
// place of those of another, table by table.
func spliceTables(lines []string, blocks [][2]int, from []string, fblocks [][2]int) ([]string, [][2]int) {
	var out []string
	var nb [][2]int
	last := 0
	for i, b := range blocks {
		out = append(out, lines[last:b[0]]...)
		start := len(out)
		out = append(out, from[fblocks[i][0]:fblocks[i][1]]...)
		nb = append(nb, [2]int{start, len(out)})
		last = b[1]
	}
	return append(out, lines[last:]...), nb
}

// squashSpace is s with each run of white space one space, and none at
// its ends: glamour indents a code block and may pad or expand its tabs.
func squashSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// A lineKind says what a line of a markdown cell's rendering is, and so
// how it was wrapped.
type lineKind byte

const (
	proseLine lineKind = iota // wrapped at the measure, at spaces
	tableLine                 // fitted by glamour, kept
	codeLine                  // a code block's: wrapped at the width, between tokens
)

// wrapOutside wraps the lines of prose at measure. The lines of tables
// keep their columns, and those of code blocks their line breaks: one
// wider than the terminal is wrapped as code is, between tokens. It
// returns the lines and what each is.
func wrapOutside(lines []string, tables, code [][2]int, measure, width int) ([]string, []lineKind) {
	kind := make([]lineKind, len(lines))
	for _, b := range tables {
		for i := b[0]; i < b[1]; i++ {
			kind[i] = tableLine
		}
	}
	for _, b := range code {
		for i := b[0]; i < b[1]; i++ {
			kind[i] = codeLine
		}
	}
	var out []string
	var kinds []lineKind
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && kind[j] == kind[i] {
			j++
		}
		n := len(out)
		switch kind[i] {
		case proseLine:
			out = append(out, strings.Split(wrap(strings.Join(lines[i:j], "\n"), measure), "\n")...)
		case codeLine:
			for _, l := range lines[i:j] {
				out = append(out, fitCode(l, width)...)
			}
		default:
			out = append(out, lines[i:j]...)
		}
		for range out[n:] {
			kinds = append(kinds, kind[i])
		}
		i = j
	}
	return out, kinds
}

// fitCode wraps a line of a code block that glamour drew (indented, with
// no gutter) when it is wider than width: each piece after the first has
// ↪ before it, under the line's first column.
func fitCode(line string, width int) []string {
	plain := strings.TrimRight(ansi.Strip(line), " ")
	if ansi.StringWidth(plain) <= width {
		return []string{line}
	}
	ind := ansi.StringWidth(plain) - ansi.StringWidth(strings.TrimLeft(plain, " "))
	pieces := wrapCode(ansi.Cut(line, ind, ansi.StringWidth(plain)), max(width-ind-2, 8))
	out := []string{ansi.Cut(line, 0, ind) + pieces[0]}
	for _, p := range pieces[1:] {
		out = append(out, strings.Repeat(" ", ind)+"↪ "+p)
	}
	return out
}

// glue joins a token of punctuation alone (a slash, a dash, an arrow, a
// period after a code span) to the words each side of it, so that no line
// starts or ends with it; a group wider than room stays apart.
func glue(toks []string, room int) []string {
	var out []string
	for i := 0; i < len(toks); i++ {
		group := toks[i]
		j := i
		for j+1 < len(toks) && (punctOnly(toks[j]) || punctOnly(toks[j+1])) {
			j++
			group += " " + toks[j]
		}
		if j > i && ansi.StringWidth(group) <= room {
			out = append(out, group)
			i = j
			continue
		}
		out = append(out, toks[i])
	}
	return out
}

// punctOnly reports whether a token shows something, but no letter or
// digit.
func punctOnly(tok string) bool {
	s := ansi.Strip(tok)
	if s == "" {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
