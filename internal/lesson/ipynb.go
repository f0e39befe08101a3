package lesson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark/text"
)

// A .ipynb lesson is read straight into the model, cell for cell: this is
// the third reader, beside the two markdown dialects, not a converter in
// front of them. Markdown cells are parsed as markdown (their mermaid and
// other fences become cells of their own); code cells are classified the
// way Jupyter runs them.

// ipynbCell is a cell of an nbformat 4 notebook, as stored.
type ipynbCell struct {
	Type        string          `json:"cell_type"`
	ID          string          `json:"id"`
	Source      multiline       `json:"source"`
	Metadata    json.RawMessage `json:"metadata"`
	Attachments json.RawMessage `json:"attachments"`
	Outputs     []ipynbOutput   `json:"outputs"`
}

type ipynbOutput struct {
	Type      string                     `json:"output_type"`
	Name      string                     `json:"name"`
	Text      multiline                  `json:"text"`
	Data      map[string]json.RawMessage `json:"data"`
	Ename     string                     `json:"ename"`
	Evalue    string                     `json:"evalue"`
	Traceback []string                   `json:"traceback"`
}

// multiline is nbformat's text: a string, or a list of strings to join.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("is neither a string nor a list of strings")
	}
	*m = multiline(strings.Join(list, ""))
	return nil
}

// lessonsMeta is what a notebook written by lessons says of a cell in its
// metadata, so that reading it back gives the lesson it was written from.
type lessonsMeta struct {
	Lessons struct {
		// Generated marks a cell the writer adds (the setup cell, a build
		// cell, an exercise's cells): not part of the lesson.
		Generated string `json:"generated"`
		// Build and Flags are a File cell's build-and-run.
		Build bool   `json:"build"`
		Flags string `json:"flags"`
		// Lang is a File cell's language where its name's extension
		// says another (a markdown fence ```cuda file=kernel.txt).
		Lang string `json:"lang"`
	} `json:"lessons"`
}

