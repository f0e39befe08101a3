package render

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
)

// TestGoldenIpynb renders the notebook fixtures of the lesson package for
// the terminal and the site: recorded outputs marked as recorded, images
// named in the terminal and shown in the page, notes on mixed cells.
func TestGoldenIpynb(t *testing.T) {
	files, _ := filepath.Glob("../lesson/testdata/ipynb/*.ipynb")
	if len(files) == 0 {
		t.Fatal("no notebook fixtures")
	}
	for _, file := range files {
		name := "ipynb-" + strings.TrimSuffix(filepath.Base(file), ".ipynb")
		t.Run(name, func(t *testing.T) {
			l, err := lesson.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			plain := renderTerm(t, l, false)
			golden(t, name+".plain.golden", plain)
			page := renderHTML(t, l)
			golden(t, name+".html.golden", page)
			var wantTerm, wantPage []string
			if src, _ := os.ReadFile(file); strings.Contains(string(src), "data:image/png") {
				wantTerm = append(wantTerm, "[image/png, 72 bytes")
				wantPage = append(wantPage, `<img src="data:image/png;base64,iVBOR`)
			}
			if strings.Contains(name, "colab") {
				wantTerm = append(wantTerm, "recorded output:", "recorded result:", "recorded error (ModuleNotFoundError):", "[5] python\n  │ !./pinned\n  │ import time", "  │ # build and run\n  │ !nvcc")
				wantPage = append(wantPage, `class="output recorded`, `<img alt="recorded image/png" src="data:image/png;base64,iVBOR`)
			}
			if strings.Contains(name, "future") {
				// a later nbformat's cells and outputs, said, the one
				// with no source too
				wantTerm = append(wantTerm, `(a "checklist" cell of nbformat 4.7`, `(a "slide break" cell of nbformat 4.7`, `(an output of type "timeline"`)
				wantPage = append(wantPage, `a &#34;slide break&#34; cell of nbformat 4.7`, `an output of type &#34;timeline&#34;`)
			}
			for _, want := range wantTerm {
				if !strings.Contains(plain, want) {
					t.Errorf("the terminal rendering lacks %q", want)
				}
			}
			for _, want := range wantPage {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(plain, "base64,") {
				t.Error("the terminal rendering prints base64")
			}
		})
	}
}

// notebook100 is a notebook of 100 cells in the shapes of a CUDA course:
// prose, a diagram now and then, %%writefile cells of 30 lines, ! build
// cells with recorded output.
func notebook100() []byte {
	var cells []string
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	prog := "#include <cstdio>\n" + strings.Repeat("__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n", 28) + "int main() { printf(\"ok\\n\"); }\n"
	for i := 0; len(cells) < 100; i++ {
		md := fmt.Sprintf("## Step %d\n\nA paragraph with **bold**, `code` and a [link](https://example.com) about step %d.\n\n- one\n- two\n", i, i)
		if i%5 == 0 {
			md += "\n```mermaid\ngraph LR\n  A[host] --> B[device]\n  B --> C[result]\n```\n"
		}
		cells = append(cells,
			fmt.Sprintf(`{"cell_type": "markdown", "metadata": {}, "source": %s}`, q(md)),
			fmt.Sprintf(`{"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [{"output_type": "stream", "name": "stdout", "text": "Writing k%d.cu\n"}], "source": %s}`, i, q(fmt.Sprintf("%%%%writefile k%d.cu\n", i)+prog)),
			fmt.Sprintf(`{"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [{"output_type": "stream", "name": "stdout", "text": "ok\n"}], "source": %s}`, q(fmt.Sprintf("!nvcc k%d.cu -o k%d && ./k%d", i, i, i))),
			fmt.Sprintf(`{"cell_type": "code", "metadata": {}, "execution_count": 3, "outputs": [{"output_type": "execute_result", "data": {"text/plain": "2.5"}, "metadata": {}}], "source": "x = %d\nx / 4"}`, i),
		)
	}
	return []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [` + strings.Join(cells[:100], ",\n") + "]}")
}

// BenchmarkIpynb100 reads a 100-cell notebook (read), and reads and
// renders it: for a terminal, as lessons show does (term), and as a page
// of the site (html).
func BenchmarkIpynb100(b *testing.B) {
	src := notebook100()
	term, err := NewTerm(TermOptions{Width: 100, Color: true})
	if err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B) *lesson.Lesson {
		l, err := lesson.ParseIpynb("bench.ipynb", src)
		if err != nil || len(l.Cells) < 100 {
			b.Fatal(err)
		}
		return l
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			read(b)
		}
	})
	b.Run("term", func(b *testing.B) {
		for b.Loop() {
			if err := term.Render(io.Discard, read(b)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("html", func(b *testing.B) {
		for b.Loop() {
			if err := PageHTML(io.Discard, read(b)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestIpynbProseAndLongOutput: a notebook's paragraph of one long line
// is wrapped at the measure, as a markdown lesson's is, and a recorded
// output of thousands of lines is shown by its start and end, with how
// many lines are left out.
func TestIpynbProseAndLongOutput(t *testing.T) {
	long := strings.Repeat("Threads of a warp run in lockstep, ", 12)
	var out strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&out, "line %d\n", i)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
{"cell_type": "markdown", "metadata": {}, "source": ` + q("# Warps\n\n"+long+"\n") + `},
{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "for i in range(5000): print('line', i)", "outputs": [{"output_type": "stream", "name": "stdout", "text": ` + q(out.String()) + `}]}]}`
	l, err := lesson.ParseIpynb("warps.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plain := renderTerm(t, l, false)
	for _, line := range strings.Split(plain, "\n") {
		if len([]rune(line)) > 82 && !strings.Contains(line, "│") {
			t.Errorf("a line of %d columns: %q", len([]rune(line)), line)
		}
	}
	for _, want := range []string{"┆ line 0\n", "┆ line 49\n", "… 4940 lines more", "┆ line 4999\n"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the terminal rendering lacks %q", want)
		}
	}
	if strings.Contains(plain, "line 50\n") || strings.Count(plain, "\n") > 100 {
		t.Errorf("the output is not cut:\n%s", plain)
	}
}

// TestLongCodeLineIsCut: a cell that carries a data literal of
// thousands of characters on one line (NVIDIA's Colab setup cell embeds
// a base64 archive) shows its start and says how long the line is,
// instead of screens of base64.
func TestLongCodeLineIsCut(t *testing.T) {
	blob := strings.Repeat("QUJD", 2000)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ` + q("ARCHIVE = \""+blob+"\"\nprint(len(ARCHIVE))") + `}]}`
	l, err := lesson.ParseIpynb("setup.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plain := renderTerm(t, l, false)
	if n := strings.Count(plain, "\n"); n > 15 || !strings.Contains(plain, "… a line of 8012 characters, cut here (the cell has it whole)") || !strings.Contains(plain, "│ print(len(ARCHIVE))") {
		t.Errorf("%d lines:\n%s", n, plain)
	}
}

// A recorded output is capped by bytes as well as lines: one line of 12
// MB (a printed array) was shown whole, and 59 lines of 900 bytes fit
// the 60-line cap.
func TestLongOutputCappedByBytes(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	huge := strings.Repeat("0.125, ", 12<<20/7)
	var wide strings.Builder
	for i := range 59 {
		fmt.Fprintf(&wide, "row %02d %s\n", i, strings.Repeat("x", 900))
	}
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "print(a)", "outputs": [{"output_type": "stream", "name": "stdout", "text": ` + q("start\n"+huge+"\nend\n") + `}]},
{"cell_type": "code", "metadata": {}, "execution_count": 2, "source": "print(b)", "outputs": [{"output_type": "stream", "name": "stdout", "text": ` + q(wide.String()) + `}]}]}`
	l, err := lesson.ParseIpynb("big.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plain := renderTerm(t, l, false)
	if len(plain) > 2*(maxOutputBytes+4<<10) {
		t.Errorf("%d bytes shown", len(plain))
	}
	for _, want := range []string{"┆ start\n", "MB more on this line", "┆ end\n", "┆ row 00 ", "┆ row 58 ", "lines more, "} {
		if !strings.Contains(plain, want) {
			t.Errorf("the terminal rendering lacks %q", want)
		}
	}
}

// A notebook's raw HTML is drawn in the site as its text, escaped: a
// <details><summary>Hints</summary> was left out whole ("raw HTML
// omitted"), and a script or an attribute never reaches the page.
func TestRawHTMLAsText(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	md := "Try first.\n\n<details>\n  <summary>Hints</summary>\n\n  - look at the <b>heterogeneous</b> model\n</details>\n\n<script>alert(1)</script>\n\n<img src=x onerror=\"alert(2)\">Inline <span style=\"color:red\">red</span> &amp; more."
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "metadata": {}, "source": ` + q(md) + `}]}`
	l, err := lesson.ParseIpynb("h.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := PageHTML(&b, l); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"Hints", "heterogeneous", "Inline", "red", "&amp; more"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	for _, bad := range []string{"<script", "alert", "onerror", "<span", "style=", "raw HTML omitted"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q:\n%s", bad, page)
		}
	}
	ml, _ := lesson.Parse("h.md", []byte("# T\n\n"+md+"\n"))
	b.Reset()
	if err := PageHTML(&b, ml); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Hints") || strings.Contains(b.String(), "<script") {
		t.Errorf("a markdown lesson's page:\n%s", b.String())
	}
}
