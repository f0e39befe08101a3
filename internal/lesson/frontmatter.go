package lesson

import (
	"bytes"
	"regexp"
	"strings"
)

// A markdown lesson may open with YAML front matter between --- lines,
// as Jekyll, Hugo and mdBook pages do; jupytext's markdown notebooks keep
// the notebook's kernelspec there. It is not prose: goldmark would read
// its closing --- as a setext heading and show the YAML as one.

// Front matter is read only where a document can have it: the first
// line of a markdown lesson, or the first cell of a notebook (nbdev's
// and Quarto's). Elsewhere a --- line is a rule, and what follows it is
// prose: a notebook's markdown cell that opens with a rule kept nothing
// up to the next one (60 cells in 37 of 74 real course notebooks).
// Even there, what lies between the --- lines must read as YAML (keys,
// comments, lists, indented lines): prose between two rules stays prose.

// frontMatter finds YAML front matter at the start of src and returns
// where it ends (after its closing line), or 0 when there is none.
func frontMatter(src []byte) int {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return 0
	}
	off := bytes.IndexByte(src, '\n') + 1
	keys := 0
	for off < len(src) {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(string(src[off:next]), "\r\n")
		if line == "---" || line == "..." {
			if keys == 0 {
				return 0
			}
			return next
		}
		switch {
		case yamlKeyRE.MatchString(line):
			keys++
		case strings.TrimSpace(line) == "", yamlMoreRE.MatchString(line):
		default:
			return 0 // prose after a rule, not YAML
		}
		if off == next {
			break
		}
		off = next
	}
	return 0
}

var (
	// yamlKeyRE is a top-level YAML key (title: Day 3, jupytext:).
	yamlKeyRE = regexp.MustCompile(`^["']?[A-Za-z0-9_][\w.-]*["']?:(\s|$)`)
	// yamlMoreRE is any other line of YAML front matter: an indented
	// line, a list item, a comment, a block scalar's text.
	yamlMoreRE = regexp.MustCompile(`^(\s+\S|- |-$|#)`)
)

// FrontMatter is YAML front matter a lesson opens with, which it does
// not show: lint names it, so that no text is left out in silence.
type FrontMatter struct {
	// Line is where it starts in the lesson's file; Text is the YAML
	// between its --- lines.
	Line int
	Text string
}

// frontMatterTitle is the title: of front matter, "" when it has none.
func frontMatterTitle(fm string) string {
	m := fmTitleRE.FindStringSubmatch(fm)
	if m == nil {
		return ""
	}
	return strings.Trim(strings.TrimSpace(m[1]), `"'`)
}

var fmTitleRE = regexp.MustCompile(`(?m)^title:[ \t]*(\S.*)$`)

// inner is front matter's YAML without its --- lines.
func inner(fm string) string {
	_, rest, _ := strings.Cut(fm, "\n")
	rest = strings.TrimRight(rest, "\r\n")
	if i := strings.LastIndexByte(rest, '\n'); i >= 0 {
		return rest[:i+1]
	}
	return ""
}

// blankFrontMatter is src with its front matter made blank lines (each
// line kept, so that every line number stays true), and the front
// matter's text.
func blankFrontMatter(src []byte) ([]byte, string) {
	n := frontMatter(src)
	if n == 0 {
		return src, ""
	}
	out := bytes.Clone(src)
	for i := range n {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out, string(src[:n])
}

var (
	jupytextRE   = regexp.MustCompile(`(?m)^\s*jupytext:`)
	kernelNameRE = regexp.MustCompile(`(?m)^\s+kernelspec:\s*\n(?:\s+\S.*\n)*?\s+name:\s*['"]?([^\s'"]+)`)
	kernelLangRE = regexp.MustCompile(`(?m)^\s+kernelspec:\s*\n(?:\s+\S.*\n)*?\s+language:\s*['"]?([^\s'"]+)`)
)

// jupytextKernel reads a jupytext markdown notebook's front matter: its
// kernelspec's name and language ("python" when it says none); ok is
// false for front matter that is not jupytext's.
func jupytextKernel(fm string) (name, lang string, ok bool) {
	if !jupytextRE.MatchString(fm) {
		return "", "", false
	}
	lang = "python"
	if m := kernelNameRE.FindStringSubmatch(fm); m != nil {
		name = m[1]
	}
	if m := kernelLangRE.FindStringSubmatch(fm); m != nil {
		lang = strings.ToLower(m[1])
	}
	return name, lang, true
}
