package lesson

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/ui"
)

// Goldmark returns the goldmark instance lessons are parsed with: GFM,
// heading ids, and notebook cells. Renderers that need the same parse use it.
func Goldmark() goldmark.Markdown { return md }

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM, NotebookCells),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// ParseFile reads and parses the lesson at path: a .ipynb notebook, or
// markdown in either dialect. A file that is not text, or holds no lesson,
// is an error: a lesson is expected there.
func ParseFile(file string) (*Lesson, error) {
	src, err := safefs.ReadRegular(file, MaxIpynbBytes)
	if err != nil {
		return nil, err
	}
	if !IsText(src) {
		return nil, &Error{File: file, Msg: file + " is not a text lesson (it holds binary data)",
			Fix: "name a markdown lesson (.md) or a Jupyter notebook (.ipynb)"}
	}
	if ext := strings.ToLower(path.Ext(file)); !lessonExts[ext] && !IsIpynb(file, src) {
		return nil, &Error{File: file, Msg: fileKind(ext) + ", not a lesson",
			Fix: "name a lesson: a day of the course (lessons list), a markdown lesson (.md), a notebook export (.txt) or a Jupyter notebook (.ipynb); an exercise's file is checked with lessons check ID"}
	}
	var l *Lesson
	if IsIpynb(file, src) {
		l, err = ParseIpynb(file, src)
	} else {
		l, err = Parse(file, src)
	}
	if err == nil && l.Empty() {
		return l, &Error{File: file, Msg: "the lesson is empty", Fix: "write the lesson's text and cells in it, or remove it from the course"}
	}
	return l, err
}

// lessonExts are the extensions a lesson file may have; a file with none
// is read as markdown too.
var lessonExts = map[string]bool{".md": true, ".markdown": true, ".qmd": true, ".txt": true, ".ipynb": true, "": true}

// fileKind says what a file that is not a lesson is, by its extension.
func fileKind(ext string) string {
	switch ext {
	case ".cu", ".cuh":
		return "CUDA source"
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp":
		return "C/C++ source"
	case ".go":
		return "Go source"
	case ".py":
		return "Python source"
	case ".toml":
		return "a TOML file"
	case ".json":
		return "JSON"
	case ".mod", ".sum":
		return "a Go module file"
	}
	return "a " + ext + " file"
}

// IsText reports whether src can be a lesson: UTF-8 without NUL bytes.
// Looking at the first 8 KiB (then the rest only for UTF-8) refuses a
// large binary at once.
func IsText(src []byte) bool {
	head := src[:min(len(src), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	return utf8.Valid(src) && bytes.IndexByte(src, 0) < 0
}

// Empty reports whether the lesson has nothing to show or run.
func (l *Lesson) Empty() bool {
	for _, c := range l.Cells {
		if strings.TrimSpace(c.Text) != "" || c.CUDA != nil {
			return false
		}
	}
	return true
}

// Parse parses src, read from file (used in messages). It returns the lesson
// and, when the document has errors, an Errors value naming each with its
// line; the lesson is still returned for what could be read.
func Parse(file string, src []byte) (*Lesson, error) {
	return parseMarkdown(file, src, true)
}

// parseMarkdown is Parse; front matter is read only where withFM (the
// start of a file or of a notebook's first cell).
func parseMarkdown(file string, src []byte, withFM bool) (*Lesson, error) {
	if err := checkMarkdown(file, src); err != nil {
		return &Lesson{Path: file, Source: src, Doc: ast.NewDocument(), Title: strings.TrimSuffix(path.Base(file), path.Ext(file))}, err
	}
	// A lesson saved on Windows ends its lines in CRLF: its commands
	// would end in \r (./a\r: No such file). Each line stays a line.
	if bytes.Contains(src, []byte("\r\n")) {
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	}
	// Front matter is not prose; a jupytext notebook's names the kernel
	// its code blocks run in, as the notebook's cells.
	body, fm := src, ""
	if withFM {
		body, fm = blankFrontMatter(src)
	}
	doc := md.Parser().Parse(text.NewReader(body))
	p := &parse{file: file, src: body, lines: newLineIndex(body)}
	l := &Lesson{Path: file, Source: body, Doc: doc}
	if name, lang, ok := jupytextKernel(fm); ok {
		p.jupytext, l.Kernel = lang, name
	} else if fm != "" {
		l.FrontMatter = &FrontMatter{Line: 1, Text: inner(fm)}
	}
	prevEnd := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		var c *Cell
		var start, end int
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			c, start, end = p.fence(n)
		case *NotebookCell:
			l.Dialect = Notebook
			c, start, end = p.notebook(n)
		default:
			continue
		}
		p.markdown(l, prevEnd, start)
		if c != nil {
			l.Cells = append(l.Cells, *c)
		}
		prevEnd = end
	}
	p.markdown(l, prevEnd, len(src))
	p.nestedFiles(doc)
	number(l)
	l.Title = title(doc, src)
	if l.Title == "" {
		l.Title = frontMatterTitle(fm)
	}
	if l.Title == "" {
		l.Title = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	l.Title = PlainTitle(l.Title)
	l.Warnings = p.warnings
	return l, p.errs.Err()
}

type parse struct {
	file string
	src  []byte
	// jupytext is the language of a jupytext notebook's kernel: its code
	// blocks of that language are the notebook's code cells.
	jupytext string
	lines    lineIndex
	errs     Errors
	warnings []*Error
}

func (p *parse) errorf(off int, fix, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: p.lines.line(off), Msg: fmt.Sprintf(format, args...), Fix: fix})
}

