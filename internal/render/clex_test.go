package render

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// The lexer goes through chroma's formatters like chroma's own: what
// lexer() picks for CUDA is this one.
func TestLexerPicksClex(t *testing.T) {
	for _, lang := range []string{"c", "cpp", "C++", "cuda", "cu", "h", "cuh"} {
		if _, ok := lexer(lang).(cLexer); !ok {
			t.Errorf("lexer(%q) = %T, want cLexer", lang, lexer(lang))
		}
	}
	if _, ok := lexer("python").(cLexer); ok {
		t.Error("lexer(python) is the C scanner")
	}
	it, err := lexer("cuda").Tokenise(nil, "int x;")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		b.WriteString(tok.Value)
	}
	if b.String() != "int x;" {
		t.Errorf("tokens joined = %q", b.String())
	}
}