// IsIpynb reports whether a file name or its content look like a notebook.
func IsIpynb(file string, src []byte) bool {
	if strings.EqualFold(path.Ext(file), ".ipynb") {
		return true
	}
	t := bytes.TrimLeft(src, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(src[:min(len(src), 4096)], []byte(`"cells"`))
}

// ParseIpynb reads an nbformat 4 notebook. Like Parse, it returns the
// lesson with what could be read and an Errors value naming each problem;
// a notebook that is not valid JSON, or of another nbformat, gives only an
// error.
func ParseIpynb(file string, src []byte) (*Lesson, error) {
	if err := checkSize(file, src, MaxIpynbBytes); err != nil {
		// what makes a notebook that large is its outputs, which a
		// lesson does not need: they come back when it runs
		if e, ok := err.(*Error); ok {
			e.Fix = "clear its outputs (Jupyter: Edit > Clear All Outputs, or jupyter nbconvert --clear-output --inplace " + path.Base(file) + "), or split it into lessons of their own"
		}
		return nil, err
	}
	lines := newLineIndex(src)
	at := func(off int64, fix, format string, args ...any) error {
		line := lines.line(int(off))
		col := int(off) - lines[line-1] + 1
		return Errors{{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Fix: fix}}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(src, &top); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, at(max(se.Offset-1, 0), "fix the JSON there, or save the notebook again from Jupyter", "invalid JSON: %s", se.Error())
		case errors.As(err, &te):
			return nil, at(int64(len(src)-len(bytes.TrimLeft(src, " \t\r\n"))), "a notebook is a JSON object with cells, metadata and nbformat", "not a notebook: the file is a JSON %s", te.Value)
		}
		return nil, &Error{File: file, Msg: "invalid JSON: " + err.Error()}
	}
	var major, minor int
	if raw, ok := top["nbformat"]; !ok || json.Unmarshal(raw, &major) != nil {
		return nil, &Error{File: file, Line: 1, Msg: "not a Jupyter notebook: it has no nbformat number",
			Fix: "lessons reads nbformat 4 notebooks (.ipynb files saved by Jupyter 4.0 or later, or Colab)"}
	}
	_ = json.Unmarshal(top["nbformat_minor"], &minor)
	if major == 3 {
		return parseV3(file, src, top, lines)
	}
	if major != 4 {
		return nil, &Error{File: file, Line: 1, Msg: fmt.Sprintf("this is an nbformat %d notebook; lessons reads nbformat 3 and 4", major),
			Fix: "convert it: jupyter nbconvert --to notebook --nbformat 4 " + path.Base(file)}
	}
	cellsRaw, ok := top["cells"]
	if !ok {
		return nil, &Error{File: file, Line: 1, Msg: "the notebook has no cells list", Fix: `an nbformat 4 notebook has "cells": [...]`}
	}
	base := int64(bytes.Index(src, cellsRaw))
	var raws []json.RawMessage
	if err := json.Unmarshal(cellsRaw, &raws); err != nil {
		return nil, at(base, `write "cells": [ {...}, ... ]`, "cells is not a list")
	}
	l := &Lesson{Path: file, Source: src, Dialect: Ipynb}
	meta := readNotebookMeta(top["metadata"])
	lang := meta.Language
	l.Kernel, l.Kernelspec, l.LanguageInfo = meta.Name, meta.kernelspec, meta.languageInfo
	if minor > knownMinor {
		l.NbformatMinor = minor
	}
	fmTitle := ""
	var errs Errors
	off := base
	for i, raw := range raws {
		// Each raw cell is a sub-slice of src: its offset gives its line.
		if j := bytes.Index(src[off:], raw); j >= 0 {
			off += int64(j)
		}
		line := lines.line(int(off))
		var nc ipynbCell
		if err := json.Unmarshal(raw, &nc); err != nil {
			var te *json.UnmarshalTypeError
			msg := err.Error()
			pos := off
			if errors.As(err, &te) {
				msg = fmt.Sprintf("%s is a JSON %s, not what nbformat 4 has there", te.Field, te.Value)
				pos += te.Offset
			} else if strings.Contains(msg, "neither") {
				msg = "a source or text " + strings.TrimPrefix(msg[strings.LastIndex(msg, ":")+1:], " ")
			}
			errs = append(errs, at(pos, "save the notebook again from Jupyter", "cell %d: %s", i+1, msg).(Errors)...)
			continue
		}
		from := &NotebookSource{Type: nc.Type, ID: nc.ID, Source: string(nc.Source), Attachments: nc.Attachments}
		// A notebook saved on Windows can hold CRLF inside its sources;
		// Jupyter's editor reads them as plain line ends, and so does the
		// model (From keeps them, for writing the notebook back).
		nc.Source = multiline(lineEnds(string(nc.Source)))
		if len(nc.Metadata) > 0 && string(nc.Metadata) != "{}" {
			from.Metadata = nc.Metadata
		}
		var meta lessonsMeta
		_ = json.Unmarshal(nc.Metadata, &meta)
		if meta.Lessons.Generated != "" {
			// Added by the writer (setup, build, exercise): not the lesson's.
			off += int64(len(raw))
			continue
		}
		var cells []Cell
		switch nc.Type {
		case "markdown":
			if n, d := tooDeep([]byte(nc.Source)); n > 0 {
				errs = append(errs, nestingError(file, line, d, fmt.Sprintf(" in cell %d (its line %d)", i+1, n)))
				off += int64(len(raw))
				continue
			}
			var fm *FrontMatter
			cells, fm = markdownCells(string(nc.Source), line, i == 0)
			if fm != nil {
				fm.Line = line
				l.FrontMatter = fm
			}
			atts := attachments(nc.Attachments)
			for k := range cells {
				cells[k].Attachments = atts
			}
		case "code":
			c, err := codeCell(file, string(nc.Source), line, lang)
			if err != nil {
				errs = append(errs, err)
			}
			c.Outputs = outputs(nc.Outputs)
			if c.Kind == File {
				c.Build, c.Flags = meta.Lessons.Build, meta.Lessons.Flags
				if meta.Lessons.Lang != "" {
					c.Lang = meta.Lessons.Lang
				}
			}
			cells = []Cell{c}
		case "raw":
			cells = []Cell{{Kind: Code, Lang: "text", Line: line, Text: textOf(string(nc.Source))}}
			if n := frontMatter([]byte(nc.Source)); i == 0 && n > 0 {
				// Quarto's and jupytext's front matter is a raw first
				// cell: shown as it is, its title the lesson's where
				// no heading gives one
				fmTitle = frontMatterTitle(inner(string(nc.Source)[:n]))
			}
		default:
			if minor <= knownMinor {
				errs = append(errs, &Error{File: file, Line: line, Msg: fmt.Sprintf("cell %d has cell_type %q", i+1, nc.Type), Fix: "nbformat 4 cells are markdown, code or raw"})
				off += int64(len(raw))
				continue
			}
			// A notebook of a later nbformat 4 than lessons knows may
			// have cells of types it does not: nbformat reads them
			// (its test4plus.ipynb), and so does lessons, showing
			// their source and saying it does not run them.
			cells = []Cell{{Kind: Code, Lang: "text", Line: line, Text: textOf(string(nc.Source)),
				Note: fmt.Sprintf("a %q cell of nbformat 4.%d: shown, not run (lessons knows markdown, code and raw cells)", nc.Type, minor)}}
		}
		for k := range cells {
			cells[k].From = from
		}
		l.Cells = append(l.Cells, cells...)
		off += int64(len(raw))
	}
	number(l)
	for _, c := range l.Cells {
		if c.Kind == Markdown && l.Title == "" {
			b := []byte(c.Text)
			l.Title = title(md.Parser().Parse(text.NewReader(b)), b)
		}
	}
	if l.Title == "" && l.FrontMatter != nil {
		l.Title = frontMatterTitle(l.FrontMatter.Text)
	}
	if l.Title == "" {
		l.Title = fmTitle
	}
	if l.Title == "" {
		l.Title = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	l.Title = PlainTitle(l.Title)
	return l, errs.Err()
}

// knownMinor is the latest nbformat 4 minor version lessons knows (and
// writes): 4.5, which gave cells their ids.
const knownMinor = 5

// notebookMeta is what lessons reads of a notebook's metadata. Keys
// are matched exactly, as Jupyter matches them (encoding/json would take
// "Kernelspec" for "kernelspec").
type notebookMeta struct {
	kernelspec, languageInfo json.RawMessage
	// Name and Language are the kernelspec's name (python3 for most,
	// "" when it names none) and the notebook's language (python when it
	// says none).
	Name, Language string
}

func readNotebookMeta(raw json.RawMessage) notebookMeta {
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	m := notebookMeta{kernelspec: top["kernelspec"], languageInfo: top["language_info"], Language: "python"}
	field := func(obj json.RawMessage, key string) string {
		var o map[string]json.RawMessage
		var s string
		if json.Unmarshal(obj, &o) == nil {
			_ = json.Unmarshal(o[key], &s)
		}
		return s
	}
	m.Name = field(m.kernelspec, "name")
	if lang := field(m.kernelspec, "language"); lang != "" {
		m.Language = strings.ToLower(lang)
	} else if lang := field(m.languageInfo, "name"); lang != "" {
		m.Language = strings.ToLower(lang)
	}
	return m
}

// language is the language of the kernel a notebook lesson names
// (python when it names none, and for markdown lessons).
func (l *Lesson) language() string {
	top := map[string]json.RawMessage{}
	if len(l.Kernelspec) > 0 {
		top["kernelspec"] = l.Kernelspec
	}
	if len(l.LanguageInfo) > 0 {
		top["language_info"] = l.LanguageInfo
	}
	raw, _ := json.Marshal(top)
	return readNotebookMeta(raw).Language
}

// textOf is a cell's text as the model holds it: ending in one newline,
// or empty.
func textOf(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// markdownCells parses a markdown cell's source into prose, diagram and
// code cells, and the front matter a notebook's first cell may open
// with (nbdev's). Fences in a notebook's markdown never run: a fence
// that names a file or says run is shown as code.
func markdownCells(src string, line int, first bool) ([]Cell, *FrontMatter) {
	if strings.TrimSpace(src) == "" {
		return []Cell{{Kind: Markdown, Line: line}}, nil
	}
	sub, _ := parseMarkdown("", []byte(src), first)
	cells := sub.Cells
	for k := range cells {
		c := &cells[k]
		c.Line, c.Node, c.Number = line, nil, 0
		if c.Kind == File || c.Kind == Command {
			c.Kind, c.Name, c.Build, c.Flags, c.Label, c.Append = Code, "", false, "", "", false
		}
		if c.Kind == Command || c.Kind == Code && c.Lang == "" {
			c.Label = ""
		}
	}
	switch {
	case len(cells) == 0 && sub.FrontMatter != nil:
		cells = []Cell{{Kind: Markdown, Line: line}} // front matter alone: kept as the notebook's cell
	case len(cells) == 0:
		cells = []Cell{{Kind: Markdown, Line: line, Text: textOf(src)}}
	}
	return cells, sub.FrontMatter
}

var writefileRE = regexp.MustCompile(`^%%(?:writefile|file)((?:\s+-{1,2}[a-z]+)*)\s+(\S.*?)\s*$`)

// codeCell classifies a code cell the way Jupyter runs it.
func codeCell(file, src string, line int, lang string) (Cell, *Error) {
	c := Cell{Kind: Code, Line: line, Lang: lang, Text: textOf(src)}
	if c.Text == "" {
		return c, nil
	}
	if comments, rest, n := commentsBeforeMagic(src); comments != "" && lang == "python" {
		// Colab runs a cell magic under comment lines (a course's
		// "# Vector addition\n%%cuda" cells ran there, recorded
		// outputs show; Jupyter's IPython takes the magic for a line
		// magic and fails): a magic lessons runs itself is read so,
		// its comments kept in its note
		if mc, err := codeCell(file, rest, line+n, lang); mc.Kind == File || mc.Kind == Command {
			note := "under the comment " + strings.Join(strings.Fields(comments), " ") + " (Colab runs a cell magic after comment lines, Jupyter does not)"
			if mc.Note != "" {
				note = mc.Note + "; " + note
			}
			mc.Note, mc.Line = note, line
			return mc, err
		}
	}
	first, rest, _ := strings.Cut(src, "\n")
	first = strings.TrimRight(first, " \t\r")
	c.Label = first
	switch {
	case strings.HasPrefix(first, "%%writefile") || strings.HasPrefix(first, "%%file"):
		m := writefileRE.FindStringSubmatch(first)
		if m == nil {
			return c, &Error{File: file, Line: line, Msg: first + " names no file", Fix: "write the file's name after it: %%writefile pool.cu"}
		}
		c.Kind, c.Name, c.Text = File, unquote(m[2]), textOf(rest)
		c.Append = strings.Contains(m[1], "-a")
		c.Lang = LangOf(c.Name)
		if rel, ok := strings.CutPrefix(c.Name, "/content/"); ok && !leaves(rel) {
			// Colab runs a notebook in /content: its file there is the
			// workspace's (a course on Colab and Kaggle wrote
			// %%writefile /content/test.cu, and import refused it whole)
			c.Note = fmt.Sprintf("Colab's %s, written as %s in the lesson's workspace", c.Name, rel)
			c.Name, c.Lang = rel, LangOf(rel)
		}
		if leaves(c.Name) {
			return c, &Error{File: file, Line: line, Msg: fmt.Sprintf("file name %q leaves the lesson's workspace", c.Name), Fix: "name a file inside the lesson's workspace, such as pool.cu"}
		}
	case first == "%%bash" || first == "%%sh" || first == "%%shell" || first == "%%script bash" || first == "%%script sh":
		// %%shell is Colab's %%bash
		c.Kind, c.Lang, c.Text = Command, "sh", strings.TrimRight(rest, " \t\r\n")
		if c.Text == "" {
			c.Kind, c.Lang, c.Text = Code, "sh", textOf(rest)
		}
	case strings.HasPrefix(first, "%%"):
		magic := strings.Fields(first)[0]
		switch {
		case IsCUDAMagic(first):
			m, err := ParseCUDAMagic(first)
			c.Kind, c.Lang, c.Text, c.CUDA = Command, "cuda", textOf(rest), m
			if err != nil {
				return c, &Error{File: file, Line: line, Msg: err.Error(), Fix: "write the magic line as nvcc4jupyter reads it: %%cuda_group_save -n NAME.cu -g GROUP"}
			}
		case lang == "python":
			// IPython's own cell magics (%%time, %%capture, ...): the
			// Python session runs them or says why not.
			c.Kind = Python
		default:
			c.Note = "a " + magic + " cell: shown, not run (lessons runs %%writefile, %%bash, %%sh, %%shell, %%script bash and ! lines)"
		}
	default:
		cmds, python := shellLines(src)
		switch {
		case len(cmds) > 0 && python == 0 && bangIsShell(lang):
			c.Kind, c.Lang, c.Bang = Command, "sh", true
			c.Text, c.Label = bangText(src), "!"+firstLine(cmds[0])
		case lang == "python":
			c.Kind = Python
		default:
			c.Label = ""
			c.Note = article(lang) + " " + lang + " cell: shown, not run (lessons runs Python notebooks' cells)"
		}
	}
	return c, nil
}

// commentsBeforeMagic splits a cell whose first line that is not blank
// or a comment opens a cell magic (%%writefile, %%cuda): its comment
// lines, the rest from the magic on, and how many lines come before it.
// comments is "" for any other cell.
func commentsBeforeMagic(src string) (comments, rest string, n int) {
	lines := strings.SplitAfter(src, "\n")
	var head []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasPrefix(t, "#"):
			head = append(head, t)
		case strings.HasPrefix(l, "%%") && len(head) > 0:
			return strings.Join(head, "\n"), strings.Join(lines[i:], ""), i
		default:
			return "", src, 0
		}
	}
	return "", src, 0
}

