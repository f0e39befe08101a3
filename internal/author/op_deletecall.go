package author

import "regexp"

// apiCallRE is a call of the CUDA allocator, stream, event, pool or VMM
// API, or of a memset or copy in stream order.
var apiCallRE = regexp.MustCompile(`\b(cuda(?:Malloc\w*|Free\w*|Stream\w+|Event\w+|MemPool\w+|DeviceSetMemPool|DeviceGetDefaultMemPool|MemsetAsync|MemcpyAsync|MemPrefetchAsync)|cuMem\w+)\s*\(`)

// deleteCall leaves out a statement that calls the allocator, a stream,
// an event, a pool or VMM (its comments stay).
func (m *mutator) deleteCall(n int) {
	code := m.code[n-1]
	if !apiCallRE.MatchString(code) || !statement(code) {
		return
	}
	m.add("delete-call", n, "", func(lines []string) []string {
		return m.deleteLine(lines, n)
	})
}
