package lesson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// IpynbOptions say what a notebook written from a lesson holds besides
// the lesson's own cells.
type IpynbOptions struct {
	// Setup puts first a cell that shows nvcc and the GPU.
	Setup bool
	// Install, when set, is the source of a code cell put before all
	// others: it installs what the notebook's cells run (lessons and
	// the course, for its check cells).
	Install string
}

// NotebookWriter builds an nbformat 4 notebook from a lesson's cells.
// Cells the writer adds on its own (the setup cell, a build-and-run cell,
// an exercise's cells) say so in their metadata, so that reading the
// notebook back gives the lesson it came from.
type NotebookWriter struct {
	cells []map[string]any
	// kernelspec and languageInfo are the lesson's own, when it was read
	// from a notebook that names them.
	kernelspec, languageInfo json.RawMessage
	// minor is the nbformat_minor written: 5, or the lesson's later one.
	minor int
}

// NewNotebook writes l's cells. A cell read from a notebook is written
// back as it was (type, source, id, metadata, attachments; not its
// outputs); the others are made from the model: prose and code to read
// as markdown, files as %%writefile, commands as ! or %%bash cells, a
// program the tool builds as %%writefile plus its build-and-run cell.
func NewNotebook(l *Lesson, opt IpynbOptions) *NotebookWriter {
	nb := &NotebookWriter{kernelspec: l.Kernelspec, languageInfo: l.LanguageInfo, minor: max(knownMinor, l.NbformatMinor)}
	if opt.Install != "" && bangIsShell(l.language()) {
		nb.Code(opt.Install, map[string]any{"generated": "install"})
	}
	if opt.Setup && bangIsShell(l.language()) {
		// (a ! line would be code, or an error, in a Julia or C++ kernel)
		nb.Code("# What this notebook runs on: nvcc and the GPU.\n"+
			"# In Colab, pick a GPU first: Runtime > Change runtime type > GPU.\n"+
			"!nvcc --version | tail -n 2\n"+
			"!nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv",
			map[string]any{"generated": "setup"})
	}
	var last *NotebookSource
	for i := range l.Cells {
		c := &l.Cells[i]
		if c.From != nil {
			if c.From != last {
				nb.raw(c.From)
				last = c.From
			}
		} else {
			nb.model(c)
		}
		if c.Kind == File && c.Build {
			bin := strings.TrimSuffix(path.Base(c.Name), path.Ext(c.Name))
			nb.Code(strings.Join(strings.Fields(fmt.Sprintf("!nvcc -arch=native -o %s %s %s", bin, c.Name, c.Flags)), " ")+" && ./"+bin,
				map[string]any{"generated": "build"})
		}
	}
	return nb
}

func (nb *NotebookWriter) model(c *Cell) {
	switch c.Kind {
	case Markdown:
		nb.Markdown(strings.TrimSuffix(c.Text, "\n"), nil)
	case Diagram:
		nb.Markdown(fenced("mermaid", c.Text), nil)
	case Code:
		nb.Markdown(fenced(c.Lang, c.Text), nil)
	case File:
		flag := ""
		if c.Append {
			flag = "-a "
		}
		meta := map[string]any{}
		if c.Build {
			meta["build"] = true
		}
		if c.Flags != "" { // kept without run too: the lesson said them
			meta["flags"] = c.Flags
		}
		if c.Lang != "" && c.Lang != LangOf(c.Name) {
			meta["lang"] = c.Lang
		}
		if len(meta) == 0 {
			meta = nil
		}
		nb.Code("%%writefile "+flag+c.Name+"\n"+codeBody(c.Text), meta)
	case Python:
		nb.Code(codeBody(c.Text), nil)
	case Command:
		text := strings.TrimRight(c.Text, "\n")
		if c.CUDA != nil {
			nb.Code(c.Label+"\n"+text, nil)
			return
		}
		if c.Bang {
			nb.Code(BangSource(text, NativeArch), nil)
			return
		}
		if strings.Contains(text, "\n") {
			nb.Code("%%bash\n"+NativeArch(text), nil)
		} else {
			nb.Code("!"+NativeArch(text), nil)
		}
	}
}

