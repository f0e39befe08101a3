package lesson

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type nbCell struct {
	Type   string    `json:"cell_type"`
	Source multiline `json:"source"`
}

func nbCells(t *testing.T, b []byte) []nbCell {
	t.Helper()
	var nb struct{ Cells []nbCell }
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	return nb.Cells
}

// TestIpynbRoundTrip: notebook -> model -> notebook keeps each cell's
// type, order and source byte for byte, for every notebook fixture.
func TestIpynbRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/ipynb/*.ipynb")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, _ := os.ReadFile(file)
			l, err := ParseIpynb(file, src)
			if err != nil {
				t.Fatal(err)
			}
			out, err := NewNotebook(l, IpynbOptions{}).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := nbCells(t, out), nbCells(t, src); !reflect.DeepEqual(got, want) {
				t.Errorf("cells changed:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

// modelCell is what a cell must keep through a notebook: the lines and
// labels of a notebook are its own. A command's nvcc gets -arch=native
// in a notebook (NativeArch), so the command compared is that one.
type modelCell struct {
	Kind             Kind
	Lang, Name, Text string
	Append, Build    bool
	Flags            string
	Number           int
}

func modelCells(l *Lesson) []modelCell {
	var out []modelCell
	for _, c := range l.Cells {
		m := modelCell{c.Kind, c.Lang, c.Name, c.Text, c.Append, c.Build, c.Flags, c.Number}
		if c.Kind == Command {
			m.Lang, m.Text = "", NativeArch(strings.TrimRight(c.Text, "\n"))
		}
		out = append(out, m)
	}
	return out
}

// TestMarkdownThroughNotebook: a markdown lesson (either dialect) ->
// notebook -> model gives the same cells, for the course's lessons, the
// parser's cases and the seed documents; and the notebook written again
// from that model is the same file, byte for byte.
func TestMarkdownThroughNotebook(t *testing.T) {
	files, _ := filepath.Glob("../../lessons/*.md")
	seeds, _ := filepath.Glob("../../../shared/seeds/*.txt")
	files = append(files, seeds...)
	if len(files) < 5 {
		t.Fatal("no lessons found")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			l, err := ParseFile(file)
			if err != nil {
				t.Skipf("does not parse: %v", err)
			}
			out, err := NewNotebook(l, IpynbOptions{Setup: true}).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseIpynb("x.ipynb", out)
			if err != nil {
				t.Fatal(err)
			}
			got, want := modelCells(back), modelCells(l)
			if len(got) != len(want) {
				t.Fatalf("%d cells through a notebook, %d before", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("cell %d (line %d) changed:\ngot  %+v\nwant %+v", i, l.Cells[i].Line, got[i], want[i])
				}
			}
			again, _ := NewNotebook(back, IpynbOptions{Setup: true}).Bytes()
			if string(again) != string(out) {
				t.Error("the notebook written again from its own model differs")
			}
		})
	}
}

func TestNativeArch(t *testing.T) {
	for in, want := range map[string]string{
		"nvcc a.cu -o a && ./a":              "nvcc -arch=native a.cu -o a && ./a",
		"nvcc -arch=sm_75 a.cu -o a":         "nvcc -arch=sm_75 a.cu -o a",
		"nvcc -gencode arch=compute_90 a.cu": "nvcc -gencode arch=compute_90 a.cu",
		"cd x; nvcc a.cu && nvcc b.cu":       "cd x; nvcc -arch=native a.cu && nvcc -arch=native b.cu",
		"nvcc --version":                     "nvcc --version",
		"echo nvcc":                          "echo nvcc",
	} {
		if got := NativeArch(in); got != want {
			t.Errorf("NativeArch(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNotebookToMarkdown: notebook -> plain markdown -> model gives the
// notebook's cells (a mixed cell gains its Python, shown before it, and
// two markdown cells in a row become one).
func TestNotebookToMarkdown(t *testing.T) {
	files, _ := filepath.Glob("testdata/ipynb/*.ipynb")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			l, err := ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			md := PlainMarkdown(l)
			back, err := Parse("x.md", md)
			if err != nil {
				t.Fatalf("%v\n%s", err, md)
			}
			var want []modelCell
			for _, c := range l.Cells {
				if strings.TrimSpace(c.Text) == "" {
					continue
				}
				if c.Kind == Command && c.Note != "" {
					want = append(want, modelCell{Kind: Code, Lang: "python", Text: c.From.Source + "\n"})
				}
				if n := len(want); c.Kind == Markdown && n > 0 && want[n-1].Kind == Markdown {
					continue // markdown has no mark between two prose cells: they become one
				}
				want = append(want, modelCells(&Lesson{Cells: []Cell{c}})[0])
			}
			got := modelCells(back)
			for i := range got {
				if got[i].Kind == Markdown && i < len(want) && want[i].Kind == Markdown {
					// Attachments are inlined as data: images.
					got[i].Text = want[i].Text
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d cells, want %d:\n%s", len(got), len(want), md)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("cell %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// FuzzMarkdownThroughNotebook: any markdown lesson that parses without
// error reads back from its notebook as the same cells.
func FuzzMarkdownThroughNotebook(f *testing.F) {
	files, _ := filepath.Glob("../../lessons/*.md")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte("# T\n\n```cuda file=a.cu run flags=\"-lcuda\"\nint main(){}\n```\n\n```sh run\nnvcc a.cu\n./a\n```\n"))
	f.Add([]byte("---\njupyter:\n  jupytext:\n    x: 1\n  kernelspec:\n    language: python\n    name: python3\n---\n\n# J\n\n```python\nx = 1\n```\n\n```python\n%%writefile a.cu\nint main(){}\n```\n\n```python\n!nvcc a.cu\n```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if !IsText(src) {
			return // ParseFile refuses it: not a text lesson
		}
		l, err := Parse("f.md", src)
		if err != nil || len(l.Warnings) > 0 {
			return
		}
		out, err := NewNotebook(l, IpynbOptions{}).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseIpynb("f.ipynb", out)
		if err != nil {
			t.Fatalf("the notebook does not read back: %v", err)
		}
		got, want := modelCells(back), modelCells(l)
		if len(got) != len(want) {
			t.Fatalf("%d cells through a notebook, %d before:\n%s", len(got), len(want), out)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("cell %d read back as %+v, was %+v", i, got[i], want[i])
			}
		}
	})
}

// A ! command that goes on past a backslash is one command: IPython
// reads the next line as its own, without a !. Written back, the
// notebook keeps it so (it put a ! on the continuation, which IPython
// would run as a command of its own).
func TestBangContinuationRoundTrip(t *testing.T) {
	src := []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
 {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [],
  "source": ["# build\n", "!nvcc -o x \\\n", "    x.cu\n", "!./x"]}]}`)
	l, err := ParseIpynb("cont.ipynb", src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := NewNotebook(l, IpynbOptions{}).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := nbCells(t, out), nbCells(t, src); !reflect.DeepEqual(got, want) {
		t.Errorf("cells changed:\ngot  %q\nwant %q", got, want)
	}
	if got := BangSource("nvcc -o x \\\n  x.cu\n# done\n./x", strings.ToUpper); got != "!NVCC -O X \\\n  X.CU\n# done\n!./X" {
		t.Errorf("BangSource: %q", got)
	}
}

// A notebook of another kernel gets no setup cell of ! lines when
// exported: in Julia a ! line is a negation.
func TestNoShellSetupForOtherKernels(t *testing.T) {
	for file, want := range map[string]bool{"testdata/ipynb/julia-kernel.ipynb": false, "testdata/ipynb/colab-pinned.ipynb": true} {
		l, err := ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := NewNotebook(l, IpynbOptions{Setup: true}).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), `"generated": "setup"`); got != want {
			t.Errorf("%s: a setup cell %v, want %v", file, got, want)
		}
	}
}

// TestLaterNbformatWrittenBack: a notebook of a later nbformat 4 keeps
// its minor version when written anew, so that the cells of types
// lessons does not know read back, not refused.
func TestLaterNbformatWrittenBack(t *testing.T) {
	l, err := ParseFile("testdata/ipynb/future-cells.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	out, err := NewNotebook(l, IpynbOptions{}).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"nbformat_minor": 7`) || !strings.Contains(string(out), `"cell_type": "checklist"`) {
		t.Fatalf("written anew:\n%s", out)
	}
	back, err := ParseIpynb("back.ipynb", out)
	if err != nil || len(back.Cells) != len(l.Cells) {
		t.Fatalf("read back: %d cells of %d, %v", len(back.Cells), len(l.Cells), err)
	}
}
