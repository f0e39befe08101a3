package lesson

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

func TestLimits(t *testing.T) {
	deepIndent := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(strings.Repeat("  ", i) + "- x\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"97 KB of >", "# T\n\n" + strings.Repeat(">", 97000), "lesson.md:3: block quotes and lists nest 97000 deep, over the limit of 16"},
		{"> with spaces", "# T\n" + strings.Repeat("> ", 17) + "x\n", "lesson.md:2: block quotes and lists nest 17 deep"},
		{"list markers", "# T\n" + strings.Repeat("- ", 17) + "x\n", "lesson.md:2: block quotes and lists nest 17 deep"},
		{"ordered markers", "# T\n" + strings.Repeat("1. ", 17) + "x\n", "nest 17 deep"},
		{"quotes and lists", "# T\n" + strings.Repeat("> * ", 9) + "x\n", "nest 18 deep"},
		{"lists by indentation", "# T\n" + deepIndent(40), "lesson.md:18: block quotes and lists nest 17 deep"},
		{"a false fence hides nothing", "# T\n```a`b\n" + strings.Repeat(">", 20) + "\n```\n", "lesson.md:3: block quotes and lists nest 20 deep"},
		{"size", "# T\n" + strings.Repeat("x", MaxBytes), "lesson.md:1: the lesson is 1048580 bytes, over the limit of 1048576"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse("lesson.md", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if l == nil || l.Doc == nil {
				t.Errorf("no lesson returned with the error")
			}
		})
	}
	for _, tc := range []struct{ name, src string }{
		{"16 deep", "# T\n" + strings.Repeat("> ", 16) + "x\n"},
		{"in a fence", "# T\n```text\n" + strings.Repeat(">", 200) + "\n" + strings.Repeat("- ", 100) + "\n```\n"},
		{"in a tilde fence", "# T\n~~~\n" + strings.Repeat(">", 200) + "\n~~~\n"},
		{"shifts in code", "# T\n```cuda\n  x >>= 1; y = a >> b >> c >> d >> e >> f >> g >> h >> i >> j;\n```\n"},
		{"lists 8 deep", "# T\n" + deepIndent(8)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse("lesson.md", []byte(tc.src)); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// The course's own lessons are far inside the limits.
func TestCourseLessonsWithinLimits(t *testing.T) {
	files, _ := filepath.Glob("../../lessons/*.md")
	for _, f := range files {
		src, _ := os.ReadFile(f)
		if err := checkMarkdown(f, src); err != nil {
			t.Error(err)
		}
	}
}

func TestIpynbLimits(t *testing.T) {
	nb := `{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# T\n", "` + strings.Repeat(">", 40) + `"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	if _, err := ParseIpynb("n.ipynb", []byte(nb)); err == nil || !strings.Contains(err.Error(), "n.ipynb:1: block quotes and lists nest 40 deep in cell 1 (its line 2)") {
		t.Errorf("deep markdown cell: %v", err)
	}
	big := []byte(`{"cells": [], "x": "` + strings.Repeat("x", MaxIpynbBytes) + `"}`)
	if _, err := ParseIpynb("n.ipynb", big); err == nil || !strings.Contains(err.Error(), "over the limit of 16777216") || !strings.Contains(err.Error(), "jupyter nbconvert --clear-output --inplace n.ipynb") {
		t.Errorf("a notebook over the size: %v", err)
	}
}

// containerDepth is how deep block quotes and lists nest in goldmark's
// tree of n.
func containerDepth(n ast.Node) int {
	most := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		most = max(most, containerDepth(c))
	}
	switch n.Kind() {
	case ast.KindBlockquote, ast.KindList:
		most++
	}
	return most
}

// FuzzNesting: what the limit lets through, goldmark never nests deeper
// than the limit (so its time stays bounded), and the count never
// panics.
func FuzzNesting(f *testing.F) {
	f.Add([]byte("> > - x\n"))
	f.Add([]byte("- a\n  - b\n    - c\n"))
	f.Add([]byte("```\n>>>>\n```\n"))
	f.Add([]byte("1. > 2) * x\n\t- y\n"))
	f.Add([]byte("```a`b\n>>>\n```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		line, _ := tooDeep(src)
		if line > 0 {
			if n := bytes.Count(src, []byte{'\n'}) + 1; line > n {
				t.Fatalf("line %d of %d", line, n)
			}
			return
		}
		if d := containerDepth(md.Parser().Parse(text.NewReader(src))); d > 2*MaxNesting {
			t.Errorf("let through %q, which nests %d deep", src, d)
		}
	})
}
