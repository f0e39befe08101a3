package author

import "strings"

// hostWait inserts, after statement n when it runs in a loop (the
// loop around it, or a loop around a call of its function), each kind
// of host wait: the device's, the loop's stream's, an event's on that
// stream, a synchronous copy from a buffer in hand, and a synchronous
// memset of a buffer just allocated or reset. Not after a statement that
// calls nothing (float* d = nullptr;, i++;): a wait there is one at the
// same point of every stream's order as a wait after the statement
// before it, and would cost a run to find nothing new. Nor in a kernel:
// the host's calls do not compile there.
func (m *mutator) hostWait(r Region, n int, fnInLoop bool) {
	l, code := m.src.Lines[n-1], m.code[n-1]
	if (!fnInLoop && m.loops[n-1] == 0) || !statement(code) || jump(code) || !m.joint(n) || m.hostOnly(code) || m.onDevice(n) {
		return
	}
	from := r.Begin
	if lp := m.loops[n-1]; lp != 0 {
		from = lp
	}
	ind, eol := leading(l), eolOf(l)
	stream := m.loopStream(from, n)
	type wait struct{ kind, code string }
	var waits []wait
	waits = append(waits, wait{"device", "cudaDeviceSynchronize();"})
	if stream != "" {
		waits = append(waits, wait{"stream", "cudaStreamSynchronize(" + stream + ");"})
	}
	es := stream
	if es == "" {
		es = "0"
	}
	waits = append(waits, wait{"event", "{ cudaEvent_t lessons_e; cudaEventCreateWithFlags(&lessons_e, cudaEventDisableTiming); cudaEventRecord(lessons_e, " + es + "); cudaEventSynchronize(lessons_e); cudaEventDestroy(lessons_e); }"})
	if bufs := m.buffers(from, n); len(bufs) > 0 {
		waits = append(waits, wait{"memcpy", "{ char lessons_c; cudaMemcpy(&lessons_c, " + bufs[len(bufs)-1] + ", 1, cudaMemcpyDeviceToHost); }"})
	}
	for _, c := range calls(code, l, anyCallRE) {
		switch {
		case !allPure(c):
			// an argument with a literal or a comment in it is not copied
		case (c.name == "cudaMallocAsync" || c.name == "cudaMalloc" || c.name == "cudaMallocFromPoolAsync") && len(c.args) >= 2:
			if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil {
				waits = append(waits, wait{"memset", "cudaMemset(" + mm[1] + ", 0, " + strings.TrimSpace(c.args[1]) + ");"})
			}
		case c.name == "cudaMemsetAsync" && len(c.args) >= 3:
			waits = append(waits, wait{"memset", "cudaMemset(" + strings.TrimSpace(c.args[0]) + ", " + strings.TrimSpace(c.args[1]) + ", " + strings.TrimSpace(c.args[2]) + ");"})
		}
		if len(waits) > 0 && waits[len(waits)-1].kind == "memset" {
			break
		}
	}
	for _, w := range waits {
		m.add("host-wait", n, w.kind, func(lines []string) []string {
			return append(lines[:n], append([]string{ind + w.code + eol}, lines[n:]...)...)
		})
	}
}

// hostOnly reports whether a statement's code reaches no stream: it
// launches nothing and calls nothing of CUDA's (cuda*, cu*) nor any
// function the exercise's files define (which may); std's containers
// and the C library are the host's alone.
func (m *mutator) hostOnly(code string) bool {
	if strings.Contains(code, "<<<") || anyCallRE.MatchString(code) {
		return false
	}
	for _, mm := range callNameRE.FindAllStringSubmatch(code, -1) {
		if !notCalls[mm[1]] && m.defined[mm[1]] {
			return false
		}
	}
	return true
}

// notCalls are the words before a parenthesis that call nothing.
var notCalls = map[string]bool{"sizeof": true, "alignof": true, "decltype": true, "static_cast": true, "reinterpret_cast": true,
	"const_cast": true, "if": true, "for": true, "while": true, "switch": true, "return": true, "int": true, "size_t": true,
	"float": true, "double": true, "char": true, "long": true, "unsigned": true, "uint64_t": true, "int64_t": true}