func (p *parse) warnf(off int, fix, format string, args ...any) {
	p.warnings = append(p.warnings, &Error{File: p.file, Line: p.lines.line(off), Msg: fmt.Sprintf(format, args...), Fix: fix})
}

// markdown appends the prose between two cells, if there is any.
func (p *parse) markdown(l *Lesson, from, to int) {
	if from >= to {
		return
	}
	chunk := p.src[from:to]
	trimmed := bytes.TrimLeft(chunk, " \t\r\n")
	if len(bytes.TrimSpace(trimmed)) == 0 {
		return
	}
	// Keep the indentation of the first line: it can matter to markdown.
	lead := len(chunk) - len(trimmed)
	for lead > 0 && chunk[lead-1] != '\n' {
		lead--
	}
	start := from + lead
	l.Cells = append(l.Cells, Cell{
		Kind: Markdown,
		Line: p.lines.line(start),
		Text: strings.TrimRight(string(p.src[start:to]), " \t\r\n") + "\n",
	})
}

// fence turns a top-level fenced code block into a cell, and returns the
// byte range it covers, fences included.
func (p *parse) fence(n *ast.FencedCodeBlock) (*Cell, int, int) {
	start := lineStart(p.src, n.Pos())
	openLine := p.src[start:lineEnd(p.src, start)]
	fenceChar, fenceLen := fenceOf(openLine)
	body := codeText(n, p.src)
	end := lineEnd(p.src, start)
	if n.Lines().Len() > 0 {
		end = lineEnd(p.src, n.Lines().At(n.Lines().Len()-1).Stop-1)
	}
	closeStart := end
	if closeStart < len(p.src) && p.src[closeStart] == '\n' {
		closeStart++
	}
	closeLine := p.src[closeStart:lineEnd(p.src, closeStart)]
	if isClosingFence(closeLine, fenceChar, fenceLen) {
		end = lineEnd(p.src, closeStart)
	} else {
		if strings.TrimSpace(body) == "" {
			p.warnf(start, "delete it, or close it with "+strings.Repeat(string(fenceChar), fenceLen),
				"stray %s at the end of the file opens an empty code block", strings.Repeat(string(fenceChar), fenceLen))
			return nil, start, len(p.src)
		}
		p.errorf(start, "add a line with "+strings.Repeat(string(fenceChar), fenceLen)+" where the code ends",
			"code fence opened here is never closed")
		end = len(p.src)
	}

	var info Info
	if n.Info != nil {
		info = ParseInfo(string(n.Info.Segment.Value(p.src)))
	} else {
		info = Info{Attrs: map[string]string{}}
	}
	c := &Cell{Kind: Code, Line: p.lines.line(start), Lang: info.Lang, Text: body, Node: n}
	name, isFile := info.Attrs["file"]
	_, run := info.Attrs["run"]
	switch {
	case info.Lang == "mermaid":
		c.Kind = Diagram
	case isFile:
		c.Kind, c.Name, c.Build, c.Flags = File, name, run, info.Attrs["flags"]
		_, c.Append = info.Attrs["append"]
		c.Label = "file " + name
		if c.Lang == "" {
			c.Lang = LangOf(name)
		}
		p.checkFileName(start, name)
		// Exported, the name is a %%writefile line and the flags a ! line,
		// where IPython runs what is between braces as Python.
		if strings.ContainsAny(name+c.Flags, "{}") {
			p.errorf(start, "rename the file, or write the flags, without { and }", "file=%s flags=%s holds a brace: a notebook's %%%%writefile or ! line runs what braces hold as Python", name, c.Flags)
		}
		if strings.TrimSpace(name) == "" {
			p.errorf(start, "write the file's name: ```cuda file=pool.cu", "file= names no file")
		}
		if strings.TrimSpace(body) == "" {
			p.errorf(start, "put the file's contents between the fences, or remove file="+name, "file cell %s is empty", name)
		}
	case p.jupytext != "" && info.Lang == p.jupytext && len(info.Attrs) == 0, quartoCell(n, p.src, info):
		// a jupytext or Quarto code cell: classified as a notebook's is
		lang := p.jupytext
		if lang == "" || quartoCell(n, p.src, info) {
			lang = info.Lang
		}
		cell, err := codeCell(p.file, body, c.Line, lang)
		if err != nil {
			p.errs = append(p.errs, err)
		}
		cell.Node = n
		*c = cell
	case run && (info.Lang == "python" || info.Lang == "py" || info.Lang == "python3"):
		c.Kind, c.Lang = Python, "python"
	case run && (IsShell(info.Lang) || info.Lang == ""):
		c.Kind = Command
		c.Text = strings.TrimRight(body, "\n")
		c.Label = "$ " + firstLine(c.Text)
		if strings.TrimSpace(body) == "" {
			p.errorf(start, "put the command between the fences, or drop the word run", "command cell is empty")
		}
	}
	return c, start, end
}

