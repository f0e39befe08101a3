package render

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
)

// TestMathAsCode: a notebook's LaTeX is shown as its source, never read
// as markdown (emphasis from its underscores, a backslash taken from
// its \\), and a dollar that opens no math is left alone.
func TestMathAsCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`spins $\sigma_i \sigma_j$ agree`, "spins `$\\sigma_i \\sigma_j$` agree"},
		{`display $$a_i = b_i$$ inline`, "display `$$a_i = b_i$$` inline"},
		{"It costs $5 and $10 now", "It costs $5 and $10 now"},
		{"echo $HOME and $PATH", "echo $HOME and $PATH"},
		{"a `$x_i$` code span", "a `$x_i$` code span"},
		{`an escaped \$x_i$ dollar`, `an escaped \$x_i$ dollar`},
		{"$$\n\\begin{align}\n\\dot{x} & = y\\\\\n\\end{align}\n$$", "`$$`  \n`\\begin{align}`  \n`\\dot{x} & = y\\\\`  \n`\\end{align}`  \n`$$`"},
		{"```python\nx = '$a_b$'\n```", "```python\nx = '$a_b$'\n```"},
		{"$$\nopen, never closed\n\nnext $a$", "$$\nopen, never closed\n\nnext `$a$`"},
		{"$`a`$", "``$`a`$``"},
	} {
		if got := mathAsCode(tc.in); got != tc.want {
			t.Errorf("mathAsCode(%q)\n= %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestNotebookMathVerbatim: the terminal and the site show an align's
// \\ and a subscript's _ as written (jupytext's Line_breaks_in_LateX
// notebook lost both).
func TestNotebookMathVerbatim(t *testing.T) {
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# Ising\n\nThe energy $H = -J \\sum \\sigma_i \\sigma_j$ and\n\n$$\n\\begin{align}\n\\dot{x} & = \\sigma(y-x)\\\\\n\\dot{y} & = x\n\\end{align}\n$$"}]}`
	l, err := lesson.ParseIpynb("ising.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plain := renderTerm(t, l, false)
	page := renderHTML(t, l)
	for _, want := range []string{`\sigma_i \sigma_j`, `\dot{x} & = \sigma(y-x)\\`} {
		if !strings.Contains(plain, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, plain)
		}
		if !strings.Contains(page, strings.ReplaceAll(want, "&", "&amp;")) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<em>i") {
		t.Error("the page reads a subscript as emphasis")
	}
}

// FuzzMathAsCode: no panic, and no word of the cell is lost.
func FuzzMathAsCode(f *testing.F) {
	for _, s := range []string{"$a_b$", "$$\nx\\\\\n$$", "`$`$x$", "$5 $x$ $", "\\$$a$$", "$$a$$$", "~~~\n$x$\n~~~\n$y$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		out := strings.ReplaceAll(mathAsCode(md), "`", "")
		for _, w := range strings.Fields(strings.ReplaceAll(md, "`", "")) {
			if !strings.Contains(out, w) {
				t.Fatalf("%q lost %q: %q", md, w, out)
			}
		}
	})
}
