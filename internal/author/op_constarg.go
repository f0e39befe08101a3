package author

import (
	"regexp"
	"strconv"
	"strings"
)

// A constant for an argument: a size or a count that the program reads
// from its command line, used in a region as the number it is in the
// default run. The default run (the spec's public run) gives the same
// output; only a run with other arguments tells the two apart.
//
// Where a value comes from is followed the way the course's programs
// pass it: a variable of main initialised by a call given argc, argv,
// the argument's index and its default (arg(argc, argv, 1, 12, 64)); a
// parameter that a call passes such a variable to, by position (a
// function's or a constructor's: Pipeline p(s, streams, ...)); a member
// a function sets from such a parameter (count_ = count). A value whose
// expression names anything but types and the file's constants and
// macros is not followed: the mutant would not compile where it is used.

// argCallRE is a call given argc and argv first, then the argument's
// index and its default: the group is the index, then the default.
var argCallRE = regexp.MustCompile(`\b[A-Za-z_]\w*\s*\(\s*argc\s*,\s*argv\s*,\s*(\d+)\s*,\s*(-?\d+[uUlL]*)\s*[,)]`)

// typeWords are the names an expression of a default may hold besides
// the file's constants: types and casts.
var typeWords = map[string]bool{"size_t": true, "int": true, "unsigned": true, "long": true, "short": true, "char": true,
	"float": true, "double": true, "uint64_t": true, "int64_t": true, "uint32_t": true, "int32_t": true, "const": true, "static_cast": true}

// exprWords are the keywords an expression may follow.
var exprWords = map[string]bool{"return": true, "case": true, "sizeof": true, "else": true, "do": true, "co_return": true}

var wordRE = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)

// scopedName is a name in a function ("*": a member, in every function).
type scopedName struct{ fn, name string }

// argValues are the names that hold a command-line argument's value in
// the default run, with the expression of that value.
func (m *mutator) argValues(runs []RecordedRun, others [][]string) map[scopedName]string {
	files := append([][]string{m.code}, others...)
	consts := fileConstants(files)
	values := map[scopedName]string{}
	var args []string
	if len(runs) > 0 {
		args = runs[0].Args
	}
	// Variables initialised from an argument.
	for _, code := range files {
		for i, l := range code {
			for _, loc := range argCallRE.FindAllStringSubmatchIndex(l, -1) {
				name, start, end := initialised(l, loc[0])
				if name == "" {
					continue
				}
				call := l[loc[0]:]
				_, _, close := splitArgs(call, call, strings.Index(call, "("))
				if close == 0 {
					continue
				}
				def := l[loc[4]:loc[5]]
				if k, _ := strconv.Atoi(l[loc[2]:loc[3]]); k >= 1 && k <= len(args) {
					if _, err := strconv.Atoi(args[k-1]); err != nil {
						continue
					}
					def = args[k-1]
				}
				expr := strings.TrimSpace(l[start:loc[0]] + def + l[loc[0]+close+1:end])
				if !onlyConstants(expr, consts) {
					continue
				}
				values[scopedName{enclosingFunc(code, i+1), name}] = "(" + expr + ")"
			}
		}
	}
	if len(values) == 0 {
		return nil
	}
	// Variables initialised from those, in the same function (n = mib << 18).
	for _, code := range files {
		for i, l := range code {
			mm := declRE.FindStringSubmatch(l)
			if mm == nil {
				continue
			}
			fn := enclosingFunc(code, i+1)
			for _, d := range topLevel(mm[1], ',') {
				name, expr, ok := strings.Cut(d, "=")
				name, expr = strings.TrimSpace(name), strings.TrimSpace(expr)
				if !ok || !identRE.MatchString(name) || expr == "" {
					continue
				}
				if _, done := values[scopedName{fn, name}]; done {
					continue
				}
				known := false
				v := wordRE.ReplaceAllStringFunc(expr, func(w string) string {
					if x, ok := values[scopedName{fn, w}]; ok {
						known = true
						return x
					}
					return w
				})
				if known && onlyConstants(v, consts) {
					values[scopedName{fn, name}] = "(" + v + ")"
				}
			}
		}
	}
	// Parameters passed those variables, and members set from them.
	heads := m.functionHeads()
	for _, code := range files {
		for i, l := range code {
			fn := enclosingFunc(code, i+1)
			for _, loc := range passRE.FindAllStringSubmatchIndex(l, -1) {
				var callee string
				if loc[2] >= 0 {
					callee = l[loc[2]:loc[3]]
				} else {
					callee = l[loc[4]:loc[5]] // Type var(args): the type's constructor
				}
				as, _, end := splitArgs(l, l, loc[1]-1)
				if end == 0 {
					continue
				}
				for _, params := range heads[callee] {
					if len(as) != len(params) {
						continue // an overload, or a destructor
					}
					for k, a := range as {
						if v, ok := values[scopedName{fn, strings.TrimSpace(a)}]; ok {
							values[scopedName{callee, params[k]}] = v
						}
					}
				}
			}
		}
	}
	for i, l := range m.code {
		if mm := memberSetRE.FindStringSubmatch(l); mm != nil {
			if v, ok := values[scopedName{enclosingFunc(m.code, i+1), mm[2]}]; ok {
				values[scopedName{"*", mm[1]}] = v
			}
		}
	}
	return values
}

