package author

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
)

// TestPortability: lint names what of a Colab notebook runs only on
// Colab (an unguarded google.colab import, a /content path), and the
// cells of another kernel that lessons does not run; a guarded import
// and a %%writefile's own text are left alone.
func TestPortability(t *testing.T) {
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "try:\n    import google.colab\nexcept ImportError:\n    pass"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "from google.colab import drive\ndrive.mount('/content/drive')"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%writefile k.cu\n// reads /content/input.txt\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "!./k /content/input.txt 3.8"}]}`
	l, err := lesson.ParseIpynb("lab.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range portability("lessons/day001-lab.ipynb", l) {
		got = append(got, e.Error())
	}
	want := []string{
		"lessons/day001-lab.ipynb:3: cell [2] imports google.colab, which only Colab has: it fails under lessons run and in Jupyter elsewhere\n\tguard it (try: import google.colab ... except ImportError), or leave it out",
		"lessons/day001-lab.ipynb:5: cell [4] names /content/input.txt, a folder only Colab has\n\tname the file relative to the notebook's folder (lessons runs a lesson in its workspace)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	jl, err := lesson.ParseFile("../lesson/testdata/ipynb/julia-kernel.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if es := portability("j.ipynb", jl); len(es) != 1 || !strings.Contains(es[0].Error(), "j.ipynb:22: 2 code cells are not run by lessons (a julia cell)") {
		t.Errorf("a Julia notebook: %v", es)
	}

	c := &course.Course{Lessons: []*course.Entry{{Day: 9, Slug: "reduction", File: "lessons/day009-reduction.ipynb"}, {Day: 11, Slug: "reduction", File: "lessons/day011-reduction.ipynb"}}}
	if es := sameSlugs(c); len(es) != 1 || !strings.Contains(es[0].Error(), "lessons day009-reduction and day011-reduction have one slug, reduction") {
		t.Errorf("one slug twice: %v", es)
	}
}

// TestUnkept: lint names front matter, which nothing shows, with its keys.
func TestUnkept(t *testing.T) {
	l, err := lesson.Parse("day003-pinned.md", []byte("---\ntitle: Pinned\nlayout: lesson\n---\n\n# Pinned\n"))
	if err != nil {
		t.Fatal(err)
	}
	es := unkept("lessons/day003-pinned.md", l)
	if len(es) != 1 || !strings.Contains(es[0].Error(), "lessons/day003-pinned.md:1: its front matter (2 lines: title, layout) is not shown") {
		t.Fatalf("got %v", es)
	}
	l, _ = lesson.Parse("day004.md", []byte("---\nProse between rules.\n---\n"))
	if es := unkept("day004.md", l); len(es) != 0 {
		t.Fatalf("a rule warned of: %v", es)
	}
}
