package lesson

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dumpIpynb is dump with what only notebooks have: appends, notes,
// recorded outputs and attachments.
func dumpIpynb(l *Lesson, err error) string {
	var b strings.Builder
	b.WriteString(dump(l, nil))
	for i, c := range l.Cells {
		if c.Append || c.Note != "" || c.Build || len(c.Outputs) > 0 || len(c.Attachments) > 0 {
			fmt.Fprintf(&b, "cell %d:", i)
			if c.Append {
				b.WriteString(" append")
			}
			if c.Build {
				fmt.Fprintf(&b, " build flags=%q", c.Flags)
			}
			if c.Note != "" {
				fmt.Fprintf(&b, " note=%q", c.Note)
			}
			for _, o := range c.Outputs {
				fmt.Fprintf(&b, " out(%s %s %q %s %d)", o.Type, o.Name, o.Text, o.MIME, len(o.Data))
			}
			for _, a := range c.Attachments {
				fmt.Fprintf(&b, " attach(%s %s %d)", a.Name, a.MIME, len(a.Data))
			}
			b.WriteByte('\n')
		}
	}
	for _, e := range AsErrors(err) {
		fmt.Fprintf(&b, "error: %s\n", strings.ReplaceAll(e.Error(), "\n\t", " / "))
	}
	return b.String()
}