// passRE is a call (name(...)) or a variable made by a constructor
// (Type var(...)): the call's name, or the type.
var passRE = regexp.MustCompile(`\b(?:([A-Za-z_]\w*)|([A-Za-z_]\w*)\s+[A-Za-z_]\w*)\s*\(`)

// memberSetRE is a member set from a name: count_ = count;.
var memberSetRE = regexp.MustCompile(`^\s*(?:this->)?([A-Za-z_]\w*_)\s*=\s*([A-Za-z_]\w*)\s*;`)

// headRE is a function's head on one line: its name and parameters.
var headRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(([^;{}()]*)\)\s*(?:const\s*)?(?::[^{;]*)?\{`)

// functionHeads are the source's functions with their parameters' names
// (a name may have several: overloads, a constructor and a destructor).
func (m *mutator) functionHeads() map[string][][]string {
	out := map[string][][]string{}
	for _, l := range m.code {
		mm := headRE.FindStringSubmatch(l)
		if mm == nil || controlWords[mm[1]] {
			continue
		}
		var params []string
		if p := strings.TrimSpace(mm[2]); p != "" && p != "void" {
			for _, p := range strings.Split(p, ",") {
				p, _, _ = strings.Cut(p, "=")
				ws := wordRE.FindAllString(p, -1)
				if len(ws) == 0 {
					params = nil
					break
				}
				params = append(params, ws[len(ws)-1])
			}
		}
		out[mm[1]] = append(out[mm[1]], params)
	}
	return out
}

// initialised is the name that the expression around offset at of line l
// initialises (name = ... at the same depth, after the last , or ; or
// the line's start), and where that expression starts and ends.
func initialised(l string, at int) (name string, start, end int) {
	depth := 0
	i := at - 1
	for ; i >= 0; i-- {
		switch l[i] {
		case ')', ']':
			depth++
		case '(', '[':
			depth--
		}
		if depth < 0 || (depth == 0 && (l[i] == ',' || l[i] == ';' || l[i] == '{')) {
			return "", 0, 0
		}
		if depth == 0 && l[i] == '=' && (i == 0 || !strings.ContainsRune("=!<>+-*/%&|^", rune(l[i-1]))) && (i+1 >= len(l) || l[i+1] != '=') {
			break
		}
	}
	if i < 0 {
		return "", 0, 0
	}
	mm := regexp.MustCompile(`([A-Za-z_]\w*)\s*$`).FindStringSubmatch(l[:i])
	if mm == nil {
		return "", 0, 0
	}
	start = i + 1
	depth = 0
	for end = at; end < len(l); end++ {
		switch l[end] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
		if depth < 0 || (depth == 0 && (l[end] == ',' || l[end] == ';')) {
			break
		}
	}
	return mm[1], start, end
}

// fileConstants are the names the files define at their top level:
// macros and constants (const or constexpr, not indented).
func fileConstants(files [][]string) map[string]bool {
	out := map[string]bool{}
	defRE := regexp.MustCompile(`^#\s*define\s+([A-Za-z_]\w*)`)
	constRE := regexp.MustCompile(`^(?:static\s+)?(?:const|constexpr)\b[^=;(]*?\b([A-Za-z_]\w*)\s*=`)
	for _, code := range files {
		for _, l := range code {
			if mm := defRE.FindStringSubmatch(l); mm != nil {
				out[mm[1]] = true
			}
			if mm := constRE.FindStringSubmatch(l); mm != nil {
				out[mm[1]] = true
			}
		}
	}
	return out
}

// onlyConstants reports whether expr names nothing but types and consts.
func onlyConstants(expr string, consts map[string]bool) bool {
	for _, w := range wordRE.FindAllString(expr, -1) {
		if !typeWords[w] && !consts[w] && !(w[0] >= '0' && w[0] <= '9') {
			return false
		}
	}
	return true
}

// constArg replaces, on line n, each name that holds a command-line
// argument's value (argValues) by that value in the default run: every
// use of the name on the line, one mutant per name. A name set on the
// line (name = ...), declared there (int name;), whose address is taken
// (&name), that is incremented, or a member of another object (x.name) is
// not one.
func (m *mutator) constArg(n int, values map[scopedName]string) {
	if len(values) == 0 {
		return
	}
	l, code := m.src.Lines[n-1], m.code[n-1]
	if printRE.MatchString(code) {
		return // what a line prints: the output differs at once, no size or count
	}
	fn := enclosingFunc(m.code, n)
	type use struct{ start, end int }
	byName := map[string][]use{}
	var names []string
	for _, loc := range wordRE.FindAllStringIndex(code, -1) {
		w := code[loc[0]:loc[1]]
		v, ok := values[scopedName{fn, w}]
		if !ok {
			v, ok = values[scopedName{"*", w}]
		}
		if !ok || v == "" {
			continue
		}
		before := strings.TrimRight(code[:loc[0]], " \t")
		after := strings.TrimLeft(code[loc[1]:], " \t")
		if lastWord := wordRE.FindAllString(before, -1); len(lastWord) > 0 && strings.HasSuffix(before, lastWord[len(lastWord)-1]) && !exprWords[lastWord[len(lastWord)-1]] {
			continue // a declaration: int count_;
		}
		if strings.HasSuffix(before, ".") || strings.HasSuffix(before, "->") || strings.HasSuffix(before, "::") ||
			(strings.HasSuffix(before, "&") && !strings.HasSuffix(before, "&&")) || strings.HasSuffix(before, "++") || strings.HasSuffix(before, "--") ||
			(strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==")) || strings.HasPrefix(after, "++") || strings.HasPrefix(after, "--") {
			continue
		}
		if _, seen := byName[w]; !seen {
			names = append(names, w)
		}
		byName[w] = append(byName[w], use{loc[0], loc[1]})
	}
	for _, w := range names {
		v, ok := values[scopedName{fn, w}]
		if !ok {
			v = values[scopedName{"*", w}]
		}
		repl := l
		uses := byName[w]
		for k := len(uses) - 1; k >= 0; k-- {
			repl = repl[:uses[k].start] + v + repl[uses[k].end:]
		}
		m.add("const-arg", n, w, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// declRE is a declaration of variables of a type, with what follows the
// type: const int a = 1, b = a << 2;.
var declRE = regexp.MustCompile(`^\s*(?:static\s+)?(?:const\s+|constexpr\s+)?(?:unsigned\s+|long\s+)*(?:int|size_t|uint64_t|int64_t|long|unsigned|auto)\s+([A-Za-z_]\w*\s*=[^;]*);`)

// topLevel splits s at sep outside parentheses and brackets.
func topLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// printRE is a line that prints.
var printRE = regexp.MustCompile(`\b(?:printf|fprintf|puts|fputs|std::cout|cout|std::cerr|cerr)\b`)
