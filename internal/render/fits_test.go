package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
)

// A kind says what a line of a rendering is, and so which rules it
// keeps: prose is wrapped at the measure, at spaces; a cell's header and
// a diagram's caption at the terminal's width, at spaces; code at the
// terminal's width, between tokens; tables, drawings and recorded output
// only fit the terminal.
type kind int

const (
	blankKind   kind = iota
	proseKind        // a markdown cell's text
	tableKind        // a markdown cell's table, which glamour fits
	codeKind         // a code block's line, in a markdown cell or a cell's body
	headerKind       // a cell's number and label: its command or magic line
	outputKind       // what a cell recorded, or a note on it
	drawingKind      // a diagram's boxes and edges
	captionKind      // the words under a diagram, or its edges in words
)

// rendered draws l cell by cell, as Render does, and says what each line
// is: by the kind of cell it comes from, and in a markdown cell by the
// renderer's own reading of glamour's lines (tables, code blocks), which
// is what it wraps by.
func rendered(t testing.TB, r *Term, l *lesson.Lesson) ([]string, []kind) {
	t.Helper()
	var lines []string
	var kinds []kind
	var all strings.Builder
	for i := range l.Cells {
		c := &l.Cells[i]
		var b bytes.Buffer
		if err := r.Cell(&b, c); err != nil {
			t.Fatal(err)
		}
		if b.Len() == 0 {
			continue
		}
		open := all.Len() > 0 && !strings.HasSuffix(all.String(), "\n")
		all.Write(b.Bytes())
		cl := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		ck := cellKinds(t, r, l.Path, c, cl)
		if open { // the cell before left its last line open: this one goes on it
			lines[len(lines)-1] += cl[0]
			cl, ck = cl[1:], ck[1:]
		}
		lines, kinds = append(lines, cl...), append(kinds, ck...)
	}
	var whole bytes.Buffer
	if err := r.Render(&whole, l); err != nil {
		t.Fatal(err)
	}
	if whole.String() != all.String() {
		t.Fatalf("%s: Render differs from its cells drawn one by one", l.Path)
	}
	for i, line := range lines {
		if strings.TrimSpace(ansi.Strip(line)) == "" {
			kinds[i] = blankKind
		}
	}
	return lines, kinds
}

// cellKinds says what each line of one cell's rendering is.
func cellKinds(t testing.TB, r *Term, path string, c *lesson.Cell, lines []string) []kind {
	ks := make([]kind, len(lines))
	switch {
	case c.Kind == lesson.Markdown && c.From == nil && !strings.Contains(c.Text, "data:image/"):
		_, mk, err := r.markdown(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ks {
			ks[i] = map[lineKind]kind{proseLine: proseKind, tableLine: tableKind, codeLine: codeKind}[mk[i]]
		}
		// The renderer found every table and code block of the source:
		// one it missed would be wrapped as prose.
		tables, code := sourceBlocks(c.Text)
		if n := runs(mk, tableLine); n != tables {
			t.Errorf("%s:%d at %d columns: the renderer found %d tables of the %d in the source", path, c.Line, r.opt.Width, n, tables)
		}
		if n := runs(mk, codeLine); n != code {
			t.Errorf("%s:%d at %d columns: the renderer found %d code blocks of the %d in the source", path, c.Line, r.opt.Width, n, code)
		}
	case c.Kind == lesson.Markdown:
		for i := range ks {
			ks[i] = proseKind
		}
	case c.Kind == lesson.Diagram:
		if _, err := mermaid.Parse(c.Text); err != nil {
			ks[0] = outputKind // the line saying why, then the source as code
			copy(ks[1:], codeCellKinds(lines[1:]))
			break
		}
		for i, line := range lines {
			ks[i] = captionKind
			if strings.ContainsAny(line, boxRunes) {
				ks[i] = drawingKind
			}
		}
	default:
		copy(ks, codeCellKinds(lines))
	}
	return ks
}

// sourceBlocks counts the tables and the code blocks with a line (their
// lines are drawn) of markdown source md.
func sourceBlocks(md string) (tables, code int) {
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.(type) {
		case *east.Table:
			if entering {
				tables++
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering && n.Lines().Len() > 0 {
				code++
			}
		}
		return ast.WalkContinue, nil
	})
	return tables, code
}

// runs counts the runs of lines of kind k.
func runs(kinds []lineKind, k lineKind) int {
	n := 0
	for i, x := range kinds {
		if x == k && (i == 0 || kinds[i-1] != k) {
			n++
		}
	}
	return n
}

// codeCellKinds reads a code cell's rendering: its header (wrapped under
// itself) up to the first line of its body, which has the gutter's │ or
// ↪, and after the body what it recorded.
func codeCellKinds(lines []string) []kind {
	ks := make([]kind, len(lines))
	k := headerKind
	for i, line := range lines {
		s := strings.TrimLeft(ansi.Strip(line), " ")
		gutter := strings.HasPrefix(s, "│") || strings.HasPrefix(s, "↪")
		switch {
		case gutter && k != outputKind:
			k = codeKind
		case k == codeKind && !gutter:
			k = outputKind
		case k == headerKind && s == "":
			k = outputKind
		}
		ks[i] = k
	}
	return ks
}

