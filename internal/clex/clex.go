// Package clex splits C, C++ and CUDA source in one pass: into chroma's
// tokens, for the terminal's and the site's highlighting (chroma's own
// C++ lexer runs at about 0.2 MB/s: lexing a notebook's CUDA cells was
// 80% of rendering it), and into its comments and literals, for the
// suspect scanner's view of the code.
package clex

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

var cWords = func() map[string]chroma.TokenType {
	m := map[string]chroma.TokenType{}
	add := func(t chroma.TokenType, words string) {
		for _, w := range strings.Fields(words) {
			m[w] = t
		}
	}
	add(chroma.Keyword, `reinterpret_cast static_assert thread_local dynamic_cast
		static_cast const_cast co_return protected namespace consteval constexpr
		typename co_await co_yield operator restrict explicit template override
		noexcept requires decltype alignof private alignas virtual mutable nullptr
		concept export friend typeid throws public delete final throw catch using
		this new try class struct enum union
		restricted volatile continue register default typedef extern switch sizeof
		static return while const break goto else case auto for asm if do
		_Static_assert _Alignas _Alignof _Atomic _Thread_local _Noreturn`)
	add(chroma.KeywordType, `bool int long float short double char char8_t
		char16_t char32_t wchar_t unsigned signed void size_t ssize_t ptrdiff_t
		intptr_t uintptr_t _Bool dim3 half __half __nv_bfloat16
		cudaError_t cudaStream_t cudaEvent_t cudaMemPool_t cudaGraph_t
		cudaGraphExec_t cudaDeviceProp cudaMemPoolProps CUresult CUdevice
		CUcontext CUdeviceptr CUstream CUmemGenericAllocationHandle`)
	for _, base := range []string{"int", "uint"} {
		for _, kind := range []string{"", "_fast", "_least"} {
			for _, bits := range []string{"8", "16", "32", "64"} {
				m[base+kind+bits+"_t"] = chroma.KeywordType
			}
		}
	}
	// CUDA's vector types: float4, uchar2, longlong1, ...
	for _, base := range strings.Fields(`char uchar short ushort int uint long
		ulong longlong ulonglong float double`) {
		for _, n := range []string{"1", "2", "3", "4"} {
			m[base+n] = chroma.KeywordType
		}
	}
	add(chroma.KeywordReserved, `__inline _inline inline thread naked
		__m128i __m128d __m128 __m64 __forceinline __declspec __restrict
		__global__ __device__ __host__ __shared__ __constant__ __managed__
		__restrict__ __forceinline__ __noinline__ __launch_bounds__ __grid_constant__`)
	add(chroma.NameBuiltin, `true false NULL
		threadIdx blockIdx blockDim gridDim warpSize`)
	return m
}()

// Tokens splits C, C++ or CUDA source into chroma's tokens, of the types
// chroma's C++ lexer gives (so that its formatters and styles colour them
// the same way), plus CUDA's qualifiers, built-in variables and the <<<
// >>> of a kernel launch. The tokens' values, joined, are the text
// exactly: nothing is dropped or reordered, and a comment or string left
// open ends where the text (or, for a string, its line) does.
func Tokens(text string) []chroma.Token {
	s := &cScanner{text: text, toks: make([]chroma.Token, 0, len(text)/3+1)}
	s.run()
	return s.toks
}

// Kind is what a Span is.
type Kind int

const (
	Comment Kind = iota
	String       // a string literal, raw or not; its prefix (L, u8R) is code before it
	Char         // a character literal
)

// Span is a comment or a literal of a source, as byte offsets: the text
// between two spans is code (a preprocessor directive's too).
type Span struct {
	Kind       Kind
	Start, End int
	// Body is what lies between a string's quotes (a raw string's
	// delimiters), to the end of its line when it is not closed.
	BodyStart, BodyEnd int
}

// Spans are the comments and literals of C, C++ or CUDA source, in order,
// as Tokens reads them; a string in a preprocessor directive is one too
// (#define KEY "LESSONS_" "STATS"), though it is coloured as the directive.
func Spans(text string) []Span {
	s := &cScanner{text: text, spans: []Span{}}
	s.run()
	return s.spans
}

type cScanner struct {
	text      string
	pos       int
	toks      []chroma.Token
	depth     int  // braces open: a name followed by '(' at depth 0 is a function's declaration
	afterWord bool // the last token that was not blank or a comment was a word, '*', '&' or '>'
	className bool // the next name follows class, struct, union or enum
	launches  int  // <<< open without their >>>
	// force, when set, is the type of every token emitted (a string in a
	// directive is coloured as the directive).
	force chroma.TokenType
	// spans, when not nil, records the comments and literals (Spans).
	spans []Span
}

