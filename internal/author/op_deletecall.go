package author

import "regexp"

// apiCallRE is a call of the CUDA allocator, stream, event, pool or VMM
// API, or of a memset or copy in stream order.
var apiCallRE = regexp.MustCompile(`\b(cuda(?:Malloc\w*|Free\w*|Stream\w+|Event\w+|MemPool\w+|DeviceSetMemPool|DeviceGetDefaultMemPool|MemsetAsync|MemcpyAsync|MemPrefetchAsync)|cuMem\w+)\s*\(`)

func (m *mutator) deleteCall(n int) {
	l := m.src.Lines[n-1]
	if !apiCallRE.MatchString(stripComment(l)) || !statement(l) {
		return
	}
	m.add("delete-call", n, "", func(lines []string) []string {
		return append(lines[:n-1], lines[n:]...)
	})
}
