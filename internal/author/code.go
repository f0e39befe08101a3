package author

import (
	"regexp"
	"strings"
)

// statement reports whether line n is a whole statement: it ends with ;
// and its parentheses balance.
func statement(l string) bool {
	code := strings.TrimSpace(stripComment(l))
	return strings.HasSuffix(code, ";") && strings.Count(code, "(") == strings.Count(code, ")") && !strings.HasPrefix(code, "for") && !strings.HasPrefix(code, "return")
}

// jump reports whether a statement leaves the block: nothing after it
// in the block runs.
func jump(l string) bool {
	code := strings.TrimSpace(stripComment(l))
	for _, k := range []string{"return", "break", "continue", "goto", "throw"} {
		if code == k+";" || strings.HasPrefix(code, k+" ") || strings.HasPrefix(code, k+"(") {
			return true
		}
	}
	return false
}

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
}

func eolOf(l string) string {
	if e := lineEnding(l); e != "" {
		return e
	}
	return "\n"
}

// call is a call found in a line: its name, the span of its arguments
// (inside the parentheses) and the arguments.
type call struct {
	name       string
	open, end  int // l[open] is '(', l[end] is ')'
	args       []string
	argsStarts []int
}

// calls finds the calls of names in l.
func calls(l string, re *regexp.Regexp) []call {
	var out []call
	for _, loc := range re.FindAllStringSubmatchIndex(l, -1) {
		c := call{name: l[loc[2]:loc[3]], open: loc[1] - 1}
		c.args, c.argsStarts, c.end = splitArgs(l, c.open)
		if c.end > 0 {
			out = append(out, c)
		}
	}
	return out
}

// splitArgs splits the arguments of the parenthesis that opens at
// l[open]: each argument, where it starts, and where the parenthesis
// closes (0 when it does not on this line).
func splitArgs(l string, open int) (args []string, starts []int, end int) {
	depth, start := 0, open+1
	for i := open; i < len(l); i++ {
		switch l[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return append(args, l[start:i]), append(starts, start), i
			}
		case ',':
			if depth == 1 {
				args = append(args, l[start:i])
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
func enclosingFunc(lines []string, n int) string {
	depth := 0
	for i := n - 2; i >= 0; i-- {
		code := stripComment(lines[i])
		depth += strings.Count(code, "}") - strings.Count(code, "{")
		if depth >= 0 {
			continue
		}
		if mm := funcHeadRE.FindStringSubmatch(strings.TrimRight(code, " \t\r\n")); mm != nil && !controlWords[mm[1]] {
			return mm[1]
		}
		depth = 0
	}
	return ""
}

// oneLineFuncRE is a function defined on one line: its name and body.
var oneLineFuncRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:final\s*)?\{(.*)\}\s*;?\s*$`)

var callNameRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// calledInLoop are the functions that run in a loop of the files: called
// on a line inside a loop's braces or on a loop's own line (a body
// without braces), or called by a function that runs in a loop.
func calledInLoop(files [][]string) map[string]bool {
	out := map[string]bool{}
	calls := map[string][]string{} // function -> the functions it calls
	loopLineRE := regexp.MustCompile(`^\s*(?:for|while)\s*\(`)
	for _, lines := range files {
		loops := loopsOf(lines)
		for i, l := range lines {
			code := stripComment(l)
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
// braces hold it (0 when none). It reads braces, skipping comments,
// strings and characters: enough for the solutions of a course.
func loopsOf(lines []string) []int {
	out := make([]int, len(lines))
	type open struct{ loop int }
	var stack []open
	header := ""    // code since the last ; { or }
	headerLine := 0 // where it began
	inBlock := false
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
			if inBlock {
				if ch == '*' && j+1 < len(l) && l[j+1] == '/' {
					inBlock = false
					j++
				}
				continue
			}
			switch {
			case ch == '/' && j+1 < len(l) && l[j+1] == '/':
				j = len(l)
				continue
			case ch == '/' && j+1 < len(l) && l[j+1] == '*':
				inBlock = true
				j++
				continue
			case ch == '"' || ch == '\'':
				for j++; j < len(l) && l[j] != ch; j++ {
					if l[j] == '\\' {
						j++
					}
				}
				continue
			}
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
	return l[:c.open-len(c.name)] + repl + l[c.end+1:]
}

// launchStream is the stream a launch statement names (its fourth
// <<< >>> argument), or "" for none or the default stream.
func launchStream(code string) string {
	mm := launchStmtRE.FindStringSubmatch(code)
	if mm == nil {
		return ""
	}
	args, _, _ := splitArgs("("+mm[1]+")", 0)
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