func (s *cScanner) span(k Kind, start, bodyStart, bodyEnd int) {
	if s.spans != nil {
		s.spans = append(s.spans, Span{Kind: k, Start: start, End: s.pos, BodyStart: bodyStart, BodyEnd: bodyEnd})
	}
}

func (s *cScanner) emit(t chroma.TokenType, end int) {
	v := s.text[s.pos:end]
	s.pos = end
	if v == "" || s.spans != nil {
		return
	}
	if s.force != 0 {
		t = s.force
	}
	if n := len(s.toks); n > 0 && s.toks[n-1].Type == t {
		// one token per run, as chroma.Coalesce would make it
		s.toks[n-1].Value = s.text[end-len(v)-len(s.toks[n-1].Value) : end]
		return
	}
	s.toks = append(s.toks, chroma.Token{Type: t, Value: v})
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *cScanner) at(i int) byte {
	if i < len(s.text) {
		return s.text[i]
	}
	return 0
}

func (s *cScanner) run() {
	lineStart := true // only blanks (or nothing) since the last newline
	for s.pos < len(s.text) {
		c := s.text[s.pos]
		switch {
		case c == '\n':
			s.emit(chroma.Text, s.pos+1)
			lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			end := s.pos + 1
			for end < len(s.text) && strings.IndexByte(" \t\r\f\v", s.text[end]) >= 0 {
				end++
			}
			s.emit(chroma.Text, end)
			continue
		case c == '\\' && s.at(s.pos+1) == '\n':
			s.emit(chroma.Text, s.pos+2)
			continue
		case c == '/' && s.at(s.pos+1) == '/':
			s.lineComment(chroma.CommentSingle)
			lineStart = true
			continue
		case c == '/' && s.at(s.pos+1) == '*':
			s.blockComment()
			continue
		case c == '#' && lineStart:
			s.preprocessor()
			lineStart = true
			continue
		}
		lineStart = false
		switch {
		case isIdentStart(c):
			s.word()
		case isDigit(c) || c == '.' && isDigit(s.at(s.pos+1)):
			s.number()
			s.afterWord = false
		case c == '"':
			s.str()
		case c == '\'':
			s.char()
		case c == '{':
			s.depth++
			s.punct(chroma.Punctuation, s.pos+1)
		case c == '}':
			if s.depth > 0 {
				s.depth--
			}
			s.punct(chroma.Punctuation, s.pos+1)
		case strings.IndexByte("()[],.;", c) >= 0:
			s.punct(chroma.Punctuation, s.pos+1)
		case strings.HasPrefix(s.text[s.pos:], "<<<"):
			s.launches++
			s.punct(chroma.Punctuation, s.pos+3)
		case s.launches > 0 && strings.HasPrefix(s.text[s.pos:], ">>>"):
			s.launches--
			s.punct(chroma.Punctuation, s.pos+3)
		default:
			// operators, and any other byte, one at a time so that
			// <<< and >>> are seen where they start
			s.afterWord = c == '*' || c == '&' || c == '>'
			s.className = false
			s.emit(chroma.Operator, s.pos+1)
		}
	}
}

func (s *cScanner) punct(t chroma.TokenType, end int) {
	s.afterWord = false
	s.className = false
	s.emit(t, end)
}

// lineComment runs to the end of the line, newline included (as chroma's
// lexer has it), and on past a backslash-newline.
func (s *cScanner) lineComment(t chroma.TokenType) {
	start, end := s.pos, s.pos
	for {
		i := strings.IndexByte(s.text[end:], '\n')
		if i < 0 {
			end = len(s.text)
			break
		}
		end += i + 1
		if i == 0 || s.text[end-2] != '\\' {
			break
		}
	}
	s.emit(t, end)
	s.span(Comment, start, start, end)
}

func (s *cScanner) blockComment() {
	start, end := s.pos, len(s.text)
	if i := strings.Index(s.text[s.pos+2:], "*/"); i >= 0 {
		end = s.pos + 2 + i + 2
	}
	s.emit(chroma.CommentMultiline, end)
	s.span(Comment, start, start, end)
}

