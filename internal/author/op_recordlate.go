package author

import (
	"regexp"
	"strings"
)

var (
	recordRE = regexp.MustCompile(`\b(cudaEventRecord|cudaEventRecordWithFlags|cuEventRecord|cuEventRecordWithFlags)\s*\(`)
	// sendRE finds calls by name; sends are those whose name says send
	// or write (send, sendmsg, write, writev, a helper's send_all), not
	// CUDA's own.
	sendRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)
	// ipcEventRE: the file shares events with another process.
	ipcEventRE = regexp.MustCompile(`\b(cudaEventInterprocess|cudaIpcOpenEventHandle|cudaIpcGetEventHandle)\b`)
)

// recordLateReach is how many lines after an event's record the send it
// is moved past may be.
const recordLateReach = 6

// recordLate moves the event record of line n after the next statement
// that sends bytes to another process (a call whose name has send or
// write in it), in a file that shares events between processes: the
// other process, told by those bytes to wait for the event, may queue
// its wait before the record is made, and its wait then takes an older
// record, or none. Only statements may lie between the two (a
// declaration, another call), none of them leaving the block, and no
// comment or literal may run from one of the lines moved into another.
func (m *mutator) recordLate(r Region, n int) {
	_, last := r.SolutionLines()
	code := m.code[n-1]
	if !statement(code) || jump(code) || len(calls(code, m.src.Lines[n-1], recordRE)) != 1 || !m.sharesEvents() {
		return
	}
	for k := n + 1; k <= last && k <= n+recordLateReach; k++ {
		c := m.code[k-1]
		if strings.TrimSpace(c) == "" {
			continue
		}
		if sends(c) {
			if !wholeLine(c) {
				return
			}
			for j := n - 1; j <= k; j++ {
				if !m.joint(j) {
					return // a comment or a literal runs across a line moved
				}
			}
			m.add("record-late", n, "", func(lines []string) []string {
				moved := lines[n-1]
				out := append([]string{}, lines[:n-1]...)
				out = append(out, lines[n:k]...)
				out = append(out, moved)
				return append(out, lines[k:]...)
			})
			return
		}
		if !statement(c) || jump(c) || len(calls(c, m.src.Lines[k-1], recordRE)) > 0 {
			return
		}
	}
}

// sharesEvents says whether the file makes or opens interprocess events.
func (m *mutator) sharesEvents() bool {
	for _, c := range m.code {
		if ipcEventRE.MatchString(c) {
			return true
		}
	}
	return false
}

// sends says whether a line's code calls a function whose name says it
// sends or writes (not CUDA's).
func sends(code string) bool {
	for _, s := range sendRE.FindAllStringSubmatch(code, -1) {
		name := s[1]
		if strings.HasPrefix(name, "cuda") || strings.HasPrefix(name, "cu") && len(name) > 2 && name[2] >= 'A' && name[2] <= 'Z' {
			continue
		}
		low := strings.ToLower(name)
		if strings.Contains(low, "send") || strings.Contains(low, "write") {
			return true
		}
	}
	return false
}

// wholeLine says whether a line's code is whole by itself: a statement,
// or a one-line if with its block, its parentheses and braces balanced.
func wholeLine(code string) bool {
	c := strings.TrimSpace(code)
	if strings.Count(c, "(") != strings.Count(c, ")") || strings.Count(c, "{") != strings.Count(c, "}") {
		return false
	}
	for _, k := range []string{"for", "while", "do", "else", "}", "switch"} {
		if strings.HasPrefix(c, k) {
			return false
		}
	}
	return strings.HasSuffix(c, ";") || strings.HasSuffix(c, "}")
}