// codeBody is a code cell's text as its notebook source: without the
// newline IPython adds to a source that does not end in one, so that
// what IPython runs (and writes, for %%writefile) is the text, blank
// lines at its end included.
func codeBody(text string) string {
	if strings.HasSuffix(text, "\n\n") {
		return text
	}
	return strings.TrimSuffix(text, "\n")
}

// fenced is a markdown fence around text, longer than any run of
// backticks inside it.
func fenced(lang, text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + lang + "\n" + text + fence
}

var (
	nvccRE    = regexp.MustCompile(`(^|[\s;&|(])nvcc([ \t])`)
	hasArchRE = regexp.MustCompile(`(^|\s)(-arch|--gpu-architecture|-gencode|--generate-code|-code|--gpu-code)\b`)
)

// NativeArch makes the nvcc calls of a command that names no architecture
// build for the GPU they run on (-arch=native, in nvcc since 11.5): a
// notebook runs on whatever GPU Colab or a JupyterHub gives it.
func NativeArch(cmd string) string {
	if hasArchRE.MatchString(cmd) || strings.Contains(cmd, "nvcc --version") {
		return cmd
	}
	return nvccRE.ReplaceAllString(cmd, "${1}nvcc -arch=native${2}")
}

func (nb *NotebookWriter) raw(from *NotebookSource) {
	cell := map[string]any{"cell_type": from.Type, "metadata": json.RawMessage(`{}`), "source": lines(from.Source)}
	if from.ID != "" {
		cell["id"] = from.ID
	}
	if len(from.Metadata) > 0 {
		cell["metadata"] = json.RawMessage(from.Metadata)
	}
	if len(from.Attachments) > 0 && from.Type == "markdown" {
		cell["attachments"] = json.RawMessage(from.Attachments)
	}
	if from.Type == "code" {
		cell["execution_count"] = nil
		cell["outputs"] = []any{}
	}
	nb.add(cell)
}

// Markdown adds a markdown cell; lessonsMeta as for Code.
func (nb *NotebookWriter) Markdown(src string, lessonsMeta map[string]any) {
	meta := map[string]any{}
	if lessonsMeta != nil {
		meta["lessons"] = lessonsMeta
	}
	nb.add(map[string]any{"cell_type": "markdown", "metadata": meta, "source": lines(src)})
}

// Code adds a code cell; lessonsMeta, when not nil, goes into its
// metadata under "lessons" (generated: what the writer added it for).
func (nb *NotebookWriter) Code(src string, lessonsMeta map[string]any) {
	meta := map[string]any{}
	if lessonsMeta != nil {
		meta["lessons"] = lessonsMeta
	}
	nb.add(map[string]any{"cell_type": "code", "execution_count": nil, "metadata": meta, "outputs": []any{}, "source": lines(src)})
}

func (nb *NotebookWriter) add(cell map[string]any) {
	if _, ok := cell["id"]; !ok {
		// nbformat 4.5 wants an id on every cell, unique in the notebook.
		cell["id"] = fmt.Sprintf("cell-%d", len(nb.cells)+1)
	}
	nb.cells = append(nb.cells, cell)
}

