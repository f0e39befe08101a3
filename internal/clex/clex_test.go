package clex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

const cudaSnippet = `#include <cstdio>
#include "check.h" // errors
#define N (1 << 20)
/* a kernel */
__global__ void scale(float *x, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.5f;
}
int main() {
    float *d;
    cudaMalloc(&d, N * sizeof(float));
    scale<<<N / 256, 256>>>(d, N);
    printf("done\n%d", 0x1Fu);
    char c = '\'';
    return 0;
}
`

// want lists the tokens of cudaSnippet that matter, in order: each is
// looked for after the one before it.
func TestClexCUDA(t *testing.T) {
	toks := Tokens(cudaSnippet)
	want := []chroma.Token{
		{Type: chroma.CommentPreproc, Value: "#include"},
		{Type: chroma.CommentPreprocFile, Value: "<cstdio>"},
		{Type: chroma.CommentPreprocFile, Value: `"check.h"`},
		{Type: chroma.CommentSingle, Value: "// errors\n"},
		{Type: chroma.CommentPreproc, Value: "#define N (1 << 20)\n"},
		{Type: chroma.CommentMultiline, Value: "/* a kernel */"},
		{Type: chroma.KeywordReserved, Value: "__global__"},
		{Type: chroma.KeywordType, Value: "void"},
		{Type: chroma.NameFunction, Value: "scale"},
		{Type: chroma.Punctuation, Value: "("},
		{Type: chroma.KeywordType, Value: "float"},
		{Type: chroma.Operator, Value: "*"},
		{Type: chroma.Name, Value: "x"},
		{Type: chroma.KeywordReserved, Value: "__shared__"},
		{Type: chroma.LiteralNumberInteger, Value: "256"},
		{Type: chroma.NameBuiltin, Value: "blockIdx"},
		{Type: chroma.Keyword, Value: "if"},
		{Type: chroma.Operator, Value: "*="},
		{Type: chroma.LiteralNumberFloat, Value: "2.5f"},
		{Type: chroma.NameFunction, Value: "main"},
		{Type: chroma.Name, Value: "cudaMalloc"}, // a call, not a declaration
		{Type: chroma.Keyword, Value: "sizeof"},
		{Type: chroma.Name, Value: "scale"},
		{Type: chroma.Punctuation, Value: "<<<"},
		{Type: chroma.Punctuation, Value: ">>>("},
		{Type: chroma.LiteralString, Value: `"done`},
		{Type: chroma.LiteralStringEscape, Value: `\n`},
		{Type: chroma.LiteralString, Value: `%d"`},
		{Type: chroma.LiteralNumberHex, Value: "0x1Fu"},
		{Type: chroma.LiteralStringChar, Value: "'"},
		{Type: chroma.LiteralStringEscape, Value: `\'`},
		{Type: chroma.LiteralStringChar, Value: "'"},
		{Type: chroma.Keyword, Value: "return"},
	}
	i := 0
	for _, tok := range toks {
		if i < len(want) && tok == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("clex: no %v after %v in\n%v", want[i], want[max(i-1, 0)], toks)
	}
	checkJoin(t, cudaSnippet, toks)
}

func TestClexNumbers(t *testing.T) {
	for src, want := range map[string]chroma.TokenType{
		"42": chroma.LiteralNumberInteger, "42ull": chroma.LiteralNumberInteger,
		"1'000'000": chroma.LiteralNumberInteger, "0755": chroma.LiteralNumberOct,
		"0xFFul": chroma.LiteralNumberHex, "0b1010": chroma.LiteralNumberBin,
		"1.5": chroma.LiteralNumberFloat, ".5f": chroma.LiteralNumberFloat,
		"1e-9": chroma.LiteralNumberFloat, "3.0E+8L": chroma.LiteralNumberFloat,
		"0x1.8p3": chroma.LiteralNumberFloat, "1f": chroma.LiteralNumberFloat,
	} {
		toks := Tokens(src)
		if len(toks) != 1 || toks[0].Type != want || toks[0].Value != src {
			t.Errorf("clex(%q) = %v, want one %v", src, toks, want)
		}
	}
}

