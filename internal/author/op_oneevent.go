package author

import (
	"regexp"
	"strconv"
	"strings"
)

// eventArgs are the calls that take an event, and which argument it is.
var eventArgs = map[string]int{
	"cudaEventRecord": 0, "cudaEventRecordWithFlags": 0, "cudaStreamWaitEvent": 1,
	"cudaEventQuery": 0, "cudaEventSynchronize": 0,
}

// indexedRE is an element of an array or a vector: name[index].
var indexedRE = regexp.MustCompile(`^([A-Za-z_][\w.\->]*)\s*\[(.+)\]$`)

// oneEvent makes one event stand for many: an event argument e[i] of
// line n (i not 0) becomes e[0], so that a block, a round or a stream
// is ordered by another one's event (or by one never recorded).
func (m *mutator) oneEvent(n int) {
	l := m.src.Lines[n-1]
	code := m.code[n-1]
	type site struct {
		start, end int
		repl       string
	}
	var sites []site
	for _, c := range calls(code, l, anyCallRE) {
		i, ok := eventArgs[c.name]
		if !ok || i >= len(c.args) || !c.pure[i] {
			continue
		}
		arg := strings.TrimSpace(c.args[i])
		mm := indexedRE.FindStringSubmatch(arg)
		if mm == nil || strings.TrimSpace(mm[2]) == "0" {
			continue
		}
		st := c.argsStarts[i] + strings.Index(c.args[i], arg)
		sites = append(sites, site{st, st + len(arg), mm[1] + "[0]"})
	}
	for k, s := range sites {
		repl := l[:s.start] + s.repl + l[s.end:]
		variant := ""
		if len(sites) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("one-event", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// eventOfRE is an event a function gives for something (event_of(s)),
// or a member of an object (f.event, b->done): the object's name is the
// group, for a member.
var eventOfRE = regexp.MustCompile(`^(?:[A-Za-z_]\w*\s*\(.+\)|([A-Za-z_]\w*)\s*(?:\.|->)\s*[A-Za-z_]\w*)$`)

// oneEventFirst makes one event stand for many where the program keeps
// one per stream or per block out of an array's sight: an event argument
// that a function gives for its argument (event_of(s)), or that is a
// member of one of many objects (an element taken from a container:
// Freed f = list.front(), for (auto& b : blocks)), becomes the first one
// that site ever named, kept in a static: every later stream or block
// is then ordered by the first one's event. A member of an object the
// source declares otherwise (a program's one state) is left alone: its
// event is one already, and the mutant would be the program.
func (m *mutator) oneEventFirst(n int) {
	l := m.src.Lines[n-1]
	code := m.code[n-1]
	type site struct{ start, end int }
	var sites []site
	for _, c := range calls(code, l, anyCallRE) {
		i, ok := eventArgs[c.name]
		if !ok || i >= len(c.args) || !allPure(c) {
			continue
		}
		arg := strings.TrimSpace(c.args[i])
		mm := eventOfRE.FindStringSubmatch(arg)
		if mm == nil || (mm[1] != "" && !m.takenFromMany(mm[1], n)) {
			continue
		}
		st := c.argsStarts[i] + len(leading(c.args[i]))
		sites = append(sites, site{st, st + len(arg)})
	}
	for k, s := range sites {
		repl := l[:s.start] + "[&] { static cudaEvent_t lessons_first = " + l[s.start:s.end] + "; return lessons_first; }()" + l[s.end:]
		variant := "first"
		if len(sites) > 1 {
			variant = strconv.Itoa(k+1) + ":first"
		}
		m.add("one-event", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// takenFromMany reports whether the object name, at line n, is declared
// in n's function as one of many: an element of a container or an
// array (= x[i], = *it, = list.front(), = list.back()) or a range-for's
// variable.
func (m *mutator) takenFromMany(name string, n int) bool {
	fn := enclosingFunc(m.code, n)
	q := regexp.QuoteMeta(name)
	elemRE := regexp.MustCompile(`\b` + q + `\s*(?:=|\{)\s*(?:\*\s*[A-Za-z_]|[A-Za-z_][\w.\->]*\s*(?:\[|\.\s*(?:front|back)\s*\(|->\s*(?:front|back)\s*\())`)
	rangeRE := regexp.MustCompile(`\bfor\s*\([^;:()]*\b` + q + `\s*:`)
	for i := n; i >= 1; i-- {
		code := m.code[i-1]
		if enclosingFunc(m.code, i) != fn && !strings.Contains(code, "for") {
			break
		}
		if elemRE.MatchString(code) || rangeRE.MatchString(code) {
			return true
		}
	}
	return false
}