// Bytes is the notebook as Jupyter writes it: keys sorted, one space of
// indent, sources as lists of lines.
func (nb *NotebookWriter) Bytes() ([]byte, error) {
	ids := map[any]bool{}
	for i, c := range nb.cells {
		if ids[c["id"]] {
			c["id"] = fmt.Sprintf("cell-%d-%d", i+1, len(ids))
		}
		ids[c["id"]] = true
	}
	meta := map[string]any{
		"accelerator":   "GPU",
		"colab":         map[string]any{"provenance": []any{}, "gpuType": "T4"},
		"kernelspec":    map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"},
		"language_info": map[string]any{"name": "python"},
	}
	if len(nb.kernelspec) > 0 || len(nb.languageInfo) > 0 {
		// The notebook's own, as it had them (one without the other
		// too): a default beside them could name another language.
		delete(meta, "kernelspec")
		delete(meta, "language_info")
		if len(nb.kernelspec) > 0 {
			meta["kernelspec"] = nb.kernelspec
		}
		if len(nb.languageInfo) > 0 {
			meta["language_info"] = nb.languageInfo
		}
	}
	doc := map[string]any{
		"cells":          nb.cells,
		"metadata":       meta,
		"nbformat":       4,
		"nbformat_minor": max(knownMinor, nb.minor),
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // Jupyter writes <, > and & as they are
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// lines splits a source into nbformat's list of lines, each but the last
// ending in a newline.
func lines(s string) []string {
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// PlainMarkdown writes a lesson in the plain-markdown dialect, cell for
// cell: prose as it is (a notebook's attachments inlined as data: images),
// fences for code, files (file=NAME, append, run) and commands (sh run).
// Recorded outputs are not kept. A notebook's Python cells become python
// run fences, which run in the lesson's Python session as they did.
func PlainMarkdown(l *Lesson) []byte {
	var b strings.Builder
	for _, c := range l.Cells {
		text := c.Text
		if strings.TrimSpace(text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if c.From != nil && (c.Kind == File || c.Kind == Command) {
			// the comment lines a cell had above its magic (Colab's),
			// kept as prose: a # line in a C file or the markdown
			// would be another thing
			if comments, _, _ := commentsBeforeMagic(c.From.Source); comments != "" {
				var spans []string
				for _, l := range strings.Split(comments, "\n") {
					spans = append(spans, CodeSpan(l))
				}
				b.WriteString(strings.Join(spans, " ") + "\n\n")
			}
		}
		switch c.Kind {
		case Markdown:
			for _, a := range c.Attachments {
				text = strings.ReplaceAll(text, "attachment:"+a.Name, "data:"+a.MIME+";base64,"+a.Data)
			}
			b.WriteString(text)
		case Diagram:
			b.WriteString(fenced("mermaid", text) + "\n")
		case Code:
			b.WriteString(fenced(c.Lang, text) + "\n")
		case File:
			info := c.Lang + " file=" + c.Name
			if c.Append {
				info += " append"
			}
			if c.Build {
				info += " run"
				if c.Flags != "" {
					info += fmt.Sprintf(" flags=%q", c.Flags)
				}
			}
			b.WriteString(fenced(info, text) + "\n")
		case Python:
			b.WriteString(fenced("python run", text) + "\n")
		case Command:
			if c.CUDA != nil {
				b.WriteString(cudaMarkdown(&c) + "\n")
				continue
			}
			b.WriteString(fenced("sh run", text) + "\n")
		}
	}
	return []byte(b.String())
}

// CodeSpan is s as a markdown code span, its backticks longer than any
// run inside it (render's math spans are written the same way).
func CodeSpan(s string) string {
	tick := "`"
	for strings.Contains(s, tick) {
		tick += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return tick + s + tick
}

// cudaMarkdown is an nvcc4jupyter cell in the markdown dialect: %%cuda a
// program the tool builds and runs, a group's file a file of its folder,
// a group's run the nvcc that builds them together.
func cudaMarkdown(c *Cell) string {
	m := c.CUDA
	flags := ""
	if m.CompilerArgs != "" {
		flags = fmt.Sprintf(" flags=%q", m.CompilerArgs)
	}
	switch m.Op {
	case "cuda":
		return fenced(fmt.Sprintf("cuda file=cuda_cell_%d.cu run%s", c.Number, flags), c.Text)
	case "cuda_group_save":
		if m.Run {
			return fenced(fmt.Sprintf("cuda file=%s/%s run%s", m.Group, m.Name, flags), c.Text)
		}
		return fenced("cuda file="+m.Group+"/"+m.Name, c.Text)
	case "cuda_group_run":
		build := strings.Join(strings.Fields(fmt.Sprintf("nvcc %s %s/*.cu -o %s/%s.out", m.CompilerArgs, m.Group, m.Group, m.Group)), " ")
		return fenced("sh run", fmt.Sprintf("%s && ./%s/%s.out", build, m.Group, m.Group))
	}
	return fenced("sh run", "rm -rf "+m.Group)
}

// NewAppendix is a writer of cells to add to l, a lesson read from an
// nbformat 4 notebook, with AppendTo: the notebook itself is kept as it
// is, byte for byte, and no setup cell is added (the notebook has its
// own way to start). ok is false for a lesson that is not such a
// notebook, or one that holds cells an earlier export added (written
// anew by NewNotebook, which leaves them out).
func NewAppendix(l *Lesson) (nb *NotebookWriter, ok bool) {
	if l.Dialect != Ipynb || !isV4(l.Source) || bytes.Contains(l.Source, []byte(`"generated"`)) && hasGenerated(l.Source) {
		return nil, false
	}
	return &NotebookWriter{kernelspec: l.Kernelspec, languageInfo: l.LanguageInfo}, true
}

// Len is how many cells the writer holds.
func (nb *NotebookWriter) Len() int { return len(nb.cells) }

func isV4(src []byte) bool {
	var top struct {
		Nbformat int `json:"nbformat"`
	}
	return json.Unmarshal(src, &top) == nil && top.Nbformat == 4
}

func hasGenerated(src []byte) bool {
	var top struct {
		Cells []struct {
			Metadata lessonsMeta `json:"metadata"`
		} `json:"cells"`
	}
	if json.Unmarshal(src, &top) != nil {
		return true
	}
	for _, c := range top.Cells {
		if c.Metadata.Lessons.Generated != "" {
			return true
		}
	}
	return false
}

// AppendTo is src, a notebook's bytes (nbformat 4), with the writer's
// cells after its own: every byte of it is kept as it was (its cells,
// outputs, ids, attachments, metadata of any tool: colab, kaggle,
// widgets), and the new cells are indented as its cells are, given ids
// none of its cells has (only where its nbformat_minor has ids, 5 and
// later). With no cells to add, it is src.
func (nb *NotebookWriter) AppendTo(src []byte) ([]byte, error) {
	if len(nb.cells) == 0 {
		return src, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(src, &top); err != nil {
		return nil, err
	}
	var minor int
	_ = json.Unmarshal(top["nbformat_minor"], &minor)
	var own []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(top["cells"], &own); err != nil {
		return nil, fmt.Errorf("cells is not a list: %w", err)
	}
	ids := map[string]bool{}
	for _, c := range own {
		ids[c.ID] = true
	}
	// The cells list's place: the raw value's bytes, found after the
	// "cells" key.
	key := bytes.Index(src, []byte(`"cells"`))
	for key >= 0 {
		rest := bytes.TrimLeft(src[key+len(`"cells"`):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			break
		}
		next := bytes.Index(src[key+1:], []byte(`"cells"`))
		if next < 0 {
			key = -1
			break
		}
		key += 1 + next
	}
	if key < 0 {
		return nil, fmt.Errorf("no cells list found")
	}
	open := key + bytes.IndexByte(src[key:], '[')
	closeAt := open + len(top["cells"]) - 1
	if closeAt >= len(src) || src[closeAt] != ']' || !bytes.Equal(compactJSON(src[open:closeAt+1]), compactJSON(top["cells"])) {
		return nil, fmt.Errorf("the cells list could not be found in the file")
	}
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	// the indent of its cells (Jupyter: one space, cells at two)
	prefix, unit := " ", " "
	if body := bytes.TrimLeft(src[open+1:], " \t\r\n"); len(body) > 0 && body[0] == '{' {
		start := open + 1 + (len(src[open+1:]) - len(body))
		ls := bytes.LastIndexByte(src[:start], '\n') + 1
		prefix = string(src[ls:start])
		if strings.Trim(prefix, " \t") != "" {
			prefix = ""
		}
		if len(prefix) >= 2 && strings.Trim(prefix, " ") == "" {
			unit = prefix[:len(prefix)/2]
		}
	}
	var b bytes.Buffer
	last := bytes.TrimRight(src[open+1:closeAt], " \t\r\n")
	b.Write(src[:open+1])
	b.Write(last)
	for i, cell := range nb.cells {
		if minor >= 5 {
			id, _ := cell["id"].(string)
			for n := len(own) + i + 1; id == "" || ids[id]; n++ {
				id = fmt.Sprintf("lessons-%d", n)
			}
			ids[id] = true
			cell["id"] = id
		} else {
			delete(cell, "id")
		}
		if i > 0 || len(bytes.TrimSpace(last)) > 0 {
			b.WriteByte(',')
		}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		e.SetIndent(prefix, unit)
		if err := e.Encode(cell); err != nil {
			return nil, err
		}
		b.WriteString(nl + prefix)
		b.Write(bytes.ReplaceAll(bytes.TrimRight(enc.Bytes(), "\n"), []byte("\n"), []byte(nl)))
	}
	// the close as the file had it: the whitespace before ] and all after
	b.Write(src[open+1+len(last):])
	return b.Bytes(), nil
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return nil
	}
	return out.Bytes()
}
