package author

import (
	"regexp"
	"slices"
	"strings"
)

// streamArgs are the calls that take a stream, and which argument it is.
var streamArgs = map[string]int{
	"cudaMallocAsync": 2, "cudaFreeAsync": 1, "cudaMemsetAsync": 3, "cudaMemcpyAsync": 4,
	"cudaMallocFromPoolAsync": 3, "cudaEventRecord": 1, "cudaStreamWaitEvent": 0,
	"cudaStreamSynchronize": 0, "cudaMemPrefetchAsync": 3, "cudaLaunchHostFunc": 0,
}

// launchRE is a kernel launch's configuration with a stream: <<<g, b, s, stream>>>.
var launchRE = regexp.MustCompile(`<<<([^,>]+),([^,>]+),([^,>]+),([^>]+)>>>`)

// streamDeclRE is a declaration of streams (variables, parameters,
// members): what follows cudaStream_t up to = ; ( ) or {.
var streamDeclRE = regexp.MustCompile(`\bcudaStream_t\s*&?\s*([^;=(){}]+)`)

// streamDecl is a stream in the source: its expression (an array's first
// element for an array or a pointer to streams), the line it is declared
// on, and the function
// whose body or parameters hold it ("" outside functions).
type streamDecl struct {
	expr string
	line int
	fn   string
}

// streamsDeclared are the streams the source declares.
func (m *mutator) streamsDeclared() []streamDecl {
	var out []streamDecl
	seen := map[string]bool{}
	for i, l := range m.code {
		head := headName(m.code, i+1) != ""
		for _, loc := range streamDeclRE.FindAllStringSubmatchIndex(l, -1) {
			if !head && strings.Count(l[:loc[0]], "(") > strings.Count(l[:loc[0]], ")") {
				continue // a prototype's parameter (or a cast): in scope nowhere
			}
			mm := []string{l[loc[0]:loc[1]], l[loc[2]:loc[3]]}
			for _, d := range strings.Split(mm[1], ",") {
				// the next parameter's type: f(cudaStream_t a, const cudaStream_t b)
				d = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(d), "const ")), "cudaStream_t")
				pointer := strings.HasPrefix(strings.TrimSpace(d), "*") // streams somewhere: its first is a stream
				d = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(d), "*&"))
				name, arr, _ := strings.Cut(d, "[")
				name = strings.TrimSpace(name)
				if !identRE.MatchString(name) {
					continue
				}
				if arr != "" || strings.Contains(d, "[") || pointer {
					name += "[0]"
				}
				fn := enclosingFunc(m.code, i+1)
				if head {
					fn = headName(m.code, i+1) // a parameter
				}
				if !seen[name+"\x00"+fn] {
					seen[name+"\x00"+fn] = true
					out = append(out, streamDecl{name, i + 1, fn})
				}
			}
		}
	}
	return out
}

// streamSpots are the stream arguments of a line's code: calls' and
// launches'.
func streamSpots(l string) [][2]int {
	var spots [][2]int
	for _, c := range calls(l, l, anyCallRE) {
		if i, ok := streamArgs[c.name]; ok && i < len(c.args) {
			st := c.argsStarts[i]
			spots = append(spots, [2]int{st, st + len(c.args[i])})
		}
	}
	for _, loc := range launchRE.FindAllStringSubmatchIndex(l, -1) {
		spots = append(spots, [2]int{loc[8], loc[9]})
	}
	return spots
}

// loopStream is the stream that the code from line from to line n uses:
// the last stream argument passed there (code alone: it is copied), or
// "".
func (m *mutator) loopStream(from, n int) string {
	s := ""
	for i := from; i <= n; i++ {
		code, l := m.code[i-1], m.src.Lines[i-1]
		for _, sp := range streamSpots(code) {
			if e := strings.TrimSpace(l[sp[0]:sp[1]]); e != "0" && e != "" && pure(l[sp[0]:sp[1]], code[sp[0]:sp[1]]) {
				s = e
			}
		}
	}
	return s
}

// buffers are the device buffers that the code from line from to line n
// has in hand: those it allocated (and has not freed) and those its
// stream-ordered memsets and copies write, most recent last.
func (m *mutator) buffers(from, n int) []string {
	var out []string
	addBuf := func(b string) {
		b = strings.TrimSpace(b)
		if b == "" || b == "nullptr" || b == "0" {
			return
		}
		out = slices.DeleteFunc(out, func(x string) bool { return x == b })
		out = append(out, b)
	}
	for i := from; i <= n; i++ {
		for _, c := range calls(m.code[i-1], m.src.Lines[i-1], anyCallRE) {
			switch {
			case allocRE.MatchString(c.name+"(") && strings.HasPrefix(c.name, "cudaMalloc") && len(c.args) >= 2:
				if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil {
					addBuf(mm[1])
				}
			case (c.name == "cudaMemsetAsync" || c.name == "cudaMemcpyAsync") && len(c.args) >= 3 && c.pure[0]:
				addBuf(c.args[0])
			case (c.name == "cudaFreeAsync" || c.name == "cudaFree") && len(c.args) >= 1:
				b := strings.TrimSpace(c.args[0])
				out = slices.DeleteFunc(out, func(x string) bool { return x == b })
			}
		}
	}
	return out
}

// allocated are the pointers the source allocates with the runtime
// (&p passed to a cudaMalloc), in order.
func (m *mutator) allocated() []string {
	var out []string
	for i, l := range m.src.Lines {
		for _, c := range calls(m.code[i], l, allocRE) {
			if !strings.HasPrefix(c.name, "cudaMalloc") || len(c.args) == 0 {
				continue
			}
			if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil && identRE.MatchString(mm[1]) && !slices.Contains(out, mm[1]) {
				out = append(out, mm[1])
			}
		}
	}
	return out
}

// pointee is the type a pointer variable is declared to point to
// ("float" for float* x), or "" when no declaration is found.
func (m *mutator) pointee(name string) string {
	re := regexp.MustCompile(`([A-Za-z_][\w:]*)\s*\*\s*` + regexp.QuoteMeta(name) + `\b`)
	for _, l := range m.code {
		if mm := re.FindStringSubmatch(l); mm != nil {
			return mm[1]
		}
	}
	return ""
}