// quartoCell tells whether a fence is a code cell of Quarto (or R
// Markdown): ```{python}, its language in braces with no dot (```{.cuda}
// is pandoc's class: code to read) and no file=. Its Python runs as a
// notebook's cell.
func quartoCell(n *ast.FencedCodeBlock, src []byte, info Info) bool {
	if n.Info == nil || info.Lang != "python" {
		return false
	}
	raw := strings.TrimSpace(string(n.Info.Segment.Value(src)))
	_, isFile := info.Attrs["file"]
	return strings.HasPrefix(raw, "{") && !strings.HasPrefix(raw, "{.") && !isFile
}

// notebook turns a notebook cell into a cell, and returns its byte range.
func (p *parse) notebook(n *NotebookCell) (*Cell, int, int) {
	start := n.Pos()
	end := lineEnd(p.src, start)
	lines := n.Lines()
	if lines.Len() > 0 {
		end = lineEnd(p.src, lines.At(lines.Len()-1).Stop-1)
	}
	body := codeText(n, p.src)
	if strings.TrimSpace(body) == "" {
		return nil, start, end
	}
	first, rest, _ := strings.Cut(body, "\n")
	c := &Cell{Line: p.lines.line(start), Node: n, Label: strings.TrimSpace(first)}
	switch {
	case strings.HasPrefix(first, "%%writefile"):
		c.Kind, c.Text = File, rest
		args := strings.Fields(first)[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		if len(args) == 0 {
			p.errorf(start, "write the file's name after it: %%writefile pool.cu", "%%%%writefile names no file")
			return c, start, end
		}
		c.Name = args[0]
		c.Lang = LangOf(c.Name)
		p.checkFileName(start, c.Name)
		if strings.TrimSpace(rest) == "" {
			p.errorf(start, "put the file's contents under the %%writefile line, or delete the cell", "%%%%writefile %s is empty", c.Name)
		}
	case first == "%%bash" || first == "%%sh" || first == "%%shell" || strings.HasPrefix(first, "%%script bash") || strings.HasPrefix(first, "%%script sh"):
		c.Kind, c.Lang, c.Text = Command, "sh", strings.TrimRight(rest, "\n")
	case IsCUDAMagic(first):
		m, err := ParseCUDAMagic(first)
		c.Kind, c.Lang, c.Text, c.CUDA = Command, "cuda", rest, m
		if err != nil {
			p.errorf(start, "write the magic line as nvcc4jupyter reads it: %%cuda_group_save -n NAME.cu -g GROUP", "%s", err.Error())
		}
	case allShell(body):
		c.Kind, c.Lang, c.Bang = Command, "sh", true
		c.Text = bangText(body)
	default:
		c.Kind, c.Lang, c.Text = Python, "python", body
	}
	return c, start, end
}

func (p *parse) checkFileName(off int, name string) {
	if leaves(name) {
		p.errorf(off, "name a file inside the lesson's workspace, such as pool.cu", "file name %q leaves the lesson's workspace", name)
	}
}

// leaves tells whether a file name a lesson gives leaves its workspace,
// or names none: absolute, .. , the home folder (IPython's %%writefile
// expands ~), a backslash or a NUL.
func leaves(name string) bool {
	clean := path.Clean(name)
	return path.IsAbs(name) || clean == ".." || clean == "." || strings.HasPrefix(clean, "../") || strings.HasPrefix(name, "~") || strings.ContainsAny(name, "\\\x00")
}

// nestedFiles warns about file cells that are not at the top level: they
// are shown, but never written or run.
func (p *parse) nestedFiles(doc ast.Node) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		f, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || f.Parent() == doc || f.Info == nil {
			return ast.WalkContinue, nil
		}
		if _, isFile := ParseInfo(string(f.Info.Segment.Value(p.src))).Attrs["file"]; isFile {
			p.warnf(f.Info.Segment.Start, "move the fence out of the list or quote, to the start of a line",
				"a file fence inside a list or quote is shown but never written")
		}
		return ast.WalkContinue, nil
	})
}

