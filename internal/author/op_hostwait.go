package author

import (
	"regexp"
	"strings"
)

// hostWait inserts, after statement n when it runs in a loop (the
// loop around it, or a loop around a call of its function), each kind
// of host wait: the device's, the loop's stream's, an event's on that
// stream, a synchronous copy from a buffer in hand, and a synchronous
// memset of a buffer just allocated or reset. Not after a statement that
// calls nothing (float* d = nullptr;, i++;): a wait there is one at the
// same point of every stream's order as a wait after the statement
// before it, and would cost a run to find nothing new. Nor in a kernel:
// the host's calls do not compile there. Nor after a statement whose next
// one in the loop queues on the same stream, neither allocating nor
// freeing (sameAsNext): the wait after that one stands for both.
func (m *mutator) hostWait(r Region, n int, fnInLoop bool) {
	l, code := m.src.Lines[n-1], m.code[n-1]
	if (!fnInLoop && m.loops[n-1] == 0) || !statement(code) || jump(code) || !m.joint(n) || m.hostOnly(code) || m.onDevice(n) || m.sameAsNext(r, n) {
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

// freeRE is a call that gives memory back.
var freeRE = regexp.MustCompile(`\b(?:cudaFree\w*|cuMemFree\w*|cuMemUnmap|cuMemRelease)\s*\(`)

// sameAsNext reports whether statement n of region r, and the next
// statement of r that reaches a stream, in the same loop, both queue
// work on one stream, the same one, and neither allocates nor frees: a
// host wait after n is then one after the next but for the one more
// thing queued on that stream, between the same allocations, and is
// killed by what kills that one.
func (m *mutator) sameAsNext(r Region, n int) bool {
	_, last := r.SolutionLines()
	next := 0
	for k := n + 1; k <= last; k++ {
		code := m.code[k-1]
		if strings.TrimSpace(code) == "" {
			continue
		}
		if !statement(code) || jump(code) || m.loops[k-1] != m.loops[n-1] {
			return false // a block, a branch or another loop between
		}
		if !m.hostOnly(code) {
			next = k
			break
		}
	}
	if next == 0 {
		return false
	}
	one := func(k int) string {
		code, l := m.code[k-1], m.src.Lines[k-1]
		if allocRE.MatchString(code) || freeRE.MatchString(code) {
			return ""
		}
		spots := streamSpots(code)
		if len(spots) != 1 {
			return ""
		}
		return strings.TrimSpace(l[spots[0][0]:spots[0][1]])
	}
	a := one(n)
	return a != "" && a != "0" && a == one(next)
}
