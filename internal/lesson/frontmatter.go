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

// frontMatter finds YAML front matter at the start of src and returns
// where it ends (after its closing line), or 0 when there is none.
func frontMatter(src []byte) int {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return 0
	}
	off := bytes.IndexByte(src, '\n') + 1
	for off < len(src) {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(string(src[off:next]), "\r\n")
		if line == "---" || line == "..." {
			return next
		}
		if off == next {
			break
		}
		off = next
	}
	return 0
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