// preprocessor reads a directive to the end of its line (past
// backslash-newlines), its newline included; an #include's file name is
// CommentPreprocFile and comments in the line are comments.
func (s *cScanner) preprocessor() {
	s.afterWord, s.className = false, false
	end := s.pos + 1
	for end < len(s.text) && (s.text[end] == ' ' || s.text[end] == '\t') {
		end++
	}
	name := end
	for end < len(s.text) && isIdent(s.text[end]) {
		end++
	}
	directive := s.text[name:end]
	s.emit(chroma.CommentPreproc, end)
	if directive == "include" || directive == "include_next" || directive == "import" {
		for end < len(s.text) && (s.text[end] == ' ' || s.text[end] == '\t') {
			end++
		}
		s.emit(chroma.Text, end)
		if c := s.at(end); c == '<' || c == '"' {
			close := byte('>')
			if c == '"' {
				close = '"'
			}
			for end++; end < len(s.text) && s.text[end] != close && s.text[end] != '\n'; end++ {
			}
			if end < len(s.text) && s.text[end] == close {
				end++
			}
			s.emit(chroma.CommentPreprocFile, end)
		}
	}
	for s.pos < len(s.text) {
		c := s.text[s.pos]
		switch {
		case c == '/' && s.at(s.pos+1) == '/':
			s.lineComment(chroma.CommentSingle)
			return
		case c == '/' && s.at(s.pos+1) == '*':
			s.blockComment()
		case c == '\n':
			s.emit(chroma.CommentPreproc, s.pos+1)
			if s.pos >= 2 && s.text[s.pos-2] == '\\' {
				continue
			}
			return
		case c == '"' || c == '\'':
			// a literal in a directive: a // in it opens no comment
			s.force = chroma.CommentPreproc
			if c == '"' {
				s.str()
			} else {
				s.char()
			}
			s.force = 0
		default:
			end := s.pos + 1
			for end < len(s.text) && strings.IndexByte("\n/\"'", s.text[end]) < 0 {
				end++
			}
			s.emit(chroma.CommentPreproc, end)
		}
	}
}

func (s *cScanner) word() {
	end := s.pos + 1
	for end < len(s.text) && isIdent(s.text[end]) {
		end++
	}
	w := s.text[s.pos:end]
	// a string or char with a prefix: L"", u8"", R"(...)"
	if q := s.at(end); q == '"' || q == '\'' {
		switch w {
		case "L", "u", "U", "u8":
			s.emit(chroma.LiteralStringAffix, end)
			if q == '"' {
				s.str()
			} else {
				s.char()
			}
			return
		case "R", "LR", "uR", "UR", "u8R":
			if q == '"' && s.raw(end) {
				return
			}
		}
	}
	t, ok := cWords[w]
	switch {
	case ok:
	case s.className:
		t = chroma.NameClass
	case s.depth == 0 && s.afterWord && s.definition(end):
		t = chroma.NameFunction
	default:
		t = chroma.Name
	}
	s.className = w == "class" || w == "struct" || w == "union" || w == "enum"
	s.afterWord = true
	s.emit(t, end)
}

// definition says whether the name ending at i is a function's: a
// parenthesis follows, and after it a '{' comes before any ';' (as in
// chroma's lexer). The look ahead is bounded, so that a long run of names
// and parentheses costs linear time.
func (s *cScanner) definition(i int) bool {
	for i < len(s.text) && (s.text[i] == ' ' || s.text[i] == '\t') {
		i++
	}
	if s.at(i) != '(' {
		return false
	}
	rest := s.text[i:min(len(s.text), i+2048)]
	j := strings.IndexAny(rest, "{;")
	return j > 0 && rest[j] == '{'
}

// raw reads R"delim( ... )delim" with its prefix at s.pos and its quote at
// q; it says false (reading nothing) if the delimiter is not one.
func (s *cScanner) raw(q int) bool {
	open := strings.IndexByte(s.text[q+1:], '(')
	if open < 0 || open > 16 || strings.ContainsAny(s.text[q+1:q+1+open], "\\) \t\n\"") {
		return false
	}
	delim := s.text[q+1 : q+1+open]
	s.afterWord, s.className = false, false
	s.emit(chroma.LiteralStringAffix, q)
	s.emit(chroma.LiteralString, q+1)
	s.emit(chroma.LiteralStringDelimiter, q+2+open)
	body := q + 2 + open
	i := strings.Index(s.text[body:], ")"+delim+"\"")
	if i < 0 {
		s.emit(chroma.LiteralString, len(s.text))
		s.span(String, q, body, len(s.text))
		return true
	}
	s.emit(chroma.LiteralString, body+i)
	s.emit(chroma.LiteralStringDelimiter, body+i+1+len(delim))
	s.emit(chroma.LiteralString, body+i+2+len(delim))
	s.span(String, q, body, body+i)
	return true
}