// An unterminated comment, string or raw string ends the text (a string
// at its line's end) and nothing is lost.
func TestClexUnterminated(t *testing.T) {
	for src, last := range map[string]chroma.TokenType{
		"int x; /* open":         chroma.CommentMultiline,
		"// last line":           chroma.CommentSingle,
		`s = "open`:              chroma.LiteralString,
		"s = \"open\nint y;":     chroma.Punctuation,
		`c = '\`:                 chroma.LiteralStringChar,
		`r = R"x(never closed`:   chroma.LiteralString,
		"#include <stdio.h":      chroma.CommentPreprocFile,
		"#define A \\\n  B":      chroma.CommentPreproc,
		"a<<<1,2>>>(); b >>= 1;": chroma.Punctuation,
		"x = y >>> 2":            chroma.LiteralNumberInteger,
		"s = u8\"\\u00e9\\xZZ\"": chroma.LiteralString,
	} {
		toks := Tokens(src)
		checkJoin(t, src, toks)
		if src == "a<<<1,2>>>(); b >>= 1;" {
			continue
		}
		if got := toks[len(toks)-1].Type; got != last {
			t.Errorf("clex(%q): last token %v, want %v: %v", src, got, last, toks)
		}
	}
}

func checkJoin(t *testing.T, src string, toks []chroma.Token) {
	t.Helper()
	var b strings.Builder
	for i, tok := range toks {
		if tok.Value == "" {
			t.Errorf("clex(%q): empty token %d (%v)", src, i, tok.Type)
		}
		if i > 0 && toks[i-1].Type == tok.Type {
			t.Errorf("clex(%q): tokens %d and %d both %v", src, i-1, i, tok.Type)
		}
		b.WriteString(tok.Value)
	}
	if b.String() != src {
		t.Errorf("clex(%q): tokens join to %q", src, b.String())
	}
}

// FuzzClex: whatever the bytes, the scanner ends, never panics, and its
// tokens join to the input exactly.
func FuzzClex(f *testing.F) {
	for _, s := range []string{cudaSnippet, "", "#", "/*", "'", `"\`, `R"(`, "0x", "1e", "<<<>>>", "#include \"a", "\\\n", "é\xff\x00", "0b2", "u8'a'", "a ? b : c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkJoin(t, src, Tokens(src))
	})
}

// Spans are the comments and literals Tokens sees, with the bodies of
// strings; a string in a directive is one, and a // in it no comment.
func TestSpans(t *testing.T) {
	src := "#define U \"http://x\" // c\nchar q = '\"'; /* a\nb */ auto s = u8R\"d(x\")d\" \"y\\\"z\n"
	var got []string
	for _, sp := range Spans(src) {
		s := fmt.Sprintf("%d:%s", sp.Kind, src[sp.Start:sp.End])
		if sp.Kind == String {
			s += "=" + src[sp.BodyStart:sp.BodyEnd]
		}
		got = append(got, s)
	}
	want := []string{`1:"http://x"=http://x`, "0:// c\n", `2:'"'`, "0:/* a\nb */", `1:"d(x")d"=x"`, `1:"y\"z=y\"z`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("spans\n%q\nwant\n%q", got, want)
	}
}

// FuzzSpans: the spans are in order, inside the text, a body inside its
// span.
func FuzzSpans(f *testing.F) {
	for _, s := range []string{cudaSnippet, "#define A \"a\" 'b'", `R"x(`, "'", `"\`, "/*", "// \\\n x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		at := 0
		for _, sp := range Spans(src) {
			if sp.Start < at || sp.End < sp.Start || sp.End > len(src) || sp.Kind == String && (sp.BodyStart < sp.Start || sp.BodyEnd < sp.BodyStart || sp.BodyEnd > sp.End) {
				t.Fatalf("span %+v after %d in %d bytes", sp, at, len(src))
			}
			at = sp.End
		}
	})
}