// article is "an" before a language name said with a vowel first (an r
// cell, an octave cell), else "a".
func article(lang string) string {
	if lang == "" || strings.ContainsRune("aeiofhlmnrsx", rune(lang[0])) && (len(lang) == 1 || strings.ContainsRune("aeiou", rune(lang[0]))) {
		return "an"
	}
	return "a"
}

// bangIsShell tells whether a line that starts with ! runs a shell
// command in a kernel of the language: in IPython and MATLAB (and Octave)
// it does; in Julia, R or C++ it is a negation, code like any other.
func bangIsShell(lang string) bool {
	switch lang {
	case "python", "matlab", "octave":
		return true
	}
	return false
}

// lineEnds makes CRLF and lone CR line ends plain LF, as Jupyter's editor
// reads a cell's source.
func lineEnds(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// consoleText is a stream's text as Jupyter shows it: what follows a
// carriage return writes over its line (a progress bar leaves its last
// state), a
// backspace takes back the character before it, and terminal colours
// are dropped.
func consoleText(s string) string {
	s = ansiRE.ReplaceAllString(s, "")
	if !strings.ContainsAny(s, "\r\b") {
		return s
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		// what comes after a return writes over the line's start
		var line []rune
		for _, seg := range strings.Split(l, "\r") {
			r := backspaced(seg)
			if len(r) < len(line) {
				r = append(r, line[len(r):]...)
			}
			line = r
		}
		lines[i] = string(line)
	}
	return strings.Join(lines, "\n")
}

// backspaced is s with each backspace taking back the rune before it.
func backspaced(s string) []rune {
	var r []rune
	for _, c := range s {
		if c != '\b' {
			r = append(r, c)
		} else if len(r) > 0 {
			r = r[:len(r)-1]
		}
	}
	return r
}

// bangText is a cell of ! lines as a Command cell holds it: the commands
// without their !, and its comments, which a shell skips.
func bangText(src string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, strings.TrimPrefix(strings.TrimPrefix(l, "!"), "!"))
	}
	return strings.Join(out, "\n")
}