// escape returns the end of the escape sequence at i (a backslash), or i
// when the backslash starts none.
func (s *cScanner) escape(i int) int {
	c := s.at(i + 1)
	run := func(from, most int, ok func(byte) bool) int {
		j := from
		for j < len(s.text) && j-from < most && ok(s.text[j]) {
			j++
		}
		return j
	}
	switch {
	case strings.IndexByte("\\abfnrtv\"'?", c) >= 0:
		return i + 2
	case c == 'x':
		if j := run(i+2, 8, isHex); j > i+2 {
			return j
		}
	case c == 'u':
		if j := run(i+2, 4, isHex); j == i+6 {
			return j
		}
	case c == 'U':
		if j := run(i+2, 8, isHex); j == i+10 {
			return j
		}
	case c >= '0' && c <= '7':
		return run(i+1, 3, func(b byte) bool { return b >= '0' && b <= '7' })
	}
	return i
}

// str and char read a literal whose opening quote is at s.pos; it ends at
// its closing quote, or before the end of its line (a newline after a
// backslash continues it), or at the end of the text.
func (s *cScanner) str() {
	s.afterWord, s.className = false, false
	start := s.pos
	s.emit(chroma.LiteralString, s.pos+1)
	end := s.body('"', chroma.LiteralString)
	s.span(String, start, start+1, end)
}

func (s *cScanner) char() {
	s.afterWord, s.className = false, false
	start := s.pos
	s.emit(chroma.LiteralStringChar, s.pos+1)
	end := s.body('\'', chroma.LiteralStringChar)
	s.span(Char, start, start+1, end)
}

// body reads a literal's body and its closing quote, and returns where
// the body ends.
func (s *cScanner) body(quote byte, t chroma.TokenType) int {
	for s.pos < len(s.text) {
		c := s.text[s.pos]
		switch {
		case c == quote:
			s.emit(t, s.pos+1)
			return s.pos - 1
		case c == '\n':
			return s.pos
		case c == '\\' && s.at(s.pos+1) == '\n':
			s.emit(t, s.pos+2)
		case c == '\\':
			if e := s.escape(s.pos); e > s.pos {
				s.emit(chroma.LiteralStringEscape, e)
			} else {
				s.emit(t, s.pos+1)
			}
		default:
			end := s.pos + 1
			for end < len(s.text) && s.text[end] != quote && s.text[end] != '\\' && s.text[end] != '\n' {
				end++
			}
			s.emit(t, end)
		}
	}
	return s.pos
}

// number reads an integer (decimal, octal, hex or binary, with ' between
// digits) or a floating-point number, with its suffix (u, l, f, ...).
func (s *cScanner) number() {
	i := s.pos
	digits := func(ok func(byte) bool) {
		for i < len(s.text) && (ok(s.text[i]) || s.text[i] == '\'' && i+1 < len(s.text) && ok(s.text[i+1])) {
			i++
		}
	}
	suffix := func() {
		for i < len(s.text) && strings.IndexByte("uUlLfFzZ", s.text[i]) >= 0 {
			i++
		}
	}
	t := chroma.LiteralNumberInteger
	switch {
	case s.text[i] == '0' && (s.at(i+1) == 'x' || s.at(i+1) == 'X') && isHex(s.at(i+2)):
		i += 2
		digits(isHex)
		t = chroma.LiteralNumberHex
		if s.at(i) == '.' {
			// a hexadecimal float: 0x1.8p3
			i++
			digits(isHex)
			t = chroma.LiteralNumberFloat
		}
		if c := s.at(i); (c == 'p' || c == 'P') && (isDigit(s.at(i+1)) || (s.at(i+1) == '+' || s.at(i+1) == '-') && isDigit(s.at(i+2))) {
			i += 2
			digits(isDigit)
			t = chroma.LiteralNumberFloat
		}
	case s.text[i] == '0' && (s.at(i+1) == 'b' || s.at(i+1) == 'B') && (s.at(i+2) == '0' || s.at(i+2) == '1'):
		i += 2
		digits(func(b byte) bool { return b == '0' || b == '1' })
		t = chroma.LiteralNumberBin
	default:
		digits(isDigit)
		if s.at(i) == '.' {
			i++
			digits(isDigit)
			t = chroma.LiteralNumberFloat
		}
		if c := s.at(i); (c == 'e' || c == 'E') && (isDigit(s.at(i+1)) || (s.at(i+1) == '+' || s.at(i+1) == '-') && isDigit(s.at(i+2))) {
			i += 2
			digits(isDigit)
			t = chroma.LiteralNumberFloat
		}
		if t == chroma.LiteralNumberInteger && s.text[s.pos] == '0' && i-s.pos > 1 {
			t = chroma.LiteralNumberOct
		}
	}
	start := i
	suffix()
	if strings.ContainsAny(s.text[start:i], "fF") && t != chroma.LiteralNumberHex {
		t = chroma.LiteralNumberFloat
	}
	s.emit(t, i)
}
