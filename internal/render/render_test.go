package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
)

var update = flag.Bool("update", false, "rewrite golden files")

// documents are the seeds (when ../shared is beside the repository) and the
// course's own lessons, each with a short name for its golden files.
func documents(t testing.TB) map[string]string {
	docs := map[string]string{}
	seeds, _ := filepath.Glob("../../../shared/seeds/0*.txt")
	for _, s := range seeds {
		docs["seed"+filepath.Base(s)[:3]] = s
	}
	lessons, _ := filepath.Glob("../../lessons/day*.md")
	for _, l := range lessons {
		docs[strings.TrimSuffix(filepath.Base(l), ".md")] = l
	}
	if len(lessons) == 0 {
		t.Fatal("no lessons found")
	}
	return docs
}

func parse(t testing.TB, path string) *lesson.Lesson {
	t.Helper()
	l, err := lesson.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func renderTerm(t testing.TB, l *lesson.Lesson, color bool, width ...int) string {
	t.Helper()
	w := 80
	if len(width) > 0 {
		w = width[0]
	}
	r, err := NewTerm(TermOptions{Width: w, Color: color, TrueColor: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Render(&b, l); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func renderHTML(t testing.TB, l *lesson.Lesson) string {
	t.Helper()
	var b bytes.Buffer
	if err := PageHTML(&b, l); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// golden compares got with testdata/name, showing escapes so that diffs
// of colored output are readable. -update rewrites the file.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, "\x1b", `\x1b`)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/render -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./internal/render -run '%s' -update to accept); got:\n%s", path, t.Name(), got)
	}
}

func TestGoldenTerm(t *testing.T) {
	for name, path := range documents(t) {
		t.Run(name, func(t *testing.T) {
			l := parse(t, path)
			golden(t, name+".plain.golden", renderTerm(t, l, false))
			golden(t, name+".color.golden", renderTerm(t, l, true))
			golden(t, name+".120.golden", renderTermWidth(t, l, 120))
			golden(t, name+".60.golden", renderTermWidth(t, l, 60))
		})
	}
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func renderTermWidth(t testing.TB, l *lesson.Lesson, width int) string {
	t.Helper()
	r, err := NewTerm(TermOptions{Width: width})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Render(&b, l); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"  a b c d", 6, "  a b\n  c d"},
		{"  • one two three", 9, "  • one\n    two\n    three"},
		{"  see https://x.org/a-b-c-d-e-f now", 30, "  see\n  https://x.org/a-b-c-d-e-f\n  now"},
		{"  see https://x.org/a-b-c-d-e-f", 14, "  see\n  https://x.or\n  g/a-b-c-d-e-\n  f"},
		{"  one" + hardBreak + "two", 9, "  one\n  two"},
	} {
		if got := wrap(tc.in, tc.width); got != tc.want {
			t.Errorf("wrap(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := unbreak("a  \nb\nc\n"); got != "a"+hardBreak+"b c\n" {
		t.Errorf("unbreak = %q", got)
	}
}

func TestGoldenHTML(t *testing.T) {
	for name, path := range documents(t) {
		t.Run(name, func(t *testing.T) {
			golden(t, name+".html.golden", renderHTML(t, parse(t, path)))
		})
	}
}

// pieces lists what a reader must find in any rendering of l: the text of
// every heading and paragraph, every line of every code block, and the
// label of every diagram node.
func pieces(l *lesson.Lesson) []string {
	var out []string
	_ = ast.Walk(l.Doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading, *ast.Paragraph, *ast.TextBlock:
			out = append(out, string(lesson.NodeText(n, l.Source)))
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *lesson.NotebookCell, *ast.CodeBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(l.Source))
			}
			if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil && lesson.ParseInfo(string(f.Info.Segment.Value(l.Source))).Lang == "mermaid" {
				g, err := mermaid.Parse(b.String())
				if err == nil {
					// Boxes side by side interleave their lines: check
					// labels word by word.
					for _, node := range g.Nodes {
						out = append(out, strings.Fields(node.Label)...)
					}
					return ast.WalkSkipChildren, nil
				}
			}
			out = append(out, strings.Split(b.String(), "\n")...)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

var (
	ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*[a-zA-Z]")
	tagRE  = regexp.MustCompile(`<[^>]*>`)
)

// squash drops everything but letters and digits, so that wrapping,
// markup and box drawing do not matter.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

func unescapeHTML(s string) string {
	r := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'", "&#34;", `"`)
	return r.Replace(s)
}

// TestNothingLost checks that every heading, paragraph, code line and
// diagram label of every seed and lesson is in its terminal and HTML
// renderings.
func TestNothingLost(t *testing.T) {
	for name, path := range documents(t) {
		t.Run(name, func(t *testing.T) {
			l := parse(t, path)
			outputs := map[string]string{
				"plain": squash(renderTerm(t, l, false)),
				"color": squash(ansiRE.ReplaceAllString(renderTerm(t, l, true), "")),
				"html":  squash(unescapeHTML(tagRE.ReplaceAllString(renderHTML(t, l), ""))),
			}
			ps := pieces(l)
			if len(ps) < 5 {
				t.Fatalf("only %d pieces found", len(ps))
			}
			for kind, out := range outputs {
				missing := 0
				for _, p := range ps {
					if sq := squash(p); sq != "" && !strings.Contains(out, sq) {
						if missing++; missing <= 5 {
							t.Errorf("%s rendering lacks %q", kind, p)
						}
					}
				}
			}
		})
	}
}

// TestHTMLStructure checks what text alone cannot: tables are tables, and
// no empty cell is drawn.
func TestHTMLStructure(t *testing.T) {
	for name, path := range documents(t) {
		t.Run(name, func(t *testing.T) {
			l := parse(t, path)
			html := renderHTML(t, l)
			tables := 0
			_ = ast.Walk(l.Doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering && n.Kind().String() == "Table" {
					tables++
				}
				return ast.WalkContinue, nil
			})
			if got := strings.Count(html, "<table>"); got != tables {
				t.Errorf("%d <table> elements for %d tables", got, tables)
			}
			if strings.Contains(html, "<code></code>") {
				t.Error("an empty code cell is drawn")
			}
		})
	}
}

func TestExport(t *testing.T) {
	c, err := course.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Export(c, dir); err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, e := range c.Lessons {
		page, err := os.ReadFile(filepath.Join(dir, e.Name()+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(index, []byte(`href="`+e.Name()+`.html"`)) {
			t.Errorf("index does not link %s", e.Name())
		}
		// Nothing is fetched from outside: no src or stylesheet href that
		// leaves the site (the SVG namespace is a name, not a fetch), and
		// every script the page loads is a file of the site.
		for _, bad := range []string{`src="http`, `src="//`, `rel="stylesheet" href="http`, "<script>"} {
			if bytes.Contains(page, []byte(bad)) {
				t.Errorf("%s.html holds %q: the site must work offline", e.Name(), bad)
			}
		}
		for _, m := range regexp.MustCompile(`<script src="([^"]+)"`).FindAllSubmatch(page, -1) {
			if _, err := os.Stat(filepath.Join(dir, string(m[1]))); err != nil {
				t.Errorf("%s.html loads %s, which export did not write", e.Name(), m[1])
			}
		}
		if !bytes.Contains(page, []byte(`href="style.css"`)) || !bytes.Contains(page, []byte(`href="index.html"`)) {
			t.Errorf("%s.html lacks its style sheet or contents link", e.Name())
		}
	}
	first, _ := os.ReadFile(filepath.Join(dir, c.Lessons[0].Name()+".html"))
	if !bytes.Contains(first, []byte(`class="next" href="`+c.Lessons[1].Name()+`.html">Day 69: Stream-Ordered Allocation with cudaMallocAsync →`)) {
		t.Error("first lesson has no link to the next")
	}
	if !bytes.Contains(first, []byte("<svg")) {
		t.Error("day 68's diagram is not drawn as SVG")
	}
	// Hints are markdown: day 70's cross-stream names a kernel in backticks.
	day70, _ := os.ReadFile(filepath.Join(dir, c.Lessons[2].Name()+".html"))
	if !bytes.Contains(day70, []byte("<code>generate</code> of the next chunk")) || bytes.Contains(day70, []byte("`generate` of the next chunk")) {
		t.Error("day 70's hint is not rendered as markdown")
	}
}

// TestTermWideDiagram: a diagram that cannot be drawn within the terminal
// is shown as its edges, by the labels the reader sees, never cut.
func TestTermWideDiagram(t *testing.T) {
	l, err := lesson.Parse("wide.md", []byte("# Wide\n\n```mermaid\nflowchart TD\nA[supercalifragilisticexpialidocious] -->|yes| B[antidisestablishmentarianism]\nA --> C[floccinaucinihilipilification]\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := renderTermWidth(t, l, 30)
	for _, want := range []string{"its edges:", "• supercalifragilisticexpial", "antidisestablishmentariani", "(yes)"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if ansi.StringWidth(line) > 30 {
			t.Errorf("line wider than 30: %q", line)
		}
	}
	// Day 87's chart fits in 80 columns: drawn, its labels on its edges,
	// its loop-back under it.
	day87 := renderTermWidth(t, parse(t, "../../lessons/day087-device-allocator.md"), 80)
	for _, want := range []string{"── yes ──", "── no ──", "↺ Reset the offset to 0 between rounds → Kernel thread"} {
		if !strings.Contains(day87, want) {
			t.Errorf("day 87 at 80 columns lacks %q", want)
		}
	}
}

func BenchmarkRenderLesson(b *testing.B) {
	l := parse(b, "../../lessons/day069-stream-ordered.md")
	r, err := NewTerm(TermOptions{Width: 100, Color: true})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := r.Render(&bytes.Buffer{}, l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAndRenderLesson(b *testing.B) {
	for b.Loop() {
		l := parse(b, "../../lessons/day069-stream-ordered.md")
		r, err := NewTerm(TermOptions{Width: 100, Color: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Render(&bytes.Buffer{}, l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExportCourse(b *testing.B) {
	c, err := course.Load("../..")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for b.Loop() {
		if err := Export(c, dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndSite is what lessons serve does on each save: load the
// course and render its whole site in memory.
func BenchmarkLoadAndSite(b *testing.B) {
	for b.Loop() {
		c, err := course.Load("../..")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Site(c); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzWrap: prose of any shape wraps within the width (a word wider than
// the line is cut), loses no visible character and keeps its line breaks.
func FuzzWrap(f *testing.F) {
	f.Add("  • a list item with `code` and **bold** and https://x.org/a-b", 20)
	f.Add("para\nsoft  \nhard\\\nbreak\n\n> quote\n> more\n", 10)
	f.Fuzz(func(t *testing.T, md string, width int) {
		if width < 12 || width > 200 || !utf8.ValidString(md) || strings.ContainsAny(md, "\t\r\x1b"+hardBreak) {
			return
		}
		for _, r := range md {
			if unicode.IsControl(r) && r != '\n' || ansi.StringWidth(string(r)) != 1 && r != '\n' {
				return
			}
		}
		_ = unbreak(md)
		in := strings.TrimRight(md, " \n")
		got := wrap(in, width)
		for _, line := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(line); w > width && strings.TrimLeft(line, " ") != "" && len(line)-len(strings.TrimLeft(line, " ")) < width-1 {
				t.Fatalf("line %q is %d wide, more than %d", line, w, width)
			}
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if squash(got) != squash(in) {
			t.Fatalf("wrap lost or added text:\n%q\n%q", in, got)
		}
	})
}

// TestTermNarrowTable: a table wider than the terminal is fitted by
// glamour (long cells cut with …), never word-wrapped out of its columns,
// in color (drawn with │ and ┼) too.
func TestTermNarrowTable(t *testing.T) {
	l := parse(t, "../../lessons/day069-stream-ordered.md")
	for _, color := range []bool{false, true} {
		got := ansi.Strip(renderTerm(t, l, color, 60))
		var header string
		for _, line := range strings.Split(got, "\n") {
			if s := strings.TrimSpace(line); strings.HasPrefix(s, "5 runs") && strings.ContainsAny(s, "|│") {
				header = line
			}
		}
		if !strings.Contains(header, "| speedup") && !strings.Contains(header, "│ speedup") || ansi.StringWidth(header) > 60 {
			t.Errorf("color %v: day 70's table at 60 columns: header %q, in:\n%s", color, header, got)
		}
	}
}

// TestTermCodeInList: a code block inside a list item (drawn by glamour,
// with no gutter) keeps its lines, in color too: a line wider than the
// terminal wraps between tokens under a ↪, never at the prose's measure
// as words (which would put half a comment on a line with no #).
func TestTermCodeInList(t *testing.T) {
	src := "# C\n\n1. **Sync first**: then use it:\n\n   ```python\n   with s:\n       # ... operations using buffer, and a comment that goes on past sixty columns ...\n   ```\n"
	l, err := lesson.Parse("c.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, color := range []bool{false, true} {
		out := ansi.Strip(renderTerm(t, l, color, 60))
		var code []string
		for _, line := range strings.Split(out, "\n") {
			if s := strings.TrimSpace(line); strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "# C") || strings.HasPrefix(s, "↪") {
				code = append(code, strings.TrimRight(line, " "))
			}
		}
		want := []string{"        # ... operations using buffer, and a comment that", "        ↪ goes on past sixty columns ..."}
		if !slices.Equal(code, want) {
			t.Errorf("color %v: the comment is drawn as %q, want %q, in:\n%s", color, code, want, out)
		}
	}
}

// TestTermMargins: a paragraph that starts with inline code has the margin
// of any other, in color too; a list item whose code span crosses a line
// of the source keeps its hanging indent; a code block that is not a cell
// shows no language on a line of its own.
func TestTermMargins(t *testing.T) {
	src := "# M\n\n`cudaMalloc` and `cudaFree` start this paragraph, which goes on long enough to wrap twice at forty columns.\n\n" +
		"1. **First.** A long item whose code span `an illegal\n   memory access was encountered` crosses a line of the source, and goes on.\n\n" +
		"```cpp\nint x = 0;\n```\n"
	l, err := lesson.Parse("m.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, color := range []bool{false, true} {
		out := ansi.Strip(renderTerm(t, l, color, 40))
		lines := strings.Split(out, "\n")
		for i, line := range lines {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if strings.Contains(line, "start") || strings.Contains(line, "twice") {
				if indent(line) != 2 {
					t.Errorf("color %v: the paragraph's line %q is indented %d, not 2", color, line, indent(line))
				}
			}
			if strings.Contains(line, "memory access") || strings.Contains(line, "goes on.") {
				if indent(line) != 5 {
					t.Errorf("color %v: the list item's line %q is indented %d, not 5:\n%s", color, line, indent(line), out)
				}
			}
			if strings.TrimSpace(line) == "cpp" {
				t.Errorf("color %v: line %d shows the code block's language alone:\n%s", color, i+1, out)
			}
		}
	}
}

// TestWrapCode: code wraps at a token boundary near the edge, never in a
// name; a run with no boundary in the piece's second half is cut.
func TestWrapCode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		room int
		want []string
	}{
		{"// The same loop: cudaMalloc/cudaFree, then cudaMallocAsync/cudaFreeAsync,", 72,
			[]string{"// The same loop: cudaMalloc/cudaFree, then ", "cudaMallocAsync/cudaFreeAsync,"}},
		{"fprintf(stderr, x, cudaGetErrorString(e_)); return 1;", 40,
			[]string{"fprintf(stderr, x, cudaGetErrorString(", "e_)); return 1;"}},
		{"\tCU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));", 76,
			[]string{"\tCU(cuDeviceGetAttribute(&vmm, ", "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));"}},
		{"std::chrono::steady_clock::now", 20, []string{"std::chrono::", "steady_clock::now"}},
		{"abcdefghijklmnopqrstuvwxyz", 10, []string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"short", 10, []string{"short"}},
	} {
		if got := wrapCode(tc.in, tc.room); !slices.Equal(got, tc.want) {
			t.Errorf("wrapCode(%q, %d) = %q, want %q", tc.in, tc.room, got, tc.want)
		}
	}
	colored := "\x1b[31mcudaMallocAsync\x1b[0m(&p, \x1b[32mbytes\x1b[0m, stream);"
	got := wrapCode(colored, 20)
	if len(got) != 2 || ansi.Strip(got[0]) != "cudaMallocAsync(&p, " || ansi.Strip(got[1]) != "bytes, stream);" {
		t.Errorf("colored: %q", got)
	}
}

// TestWrapGluesPunctuation: a slash, a dash or a period alone never
// starts or ends a line of prose.
func TestWrapGluesPunctuation(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"  allocate from cudaMallocAsync / cudaFreeAsync", 40, "  allocate from\n  cudaMallocAsync / cudaFreeAsync"},
		{"  allocate from it: cudaMallocAsync / cudaFreeAsync", 40, "  allocate from it:\n  cudaMallocAsync / cudaFreeAsync"},
		{"  make a chunk of want - have bytes", 20, "  make a chunk of\n  want - have bytes"},
	} {
		if got := wrap(tc.in, tc.width); got != tc.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

// FuzzWrapCode: a line of code wraps into pieces no wider than the room
// that put together are the line.
func FuzzWrapCode(f *testing.F) {
	f.Add("    fprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)", 40)
	f.Fuzz(func(t *testing.T, line string, room int) {
		if room < 8 || room > 200 || !utf8.ValidString(line) || strings.ContainsAny(line, "\n\x1b") {
			return
		}
		for _, r := range line {
			if unicode.IsControl(r) || ansi.StringWidth(string(r)) != 1 {
				return
			}
		}
		pieces := wrapCode(line, room)
		for _, p := range pieces {
			if w := ansi.StringWidth(p); w > room {
				t.Fatalf("piece %q is %d wide, more than %d", p, w, room)
			}
		}
		if got := strings.Join(pieces, ""); got != line {
			t.Fatalf("pieces %q do not make %q", pieces, line)
		}
	})
}

// TestTermAmpersandsAsWritten: glamour decodes text and code spans again,
// entities without their ";" too ("&para" of "&params" was drawn "¶"); in
// the terminal an "&" is drawn as written, in code spans always, in prose
// unless it begins a reference CommonMark decodes, as the page shows it.
func TestTermAmpersandsAsWritten(t *testing.T) {
	src := "# A\n\nCall `f(&params)`, `&copy;` and `` a && `b` `` in code; f(&params), a && b and &copy; in prose.\n\n- in a list: `g(&para)`\n\n```cpp\nh(&params);\n```\n"
	l, err := lesson.Parse("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, color := range []bool{false, true} {
		out := ansi.Strip(renderTerm(t, l, color))
		for _, want := range []string{"f(&params)", "&copy;", "a && `b`", "a && b and ©", "g(&para)", "h(&params);"} {
			if !strings.Contains(out, want) {
				t.Errorf("color %v: %q is not drawn as written in:\n%s", color, want, out)
			}
		}
		if strings.Contains(out, "¶") || strings.Contains(out, ampMark) {
			t.Errorf("color %v: an entity was decoded, or the mark left, in:\n%s", color, out)
		}
	}
}

// FuzzKeepAmps: marking a lesson's "&"s for glamour loses and adds
// nothing: the marks put back give the text as written.
func FuzzKeepAmps(f *testing.F) {
	for _, s := range []string{"a `&b` &c; && ``x & ` y`` &#9; &#x1F; &", "```\n&para\n```\n`&para` &para", "`unclosed & ``", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, ampMark) {
			return
		}
		if got := strings.ReplaceAll(keepAmps(s), ampMark, "&"); got != s {
			t.Errorf("keepAmps(%q) restored is %q", s, got)
		}
	})
}