// BangLines splits a ! cell's text into the commands IPython runs one by
// one: a line ending in a backslash goes on into the next; comments are
// left out.
func BangLines(text string) []string {
	var cmds []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l += "\n" + lines[i]
		}
		cmds = append(cmds, l)
	}
	return cmds
}

// BangSource is a ! cell's text as a notebook holds it: each command
// marked with !, except the lines that go on a command ended by a
// backslash, and comments; each line but a comment is passed through f
// (NativeArch for export), which may be nil.
func BangSource(text string, f func(string) string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if f != nil {
			l = f(l)
		}
		if i == 0 || !strings.HasSuffix(lines[i-1], "\\") {
			l = "!" + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// shellLines returns the commands of a code cell's ! lines (a line ending
// in a backslash goes on into the next) and counts its Python lines, blank
// lines and comments aside. An indented ! line is inside Python (a loop,
// an if) and counts as Python.
func shellLines(src string) (cmds []string, python int) {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r")
		switch {
		case strings.HasPrefix(l, "!"):
			cmd := strings.TrimPrefix(strings.TrimPrefix(l, "!"), "!")
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd += "\n" + strings.TrimRight(lines[i], "\r")
			}
			cmds = append(cmds, cmd)
		case strings.TrimSpace(l) == "", strings.HasPrefix(strings.TrimSpace(l), "#"):
		default:
			python++
		}
	}
	return cmds, python
}

