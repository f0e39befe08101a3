package render

import (
	"github.com/alecthomas/chroma/v2"

	"github.com/cudalessons/lessons/internal/clex"
)

// cLexer highlights C, C++ and CUDA with clex's one-pass scanner, in
// place of chroma's regexp lexer for them.
type cLexer struct{}

var cLexerConfig = &chroma.Config{
	Name:    "CUDA",
	Aliases: []string{"c", "cpp", "c++", "cuda", "cu", "h", "cuh"},
}

func (cLexer) Config() *chroma.Config { return cLexerConfig }

func (cLexer) Tokenise(_ *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return chroma.Literator(clex.Tokens(text)...), nil
}

func (l cLexer) SetRegistry(*chroma.LexerRegistry) chroma.Lexer     { return l }
func (l cLexer) SetAnalyser(func(text string) float32) chroma.Lexer { return l }
func (cLexer) AnalyseText(string) float32                           { return 0 }
