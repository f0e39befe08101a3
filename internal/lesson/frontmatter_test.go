package lesson

import (
	"strings"
	"testing"
)

// nb is a notebook of markdown cells, each given as its source.
func nb(cells ...string) []byte {
	var b strings.Builder
	b.WriteString(`{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [`)
	for i, c := range cells {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"cell_type": "markdown", "metadata": {}, "source": ` + jsonString(c) + `}`)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func prose(l *Lesson) string {
	var b strings.Builder
	for _, c := range l.Cells {
		b.WriteString(c.Text)
	}
	return b.String()
}

// A markdown cell that opens with a --- rule keeps its prose: it was read
// as front matter, and everything up to the next --- line was lost.
func TestRuleIsNotFrontMatter(t *testing.T) {
	src := nb("# Day 5: streams", "---\n## Overlap\n\nCopies and kernels overlap on two streams.\n\n---\n\nMore prose.")
	l, err := ParseIpynb("day5.ipynb", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Overlap", "Copies and kernels overlap", "More prose"} {
		if !strings.Contains(prose(l), want) {
			t.Errorf("%q lost: %q", want, prose(l))
		}
	}
	if l.FrontMatter != nil || l.Title != "Day 5: streams" {
		t.Errorf("front matter %+v, title %q", l.FrontMatter, l.Title)
	}
}

// Only the first cell of a notebook may hold front matter, and only YAML.
func TestFrontMatterWhereItCanBe(t *testing.T) {
	cases := []struct {
		name   string
		src    []byte
		md     bool
		fm     bool
		title  string
		kept   []string
		hidden []string
	}{
		{name: "nbdev first cell", src: nb("---\ntitle: Pinned memory\ndescription: \"copies\"\n---", "Prose."), fm: true, title: "Pinned memory", kept: []string{"Prose."}, hidden: []string{"description"}},
		{name: "yaml in a later cell is prose", src: nb("# T", "---\ntitle: not front matter\n---\n"), title: "T", kept: []string{"title: not front matter"}},
		{name: "rule then prose in the first cell", src: nb("---\nThe intro, between rules.\n---\n# Heading"), title: "Heading", kept: []string{"The intro, between rules."}},
		{name: "markdown file", md: true, src: []byte("---\ntitle: Day 3\ntags:\n  - cuda\n- x\n# comment\n---\n\nProse.\n"), fm: true, title: "Day 3", kept: []string{"Prose."}, hidden: []string{"tags"}},
		{name: "markdown rule then prose", md: true, src: []byte("---\nA sentence: with a colon, but prose.\n---\n\n# Real\n"), title: "Real", kept: []string{"A sentence: with a colon"}},
		{name: "empty front matter is a rule pair", md: true, src: []byte("---\n---\n# H\n"), title: "H"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l *Lesson
			var err error
			if tc.md {
				l, err = Parse("x.md", tc.src)
			} else {
				l, err = ParseIpynb("x.ipynb", tc.src)
			}
			if err != nil {
				t.Fatal(err)
			}
			if (l.FrontMatter != nil) != tc.fm {
				t.Errorf("front matter %+v, want %v", l.FrontMatter, tc.fm)
			}
			if l.Title != tc.title {
				t.Errorf("title %q, want %q", l.Title, tc.title)
			}
			for _, k := range tc.kept {
				if !strings.Contains(prose(l), k) {
					t.Errorf("%q lost: %q", k, prose(l))
				}
			}
			for _, h := range tc.hidden {
				if strings.Contains(prose(l), h) {
					t.Errorf("%q shown as prose: %q", h, prose(l))
				}
				if l.FrontMatter == nil || !strings.Contains(l.FrontMatter.Text, h) {
					t.Errorf("%q not in the front matter kept for lint: %+v", h, l.FrontMatter)
				}
			}
		})
	}
}