// TestIpynbFixtures reads each testdata/ipynb/*.ipynb and compares the
// model with its .cells golden file (refresh with -update).
func TestIpynbFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/ipynb/*.ipynb")
	if len(files) < 2 {
		t.Fatal("no notebook fixtures")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			l, err := ParseFile(file)
			if l == nil {
				t.Fatal(err)
			}
			got := dumpIpynb(l, err)
			golden := strings.TrimSuffix(file, ".ipynb") + ".cells"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if got != string(want) {
				t.Errorf("cells of %s differ from %s:\n%s", file, golden, got)
			}
		})
	}
}

func TestIpynbBadInput(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"syntax", "{\n \"cells\": [\n  {\"cell_type\": \"code\",,}\n ]\n}", `x.ipynb:3:24: invalid JSON: invalid character ',' looking for beginning of object key string`},
		{"truncated", "{\n \"cells\": [", `x.ipynb:2:11: invalid JSON: unexpected end of JSON input`},
		{"array", "[1, 2]", `x.ipynb:1:1: not a notebook: the file is a JSON array`},
		{"nbformat2", `{"nbformat": 2, "nbformat_minor": 0, "worksheets": []}`, "this is an nbformat 2 notebook; lessons reads nbformat 3 and 4\n\tconvert it: jupyter nbconvert --to notebook --nbformat 4 x.ipynb"},
		{"nonbformat", `{"cells": []}`, "not a Jupyter notebook: it has no nbformat number"},
		{"source number", "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {},\n\"cells\": [\n {\"cell_type\": \"code\", \"source\": 5}\n]}", "x.ipynb:3:2: cell 1: a source or text is neither a string nor a list of strings"},
		{"cell type", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "heading", "source": "x"}]}`, `cell 1 has cell_type "heading"`},
		{"writefile", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": "%%writefile\nx"}]}`, `%%writefile names no file`},
		{"escape", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "source": "%%writefile ../x.cu\nx"}]}`, `leaves the lesson's workspace`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseIpynb("x.ipynb", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant it to hold %q", err, tc.want)
			}
		})
	}
}

func TestParseFileRefuses(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "a.out")
	os.WriteFile(bin, append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 1<<20)...), 0o644)
	latin1 := filepath.Join(dir, "old.md")
	os.WriteFile(latin1, []byte("# caf\xe9\n"), 0o644)
	empty := filepath.Join(dir, "empty.md")
	os.WriteFile(empty, []byte("\n  \n"), 0o644)
	emptyNB := filepath.Join(dir, "empty.ipynb")
	os.WriteFile(emptyNB, []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "source": ""}]}`), 0o644)
	for file, want := range map[string]string{
		bin: "a.out is not a text lesson", latin1: "old.md is not a text lesson",
		empty: "the lesson is empty", emptyNB: "the lesson is empty",
	} {
		if _, err := ParseFile(file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFile(%s) = %v, want %q", filepath.Base(file), err, want)
		}
	}
}

func FuzzParseIpynb(f *testing.F) {
	files, _ := filepath.Glob("testdata/ipynb/*.ipynb")
	more, _ := filepath.Glob("testdata/colab/*.ipynb")
	for _, file := range append(files, more...) {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["!a \\", "b"]}]}`))
	f.Add([]byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "# c\n\n%%cuda -n ../x.cu\nint main() {}"}]}`))
	if v3, err := os.ReadFile("testdata/ipynb3/ipython2-numbapro.ipynb"); err == nil {
		f.Add(v3)
	}
	f.Add([]byte("{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"!a\\r\\r\\n\", \"outputs\": [{\"output_type\": \"stream\", \"text\": \"\\b\\r\\u00e9\\rx\\b\\r\"}]}]}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := ParseIpynb("f.ipynb", src)
		if l == nil && err == nil {
			t.Fatal("no lesson and no error")
		}
		if l == nil || err != nil {
			return
		}
		for _, c := range l.Cells {
			if c.From == nil {
				t.Fatal("a cell with no notebook source")
			}
		}
		// What reads without error writes back and reads again the same.
		out, err := NewNotebook(l, IpynbOptions{Setup: true}).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseIpynb("f.ipynb", out)
		if err != nil {
			t.Fatalf("the notebook written does not read back: %v", err)
		}
		got, want := modelCells(back), modelCells(l)
		if len(got) != len(want) {
			t.Fatalf("%d cells read back, %d before", len(got), len(want))
		}
		for i := range want {
			if want[i].Kind == Code {
				// The notebook is written with a Python kernel: code to
				// read takes its language.
				got[i].Lang, want[i].Lang = "", ""
			}
			if got[i] != want[i] {
				t.Fatalf("cell %d read back as %+v, was %+v", i, got[i], want[i])
			}
		}
		// Cells added at its end keep every byte of the notebook before
		// them and after them, and read back as the lesson's own.
		nb, ok := NewAppendix(l)
		if !ok {
			return
		}
		nb.Code("%%writefile x.cu\nint main() {}", map[string]any{"generated": "exercise"})
		added, err := nb.AppendTo(src)
		if err != nil {
			return // a cells list the writer could not place: it says so
		}
		if !json.Valid(added) {
			t.Fatalf("not JSON after adding a cell:\n%s", added)
		}
		again, err := ParseIpynb("f.ipynb", added)
		if err != nil || len(again.Cells) != len(l.Cells) {
			t.Fatalf("with a cell added: %v, %d cells, %d before", err, len(again.Cells), len(l.Cells))
		}
	})
}

func TestConsoleText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"10%\r60%\r100%\n", "100%\n"},
		{"abcdef\rXY\n", "XYcdef\n"},    // a shorter line writes over the start only, as Jupyter shows it
		{"ab\bc\b\bd", "d"},             // backspaces
		{"\b\béé\rx", "xé"},             // runes, not bytes
		{"\x1b[32mok\x1b[0m\n", "ok\n"}, // colours dropped
		{"trailing\r", "trailing"},
		{"Installing ... \x1b[?25l\x1b[?25hdone\n", "Installing ... done\n"},      // pip hides and shows the cursor
		{"\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\ \x1b(Bok\n", "link ok\n"}, // a hyperlink, a charset
	} {
		if got := consoleText(tc.in); got != tc.want {
			t.Errorf("consoleText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBangIsShellByLanguage(t *testing.T) {
	for lang, want := range map[string]Kind{"python": Command, "matlab": Command, "julia": Code, "r": Code, "c++17": Code} {
		c, err := codeCell("x.ipynb", "!ls\n", 1, lang)
		if err != nil || c.Kind != want {
			t.Errorf("a ! line in a %s notebook is %v (%v), want %v", lang, c.Kind, err, want)
		}
	}
}

func TestCUDASetup(t *testing.T) {
	for src, want := range map[string]bool{
		"!pip install nvcc4jupyter": true,
		"%load_ext nvcc4jupyter":    true,
		"!pip install git+https://github.com/andreinechaev/nvcc4jupyter.git\n%load_ext nvcc_plugin": true,
		"# setup\n!python -m pip install -q nvcc4jupyter":                                           true,
		"!pip install nvcc4jupyter numpy":                                                           false, // numpy is still wanted
		"%load_ext nvcc4jupyter\nimport numpy":                                                      false,
		"%load_ext autoreload":                                                                      false,
		"!nvcc --version":                                                                           false,
	} {
		l, err := ParseIpynb("x.ipynb", []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": `+quoteJSON(src)+`}]}`))
		if err != nil || len(l.Cells) != 1 {
			t.Fatalf("%q: %v", src, err)
		}
		if got := CUDASetup(&l.Cells[0]); got != want {
			t.Errorf("CUDASetup(%q) = %v, want %v", src, got, want)
		}
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Colab's %%shell is its %%bash: a command cell, not a Python cell whose
// magic IPython outside Colab does not have.
func TestColabShellCell(t *testing.T) {
	c, err := codeCell("x.ipynb", "%%shell\nnvcc a.cu -o a\n./a\n", 1, "python")
	if err != nil || c.Kind != Command || c.Text != "nvcc a.cu -o a\n./a" || c.Label != "%%shell" {
		t.Errorf("%%%%shell: %+v %v", c, err)
	}
}

// An SVG figure (matplotlib's svg format) is kept as text by nbformat,
// unlike every other image: the model holds it as base64 too, so that the
// site's data: URL and the terminal's size are right.
func TestSVGOutput(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "plot()", "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/svg+xml": ` + quoteJSON(svg) + `, "text/plain": "<Figure>"}}]}]}`
	l, err := ParseIpynb("svg.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	o := l.Cells[0].Outputs[0]
	data, err := base64.StdEncoding.DecodeString(o.Data)
	if o.MIME != "image/svg+xml" || err != nil || string(data) != svg {
		t.Errorf("%s %q: %v", o.MIME, data, err)
	}
}

// TestNbformat3: an IPython 2 notebook (nbformat 3: worksheets, heading
// cells, input, pyout and pyerr, png beside text) reads as nbformat's
// upgrade to 4 would give it, each cell at its line in the file; an
// error in a cell names that line.
func TestNbformat3(t *testing.T) {
	file := "testdata/ipynb3/ipython2-numbapro.ipynb"
	l, err := ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := dumpIpynb(l, err)
	golden := strings.TrimSuffix(file, ".ipynb") + ".cells"
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	if want, _ := os.ReadFile(golden); got != string(want) {
		t.Errorf("cells of %s differ from %s:\n%s", file, golden, got)
	}
	bad := "{\"nbformat\": 3, \"nbformat_minor\": 0, \"metadata\": {}, \"worksheets\": [{\"cells\": [\n" +
		"{\"cell_type\": \"markdown\", \"source\": \"# T\"},\n\n\n" +
		"{\"cell_type\": \"code\", \"input\": \"%%writefile\\nx\", \"outputs\": []}]}]}"
	if _, err := ParseIpynb("old.ipynb", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "old.ipynb:5: %%writefile names no file") {
		t.Errorf("an error in a v3 cell: %v", err)
	}
	if _, err := ParseIpynb("old.ipynb", []byte(`{"nbformat": 3, "nbformat_minor": 0, "metadata": {}}`)); err == nil || !strings.Contains(err.Error(), "has no worksheets list") {
		t.Errorf("no worksheets: %v", err)
	}
}

func TestArticle(t *testing.T) {
	for lang, want := range map[string]string{"r": "an", "octave": "an", "julia": "a", "c++17": "a", "matlab": "a", "f": "an", "ocaml": "an", "scala": "a"} {
		if got := article(lang); got != want {
			t.Errorf("article(%q) = %q, want %q", lang, got, want)
		}
	}
}

// TestCommentBeforeMagic: Colab runs a cell magic under comment lines
// (a GPU course's "# Vector addition\n%%cuda" cells ran there, their
// recorded outputs show, and its "# ...\n%%writefile" cell wrote its
// file): a magic lessons runs itself (%%writefile, %%cuda) is read so,
// its comments in its note; IPython's own (%%time) stays a Python cell,
// which the Python session runs as it is.
func TestCommentBeforeMagic(t *testing.T) {
	file := "testdata/colab/comment-magic.ipynb"
	l, err := ParseFile(file)
	if l == nil {
		t.Fatal(err)
	}
	got := dumpIpynb(l, err)
	golden := "testdata/colab/comment-magic.cells"
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	if want, _ := os.ReadFile(golden); got != string(want) {
		t.Errorf("cells of %s differ from %s:\n%s", file, golden, got)
	}
	if l.Cells[1].Kind != File || l.Cells[2].CUDA == nil || l.Cells[3].Kind != Python {
		t.Errorf("kinds: %v %v %v", l.Cells[1].Kind, l.Cells[2].Kind, l.Cells[3].Kind)
	}
	// import --to md keeps the comments, as prose before their cell
	md := string(PlainMarkdown(l))
	for _, want := range []string{"`# the kernel, one thread an element`\n\n```cuda file=saxpy.cu", "`# Saxpy on the GPU (one block)`"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, md)
		}
	}
	back, err := Parse("x.md", []byte(md))
	if err != nil || len(back.Files()) != 2 || back.Files()[0].Name != "saxpy.cu" {
		t.Errorf("the markdown reads back with files %v: %v", back.Files(), err)
	}
}
