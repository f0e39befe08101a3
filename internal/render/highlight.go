// Package render draws a parsed lesson: in a terminal (glamour for prose,
// chroma for code, box drawing for diagrams) and as a static HTML site
// (goldmark's HTML renderer over the same AST, with cells, highlighting and
// SVG diagrams of this package).
package render

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// lexer picks a chroma lexer for a cell's language. C, C++ and CUDA (which
// has no lexer in chroma) get this package's scanner, many times faster
// than chroma's regexp lexer for them; the rest get chroma's.
func lexer(lang string) chroma.Lexer {
	switch strings.ToLower(lang) {
	case "c", "cpp", "c++", "cuda", "cu", "h", "cuh", "hpp", "cc", "cxx":
		return cLexer{}
	case "":
		lang = "text"
	}
	l := lexers.Get(lang)
	if l == nil {
		l = lexers.Fallback
	}
	return chroma.Coalesce(l)
}
