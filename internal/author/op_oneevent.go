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