func allShell(body string) bool {
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		if !strings.HasPrefix(l, "!") {
			return false
		}
	}
	return true
}

func number(l *Lesson) {
	n := 0
	for i := range l.Cells {
		if l.Cells[i].Runnable() {
			n++
			l.Cells[i].Number = n
		}
	}
}

// PlainTitle is a title as one line of plain text: escape sequences
// dropped and other control characters and bidirectional overrides shown
// as U+FFFD (ui.Printable), line breaks and runs of spaces one space, so
// that a lesson from elsewhere writes no escapes into a terminal and no
// odd bytes into a page's <title> or the site's table of contents.
func PlainTitle(s string) string {
	return strings.Join(strings.Fields(ui.Printable(s)), " ")
}

// title is the text of the first level-1 heading, else the first heading.
func title(doc ast.Node, src []byte) string {
	var first, h1 string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		t := strings.TrimSpace(string(NodeText(h, src)))
		if first == "" {
			first = t
		}
		if h.Level == 1 && h1 == "" {
			h1 = t
			return ast.WalkStop, nil
		}
		return ast.WalkSkipChildren, nil
	})
	if h1 != "" {
		return h1
	}
	return first
}

// NodeText is the plain text of an inline container, emphasis and links
// reduced to their text.
func NodeText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if s, ok := t.(*ast.Text); ok {
					b.Write(s.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			b.Write(c.URL(src))
		}
		return ast.WalkContinue, nil
	})
	return b.Bytes()
}

func codeText(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	s := b.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// fenceOf returns the fence character and length that open line, or 0, 0.
func fenceOf(line []byte) (byte, int) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0
	}
	c, n := line[i], 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return c, n
}

func isClosingFence(line []byte, c byte, n int) bool {
	fc, fn := fenceOf(line)
	if fc != c || fn < n {
		return false
	}
	return len(bytes.TrimSpace(bytes.TrimLeft(bytes.TrimSpace(line), string(c)))) == 0
}

func lineStart(src []byte, off int) int {
	if off > len(src) {
		off = len(src)
	}
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset of the newline that ends the line holding off,
// or len(src).
func lineEnd(src []byte, off int) int {
	if off < 0 {
		off = 0
	}
	if off >= len(src) {
		return len(src)
	}
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, b := range src {
		if b == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) line(off int) int {
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}
