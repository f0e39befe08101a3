package author

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cudalessons/lessons/internal/clex"
)

// codeOf is lines (each with its line ending) as the operators read
// them: the same bytes with every comment and every string and character
// literal (its quotes too) blanked, as clex reads C, C++
// and CUDA (a // in a string is no comment, a call in a comment or a
// string no call). A pattern found in code is code, and an offset in a
// line's code is the same offset in its text, so an operator finds a
// site in code and edits the text; what it copies into a mutant it takes
// from the text, never from code.
func codeOf(lines []string) []string {
	code, _, _ := codeAndComments(lines)
	return code
}

// codeAndComments is codeOf's code, each line's comments (the text of
// the comments, or of their parts, on it, without line endings, one
// space between two), and for each line whether a comment or a literal
// runs on past its end (into the next line: nothing may be put or moved
// between the two).
func codeAndComments(lines []string) (code, comments []string, open []bool) {
	text := strings.Join(lines, "")
	masked := []byte(text)
	isComment := make([]bool, len(text))
	spans := clex.Spans(text)
	for _, sp := range spans {
		for i := sp.Start; i < sp.End; i++ {
			if masked[i] == '\n' || masked[i] == '\r' && i+1 < len(masked) && masked[i+1] == '\n' {
				continue // a line's ending stays what it is
			}
			masked[i] = ' '
			isComment[i] = sp.Kind == clex.Comment
		}
	}
	code, comments, open = make([]string, len(lines)), make([]string, len(lines)), make([]bool, len(lines))
	at, k := 0, 0
	for i, l := range lines {
		end := at + len(l)
		for k < len(spans) && spans[k].End <= end {
			k++
		}
		open[i] = k < len(spans) && spans[k].Start < end
		code[i] = string(masked[at : at+len(l)])
		var parts []string
		for j := at; j < at+len(l); {
			if !isComment[j] {
				j++
				continue
			}
			k := j
			for k < at+len(l) && isComment[k] {
				k++
			}
			parts = append(parts, text[j:k])
			j = k
		}
		comments[i] = strings.Join(parts, " ")
		at += len(l)
	}
	return code, comments, open
}

// cFile reports whether file is C, C++ or CUDA: the operators read no
// other language (a Python exercise has only its replay mutant).
func cFile(file string) bool {
	return !strings.EqualFold(filepath.Ext(file), ".py")
}

// pure reports whether text is code alone: no comment or literal in it,
// which code (the same span of the line's code) would have blanked. An
// operator copies only pure text, so that no literal or comment is ever
// made twice.
func pure(text, code string) bool { return text == code }

// allPure reports whether every argument of c is code alone: an operator
// that rewrites a call rewrites only such calls, so that it neither
// drops nor copies a literal or a comment.
func allPure(c call) bool { return c.whole }

// statement reports whether a line's code is a whole statement: it ends
// with ; and its parentheses balance.
func statement(code string) bool {
	code = strings.TrimSpace(code)
	return strings.HasSuffix(code, ";") && strings.Count(code, "(") == strings.Count(code, ")") && !strings.HasPrefix(code, "for") && !strings.HasPrefix(code, "return")
}

// jump reports whether a statement leaves the block: nothing after it
// in the block runs.
func jump(code string) bool {
	code = strings.TrimSpace(code)
	for _, k := range []string{"return", "break", "continue", "goto", "throw"} {
		if code == k+";" || strings.HasPrefix(code, k+" ") || strings.HasPrefix(code, k+"(") {
			return true
		}
	}
	return false
}

func eolOf(l string) string {
	if e := lineEnding(l); e != "" {
		return e
	}
	return "\n"
}

// call is a call found in a line: its name, the span of its arguments
// (inside the parentheses) and the arguments, as the line's text has
// them; pure[i] says argument i is code alone, whole that the call is.
type call struct {
	name       string
	start      int // where the name starts
	open, end  int // l[open] is '(', l[end] is ')'
	args       []string
	argsStarts []int
	pure       []bool
	whole      bool
}

// calls finds the calls of names in code, a line's code, with their
// arguments from text, the line's text.
func calls(code, text string, re *regexp.Regexp) []call {
	var out []call
	for _, loc := range re.FindAllStringSubmatchIndex(code, -1) {
		c := call{name: code[loc[2]:loc[3]], start: loc[2], open: loc[1] - 1}
		c.args, c.argsStarts, c.end = splitArgs(code, text, c.open)
		if c.end > 0 {
			for i, a := range c.args {
				c.pure = append(c.pure, pure(a, code[c.argsStarts[i]:c.argsStarts[i]+len(a)]))
			}
			c.whole = pure(text[c.start:c.end+1], code[c.start:c.end+1])
			out = append(out, c)
		}
	}
	return out
}