// ansiRE matches a terminal's escape sequences: CSI (colours, and pip's
// \x1b[?25l that hides the cursor), OSC (a link, a title) and the
// short ones (a charset's \x1b(B).
var ansiRE = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]`)

func outputs(outs []ipynbOutput) []Output {
	var res []Output
	for _, o := range outs {
		out := Output{Type: o.Type, Name: o.Name}
		switch o.Type {
		case "stream":
			out.Text = consoleText(string(o.Text))
		case "error":
			out.Name = o.Ename
			out.Text = ansiRE.ReplaceAllString(strings.Join(o.Traceback, "\n"), "")
			if out.Text == "" {
				out.Text = o.Ename + ": " + o.Evalue
			}
		case "execute_result", "display_data":
			for _, mime := range slices.Sorted(maps.Keys(o.Data)) {
				if strings.HasPrefix(mime, "image/") && out.MIME == "" {
					var data multiline
					if json.Unmarshal(o.Data[mime], &data) == nil {
						out.MIME, out.Data = mime, strings.TrimSpace(string(data))
						if mime == "image/svg+xml" {
							// nbformat keeps SVG as text, every other
							// image as base64: the model holds base64
							out.Data = base64.StdEncoding.EncodeToString([]byte(data))
						}
					}
				}
			}
			if raw, ok := o.Data["text/plain"]; ok && out.MIME == "" {
				var t multiline
				_ = json.Unmarshal(raw, &t)
				out.Text = consoleText(string(t))
			} else if out.MIME == "" && len(o.Data) > 0 {
				// HTML, a widget, LaTeX with no text/plain beside it:
				// said, not shown, rather than an empty output.
				out.Text = "(" + strings.Join(slices.Sorted(maps.Keys(o.Data)), ", ") + " output: open the notebook in Jupyter to see it)"
			}
		default:
			// an output of a later nbformat (or a kernel's own):
			// said, not dropped in silence
			out.Text = fmt.Sprintf("(an output of type %q, which lessons does not know: open the notebook in Jupyter to see it)", o.Type)
		}
		res = append(res, out)
	}
	return res
}

func attachments(raw json.RawMessage) []Attachment {
	var m map[string]map[string]multiline
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var res []Attachment
	for _, name := range slices.Sorted(maps.Keys(m)) {
		for _, mime := range slices.Sorted(maps.Keys(m[name])) {
			res = append(res, Attachment{Name: name, MIME: mime, Data: strings.TrimSpace(string(m[name][mime]))})
			break
		}
	}
	return res
}
