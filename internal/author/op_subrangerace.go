package author

import (
	"regexp"
	"strconv"
	"strings"
)

// ownStream is an expression for a stream of the mutant's own, made
// once, non-blocking: nothing orders it with any stream of the program,
// the legacy stream included.
const ownStream = "[] { static cudaStream_t lessons_s = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }(); return lessons_s; }()"

// subRangeCalls are the stream-ordered calls that take pointers, which
// arguments are pointers, and which is the stream.
var subRangeCalls = map[string]struct {
	ptrs   []int
	stream int
}{
	"cudaMemsetAsync":      {[]int{0}, 3},
	"cudaMemcpyAsync":      {[]int{0, 1}, 4},
	"cudaMemPrefetchAsync": {[]int{0}, 3},
}

// castRE is a cast in front of an expression: (char*), (float *).
var castRE = regexp.MustCompile(`^\(\s*[A-Za-z_][\w:\s]*\*+\s*\)\s*`)

// chainRE is a variable, a member or an element of one: p, b.p, t->buf,
// x[i].p; its last name is the group.
var chainRE = regexp.MustCompile(`^(?:[A-Za-z_]\w*(?:\[[^\]]*\])?(?:\.|->))*([A-Za-z_]\w*)$`)

// subRange reports whether arg (pure code) is a pointer into a block
// past its start: &p[i] (i not 0), or a sum of which one term is a
// pointer the source declares (p + off, (char*)b.p + n, off + p).
func (m *mutator) subRange(arg string) bool {
	a := bare(arg)
	if strings.HasPrefix(a, "&") {
		i := strings.Index(a, "[")
		return i > 0 && strings.HasSuffix(a, "]") && strings.TrimSpace(a[i+1:len(a)-1]) != "0"
	}
	depth, start := 0, 0
	var terms []string
	for i := 0; i < len(a); i++ {
		switch a[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '+':
			if depth == 0 && (i+1 >= len(a) || a[i+1] != '+') && (i == 0 || a[i-1] != '+') {
				terms = append(terms, a[start:i])
				start = i + 1
			}
		}
	}
	if len(terms) == 0 {
		return false
	}
	terms = append(terms, a[start:])
	for _, t := range terms {
		t = bare(t)
		if mm := chainRE.FindStringSubmatch(t); mm != nil && m.pointerVar(mm[1]) {
			return true
		}
	}
	return false
}

// subRangeRace moves each stream-ordered use of a sub-range of a block
// on line n (a memset, a copy or a launch given p + off or &p[i]) to a
// stream of its own (ownStream): nothing orders the use after the
// block's allocation, nor the block's free after the use, whatever
// stream they were on. Following blocks by their start address alone
// misses this race; following them by address range sees it.
func (m *mutator) subRangeRace(n int) {
	l, code := m.src.Lines[n-1], m.code[n-1]
	var spots [][2]int
	for _, c := range calls(code, l, anyCallRE) {
		sc, ok := subRangeCalls[c.name]
		if !ok || sc.stream >= len(c.args) || !allPure(c) {
			continue
		}
		for _, p := range sc.ptrs {
			if m.subRange(c.args[p]) {
				spots = append(spots, [2]int{c.argsStarts[sc.stream], c.argsStarts[sc.stream] + len(c.args[sc.stream])})
				break
			}
		}
	}
	for _, loc := range launchRE.FindAllStringSubmatchIndex(code, -1) {
		// the launch's arguments follow its >>>
		rest := strings.TrimLeft(code[loc[1]:], " \t")
		if !strings.HasPrefix(rest, "(") {
			continue
		}
		open := len(code) - len(rest)
		args, _, end := splitArgs(code, l, open)
		if end == 0 || !pure(l[loc[0]:end+1], code[loc[0]:end+1]) {
			continue
		}
		for _, a := range args {
			if m.subRange(a) {
				spots = append(spots, [2]int{loc[8], loc[9]})
				break
			}
		}
	}
	for k, sp := range spots {
		repl := l[:sp[0]] + leading(l[sp[0]:sp[1]]) + ownStream + l[sp[1]:]
		variant := ""
		if len(spots) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("subrange-race", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// pointerVar reports whether the source declares name a pointer: a type,
// a *, then name, as a declaration has it (at the start of a statement or
// of a parameter, followed by = ; , ) or [), not as i * n does.
func (m *mutator) pointerVar(name string) bool {
	re := regexp.MustCompile(`(?:^|[;,({]|\b(?:const|static|volatile))\s*[A-Za-z_][\w:]*(?:<[^<>]*>)?\s*\*+\s*(?:const\s+|__restrict__\s+)?` + regexp.QuoteMeta(name) + `\s*(?:[=;,)\[]|$)`)
	for _, l := range m.code {
		if re.MatchString(strings.TrimRight(l, "\r\n")) {
			return true
		}
	}
	return false
}

// bare is expression e without the casts and the parentheses around it.
func bare(e string) string {
	for {
		e = strings.TrimSpace(castRE.ReplaceAllString(strings.TrimSpace(e), ""))
		if !strings.HasPrefix(e, "(") || !strings.HasSuffix(e, ")") {
			return e
		}
		if _, _, end := splitArgs(e, e, 0); end != len(e)-1 {
			return e // (a) + (b): not one parenthesis
		}
		e = e[1 : len(e)-1]
	}
}