// splitArgs splits the arguments of the parenthesis that opens at
// code[open]: each argument (from text), where it starts, and where the
// parenthesis closes (0 when it does not on this line).
func splitArgs(code, text string, open int) (args []string, starts []int, end int) {
	depth, start := 0, open+1
	for i := open; i < len(code); i++ {
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return append(args, text[start:i]), append(starts, start), i
			}
		case ',':
			if depth == 1 {
				args = append(args, text[start:i])
				starts = append(starts, start)
				start = i + 1
			}
		}
	}
	return nil, nil, 0
}

var anyCallRE = regexp.MustCompile(`\b(cuda\w+|cu[A-Z]\w+)\s*\(`)

var identRE = regexp.MustCompile(`^[A-Za-z_]\w*$`)

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// funcHeadRE is the head of a function's definition: a name, its
// parameters, and the opening brace.
var funcHeadRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:final\s*)?(?::[^{;]*)?\{\s*(?://.*)?$`)

var controlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "do": true}

// enclosingFunc is the name of the function whose body holds line n (the
// nearest function head above it that is not closed before it), or "".
// code is the lines' code.
func enclosingFunc(code []string, n int) string {
	if h := enclosingHead(code, n); h > 0 {
		return headName(code, h)
	}
	return ""
}

// headName is the name of the function whose head is line h, or "": its
// brace on the line or, alone, on the next.
func headName(code []string, h int) string {
	l := strings.TrimRight(code[h-1], " \t\r\n")
	if !strings.HasSuffix(l, "{") && h < len(code) && strings.TrimSpace(code[h]) == "{" {
		l += " {"
	}
	if mm := funcHeadRE.FindStringSubmatch(l); mm != nil && !controlWords[mm[1]] {
		return mm[1]
	}
	return ""
}

// enclosingHead is the line (from 1) of the head of the function whose
// body holds line n, or 0.
func enclosingHead(code []string, n int) int {
	depth := 0
	for i := n - 2; i >= 0; i-- {
		l := code[i]
		depth += strings.Count(l, "}") - strings.Count(l, "{")
		if depth >= 0 {
			continue
		}
		if mm := funcHeadRE.FindStringSubmatch(strings.TrimRight(l, " \t\r\n")); mm != nil && !controlWords[mm[1]] {
			return i + 1
		}
		if strings.TrimSpace(l) == "{" && i > 0 { // the brace on a line of its own
			if mm := funcHeadRE.FindStringSubmatch(strings.TrimRight(code[i-1], " \t\r\n") + " {"); mm != nil && !controlWords[mm[1]] {
				return i
			}
		}
		depth = 0
	}
	return 0
}

// deviceRE is a function that runs on the GPU alone.
var deviceRE = regexp.MustCompile(`\b__(?:global|device)__\b`)

// onDevice reports whether line n is in a kernel or a device function
// (not one that is __host__ too): no host call may be put there.
func (m *mutator) onDevice(n int) bool {
	h := enclosingHead(m.code, n)
	if h == 0 {
		return false
	}
	head := m.code[h-1]
	if h > 1 && !strings.Contains(head, "__") {
		head = m.code[h-2] + head // the qualifiers on the line before
	}
	return deviceRE.MatchString(head) && !strings.Contains(head, "__host__")
}

// oneLineFuncRE is a function defined on one line: its name and body.
var oneLineFuncRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:final\s*)?\{(.*)\}\s*;?\s*$`)

var callNameRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// calledInLoop are the functions that run in a loop of the files: called
// on a line inside a loop's braces or on a loop's own line (a body
// without braces), or called by a function that runs in a loop. files
// are the files' code.
func calledInLoop(files [][]string) map[string]bool {
	out := map[string]bool{}
	calls := map[string][]string{} // function -> the functions it calls
	loopLineRE := regexp.MustCompile(`^\s*(?:for|while)\s*\(`)
	for _, lines := range files {
		loops := loopsOf(lines)
		for i, code := range lines {
			caller := enclosingFunc(lines, i+1)
			body := code
			if mm := oneLineFuncRE.FindStringSubmatch(code); mm != nil && !controlWords[mm[1]] {
				caller, body = mm[1], mm[2]
			}
			inLoop := loops[i] != 0 || loopLineRE.MatchString(code)
			for _, mm := range callNameRE.FindAllStringSubmatch(body, -1) {
				if controlWords[mm[1]] {
					continue
				}
				if inLoop {
					out[mm[1]] = true
				}
				if caller != "" {
					calls[caller] = append(calls[caller], mm[1])
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for f := range out {
			for _, g := range calls[f] {
				if !out[g] {
					out[g], changed = true, true
				}
			}
		}
	}
	delete(out, "")
	return out
}

// loopsOf finds, for each line, the line of the innermost loop whose
// braces hold it (0 when none). lines are the lines' code (codeOf), in
// which no brace of a comment or a literal is left.
func loopsOf(lines []string) []int {
	out := make([]int, len(lines))
	type open struct{ loop int }
	var stack []open
	header := ""    // code since the last ; { or }
	headerLine := 0 // where it began
	cur := func() int {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].loop > 0 {
				return stack[i].loop
			}
		}
		return 0
	}
	loopRE := regexp.MustCompile(`^\s*(for|while)\s*\(|^\s*do\s*$`)
	macro := false // a line of a #define, continued with \\
	for i, l := range lines {
		out[i] = cur()
		trimmed := strings.TrimSpace(l)
		if macro || strings.HasPrefix(trimmed, "#") {
			macro = strings.HasSuffix(trimmed, "\\")
			continue
		}
		for j := 0; j < len(l); j++ {
			ch := l[j]
			switch ch {
			case '{':
				loop := 0
				if loopRE.MatchString(header) {
					loop = headerLine
				}
				stack = append(stack, open{loop})
				header, headerLine = "", 0
			case '}':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				header, headerLine = "", 0
			case ';':
				if !strings.Contains(header, "(") || strings.Count(header, "(") == strings.Count(header, ")") {
					header, headerLine = "", 0
				} else {
					header += ";"
				}
			default:
				if headerLine == 0 && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
					headerLine = i + 1
				}
				if headerLine != 0 {
					header += string(ch)
				}
			}
		}
		if headerLine != 0 {
			header += " "
		}
		// A line that opens a loop's body is itself outside it; the
		// lines after are in it.
	}
	return out
}

// launchStmtRE is a kernel launch: name<<<config>>>(args).
var launchStmtRE = regexp.MustCompile(`\b\w+\s*<<<([^>]*)>>>\s*\(`)

var allocRE = regexp.MustCompile(`\b(cudaMalloc\w*|cuMemCreate|cuMemAddressReserve)\s*\(`)

var addrOfRE = regexp.MustCompile(`^\(?\s*(?:\([^()]*\)\s*)?&\s*([A-Za-z_][\w.\->\[\]]*)\s*\)?$`)

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// replaceCall is line l with call c (found in l's code without its
// comment, which starts at the same offsets) replaced by repl.
func replaceCall(l string, c call, repl string) string {
	return l[:c.start] + repl + l[c.end+1:]
}

// launchStream is the stream a launch statement names (its fourth
// <<< >>> argument), or "" for none or the default stream; code is the
// statement's code, text its text.
func launchStream(code, text string) string {
	loc := launchStmtRE.FindStringSubmatchIndex(code)
	if loc == nil {
		return ""
	}
	args, _, _ := splitArgs("("+code[loc[2]:loc[3]]+")", "("+text[loc[2]:loc[3]]+")", 0)
	if len(args) < 4 {
		return ""
	}
	s := strings.TrimSpace(args[3])
	switch s {
	case "", "0", "NULL", "nullptr", "cudaStreamLegacy", "cudaStreamPerThread":
		return ""
	}
	return s
}

// defineRE is a function-like macro's definition.
var defineRE = regexp.MustCompile(`^\s*#\s*define\s+([A-Za-z_]\w*)\(`)

// defined are the names of the functions and function-like macros that
// files (their code) define: a function's head (its name, parameters,
// and a brace or a constructor's initialisers) on one line.
func defined(files [][]string) map[string]bool {
	out := map[string]bool{}
	for _, code := range files {
		for _, l := range code {
			if mm := defineRE.FindStringSubmatch(l); mm != nil {
				out[mm[1]] = true
			}
			for _, mm := range headRE.FindAllStringSubmatch(l, -1) {
				if !controlWords[mm[1]] {
					out[mm[1]] = true
				}
			}
			if mm := funcHeadRE.FindStringSubmatch(strings.TrimRight(l, " \t\r\n")); mm != nil && !controlWords[mm[1]] {
				out[mm[1]] = true
			}
		}
	}
	return out
}