var (
	// markRE matches what a line may start with that is no word: a
	// list's bullet or number, a quote's bar, a heading's #s, a
	// diagram's loop back.
	markRE = regexp.MustCompile(`^(?:•|[-*+]|\d+[.)]|\||#{1,6}|↺)$`)
	// itemRE matches the marks that start a new item, not a line that
	// goes on from the one before (a quote's bar is on all its lines).
	itemRE = regexp.MustCompile(`^(?:•|[-*+]|\d+[.)]|#{1,6}|↺)$`)
	// shellOpRE matches the operators a command line is broken before,
	// as people write a long one.
	shellOpRE = regexp.MustCompile(`^(?:&&|\|\||\||;|>>?|<)$`)
)

// goesOn reports whether line i of lines goes on from line i-1: the same
// kind of text, wrapped, not a new item.
func goesOn(lines []string, kinds []kind, i int) bool {
	if i <= 0 || i >= len(lines) || kinds[i] != kinds[i-1] || kinds[i] == blankKind {
		return false
	}
	words := strings.Fields(ansi.Strip(lines[i]))
	return len(words) > 0 && !itemRE.MatchString(words[0])
}

// TestTermFits checks every rendering at 60, 80 and 120 columns, by what
// each line is: no line is wider than the terminal, prose no wider than
// the measure; where a line was wrapped at spaces (prose, a cell's
// header, a diagram's caption) no break leaves punctuation alone at the
// end of a line or the start of the next (a command may break before
// &&), and no word is stranded on a line that the line before had room
// for; a paragraph's lines share its margin; code breaks between tokens.
func TestTermFits(t *testing.T) {
	for name, path := range documents(t) {
		l := parse(t, path)
		for _, width := range []int{60, 80, 120} {
			for _, color := range []bool{false, true} {
				r, err := NewTerm(TermOptions{Width: width, Color: color, TrueColor: true})
				if err != nil {
					t.Fatal(err)
				}
				lines, kinds := rendered(t, r, l)
				at := name + " at "
				if color {
					at = name + " in color at "
				}
				checkFits(t, at, width, lines, kinds, color)
			}
		}
	}
}

// checkFits applies TestTermFits's rules to one rendering.
func checkFits(t *testing.T, at string, width int, colored []string, kinds []kind, color bool) {
	t.Helper()
	lines := make([]string, len(colored))
	for i, l := range colored {
		lines[i] = ansi.Strip(l)
	}
	for i, line := range lines {
		k := kinds[i]
		if w := ansi.StringWidth(line); w > width {
			t.Errorf("%s%d columns: line %d is %d wide: %q", at, width, i+1, w, line)
		}
		if k == proseKind && ansi.StringWidth(strings.TrimRight(line, " ")) > min(width, Measure) {
			t.Errorf("%s%d columns: line %d of prose is %d wide, past the measure of %d: %q", at, width, i+1, ansi.StringWidth(line), min(width, Measure), line)
		}
		words := strings.Fields(line)
		if k == codeKind && len(words) > 0 && words[0] == "↪" && kinds[i-1] == codeKind {
			// code wraps between tokens: not inside a name, and a piece
			// does not start with closing punctuation
			prev := []rune(lines[i-1])
			first := []rune(strings.TrimPrefix(strings.TrimLeft(line, " "), "↪ "))
			if len(first) > 0 && len(prev) > 0 && (identRune(prev[len(prev)-1]) && identRune(first[0]) || strings.ContainsRune(")]};,.", first[0])) {
				t.Errorf("%s%d columns: code line %d breaks inside a token:\n%s\n%s", at, width, i+1, lines[i-1], line)
			}
		}
		if k != proseKind && k != headerKind && k != captionKind || len(words) < 2 {
			continue
		}
		if goesOn(lines, kinds, i) && punctOnly(words[0]) && !markRE.MatchString(words[0]) && !(k == headerKind && shellOpRE.MatchString(words[0])) {
			t.Errorf("%s%d columns: line %d starts with punctuation alone: %q", at, width, i+1, line)
		}
		if goesOn(lines, kinds, i+1) && punctOnly(words[len(words)-1]) {
			t.Errorf("%s%d columns: line %d ends with punctuation alone: %q", at, width, i+1, line)
		}
	}
	for i, line := range lines {
		k := kinds[i]
		if k != proseKind && k != headerKind && k != captionKind {
			continue
		}
		// A paragraph's lines all start at its margin, one that starts
		// with inline code too.
		if k == proseKind && i > 0 && kinds[i-1] == blankKind && goesOn(lines, kinds, i+1) && !markRE.MatchString(strings.Fields(line)[0]) && indent(line) != indent(lines[i+1]) {
			t.Errorf("%s%d columns: line %d is indented %d, the next %d:\n%s\n%s", at, width, i+1, indent(line), indent(lines[i+1]), line, lines[i+1])
		}
		room := width
		if k == proseKind {
			room = min(width, Measure)
		}
		words := strings.Fields(line)
		if color || !goesOn(lines, kinds, i) || len(words) != 1 {
			continue // in color, glamour's padding and code spans' backgrounds widen lines
		}
		prev := strings.TrimRight(lines[i-1], " ")
		if ansi.StringWidth(prev)+1+ansi.StringWidth(words[0]) <= room && indent(line) >= indent(prev) && indent(line) > 0 {
			t.Errorf("%s%d columns: line %d strands %q:\n%s\n%s", at, width, i+1, words[0], prev, line)
		}
	}
}
