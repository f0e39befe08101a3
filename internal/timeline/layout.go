package timeline

import (
	"fmt"
	"sort"
	"strings"
)

// The drawing's time runs across in the order the host made its calls
// (the only order a program states): every event takes one step, a host
// wait a few more (a gap in the host's lane, longer as it waited longer).
// Steps are fitted to the columns there are.

// steps gives each event its step, and the steps in all.
func (tl *Timeline) steps() ([]int, int) {
	at := make([]int, len(tl.Events))
	n := 0
	for i, e := range tl.Events {
		at[i] = n
		switch e.Kind {
		case KindName, KindCut, KindFinding, KindPool, KindRan:
			at[i] = max(n-1, 0)
		case KindHostWait:
			n += 2 + waitSteps(e.A)
		default:
			n++
		}
	}
	return at, max(n, 1)
}

// waitSteps: 0 under 10 us, then one more for each factor of ten.
func waitSteps(ns uint64) int {
	s := 0
	for t := uint64(10000); ns >= t && s < 4; t *= 10 {
		s++
	}
	return s
}

// Layout places a timeline on cols columns.
type Layout struct {
	Cols  int
	col   []int // each event's column
	steps int
	tl    *Timeline
	times []int // the events that are calls, in order (ColAt)
}

// Place fits tl to cols columns.
func (tl *Timeline) Place(cols int) *Layout {
	if cols < 8 {
		cols = 8
	}
	at, n := tl.steps()
	l := &Layout{Cols: cols, col: make([]int, len(at)), steps: n, tl: tl}
	for i, s := range at {
		l.col[i] = s * cols / n
		if n < cols {
			l.col[i] = s * cols / n
		}
	}
	return l
}

// Col is the column of event id.
func (l *Layout) Col(id int) int { return l.col[id] }

// EndCol is the column where event id ends (a host wait spans columns).
func (l *Layout) EndCol(id int) int {
	e := l.tl.Events[id]
	if e.Kind != KindHostWait {
		return l.col[id]
	}
	at, _ := l.tl.steps()
	end := (at[id] + 2 + waitSteps(e.A)) * l.Cols / l.steps
	return min(max(end-1, l.col[id]), l.Cols-1)
}

// ColAt is the column of time t (nanoseconds on the trace's clock): the
// column of the last call made by then, or a part of the way across a
// host wait under way then.
func (l *Layout) ColAt(t uint64) int {
	if l.times == nil {
		for i, e := range l.tl.Events {
			switch e.Kind {
			case KindName, KindCut, KindFinding, KindPool, KindRan:
				continue
			}
			l.times = append(l.times, i)
		}
	}
	// The calls are in host order, their times rising (Parse keeps them
	// so); a host wait is stamped at its start.
	k := sort.Search(len(l.times), func(k int) bool { return l.tl.Events[l.times[k]].T > t }) - 1
	if k < 0 {
		return 0
	}
	i := l.times[k]
	e := l.tl.Events[i]
	if e.Kind == KindHostWait && e.A > 0 && t < e.T+e.A {
		c0, c1 := l.col[i], l.EndCol(i)
		return c0 + int(float64(c1-c0)*float64(t-e.T)/float64(e.A))
	}
	if e.Kind == KindHostWait {
		return l.EndCol(i)
	}
	return l.col[i]
}

// RanCols are the columns a timed launch ran across on the GPU: from
// its start (never before the launch) to its end.
func (l *Layout) RanCols(id int) (int, int, bool) {
	r, ok := l.tl.Ran[id]
	if !ok {
		return 0, 0, false
	}
	c0 := max(l.ColAt(r.Start), l.col[id])
	c1 := max(l.ColAt(r.End), c0)
	return c0, min(c1, l.Cols-1), true
}

// Bytes says a size in words.
func Bytes(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		if n%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", n>>20)
		}
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		if n%(1<<10) == 0 {
			return fmt.Sprintf("%d KiB", n>>10)
		}
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Duration says nanoseconds in words.
func Duration(ns uint64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", float64(ns)/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", float64(ns)/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.0f us", float64(ns)/1e3)
	}
	return fmt.Sprintf("%d ns", ns)
}

// StreamName names a stream for a student.
func StreamName(s int) string {
	if s == 0 {
		return "default"
	}
	return fmt.Sprintf("stream %d", s)
}

// Sentence says a finding in words: what happened, the concept it breaks,
// and where the course teaches it.
func (tl *Timeline) Sentence(f Finding) string {
	at := "an operation"
	if f.At >= 0 {
		at = tl.what(f.At)
	}
	var a *Alloc
	if f.With >= 0 {
		a = tl.AllocOf(f.With)
	}
	size := Bytes(f.Bytes)
	switch f.Kind {
	case FindUse:
		if a != nil {
			return fmt.Sprintf("%s used a %s buffer allocated on %s before an event ordered it after that allocation. Stream-ordered allocation: memory from cudaMallocAsync belongs to its stream until another stream waits on an event recorded after it (see the lesson's section on sharing memory between streams).", at, size, onStream(a.Stream))
		}
		return fmt.Sprintf("%s used a %s buffer that another stream may still be using. Stream ordering: record an event after the other stream's use and make this stream wait on it (see the lesson's section on sharing memory between streams).", at, size)
	case FindFree:
		return fmt.Sprintf("%s freed a %s buffer that another stream may still be using. A free is ordered only on its own stream: make it wait on an event recorded after the last use (see the lesson's section on sharing memory between streams).", at, size)
	case FindAfterFree:
		return fmt.Sprintf("%s used a %s buffer after it was freed. Use after free: a freed block goes back to the pool and may already be another allocation's (see the lesson's section on the pool's reuse policies).", at, size)
	case FindLeak:
		if f.At >= 0 {
			a = tl.AllocOf(f.At)
		}
		if a != nil {
			return fmt.Sprintf("the %s buffer allocated on %s was never freed. A leak: the pool keeps its memory reserved until the program ends (see the lesson's section on what the pool's figures count).", Bytes(a.Bytes), onStream(a.Stream))
		}
		return "a buffer was never freed (a leak)."
	}
	return "a finding of the judge"
}

// what names event id for a sentence ("kernel scale on stream 2").
func (tl *Timeline) what(id int) string {
	e := tl.Events[id]
	on := " on " + onStream(int(e.Stream))
	switch e.Kind {
	case KindLaunch:
		if n, ok := tl.Names[e.A]; ok && n != "" {
			return "kernel " + n + on
		}
		return "a kernel" + on
	case KindCopy:
		if e.C == 1 {
			return "cudaMemsetAsync" + on
		}
		return "cudaMemcpyAsync" + on
	case KindFree:
		return "cudaFreeAsync" + on
	case KindAlloc:
		return "the allocation" + on
	case KindHostWait:
		return "a cudaMemcpy"
	case KindGraph:
		return "a graph launched" + on
	}
	return "an operation" + on
}

// Summary is the timeline's first line.
func (tl *Timeline) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "timeline: %s, %d stream", Duration(tl.Span()), len(tl.Streams))
	if len(tl.Streams) != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, ", %d allocation", len(tl.Allocs))
	if len(tl.Allocs) != 1 {
		b.WriteString("s")
	}
	if p := tl.Peak(); p > 0 {
		fmt.Fprintf(&b, ", peak %s live", Bytes(p))
	}
	if r, _ := tl.PoolPeak(); r > 0 {
		fmt.Fprintf(&b, ", pool up to %s reserved", Bytes(r))
	}
	if len(tl.Findings) > 0 {
		fmt.Fprintf(&b, ", %d finding", len(tl.Findings))
		if len(tl.Findings) != 1 {
			b.WriteString("s")
		}
	}
	if tl.Cut > 0 {
		fmt.Fprintf(&b, " (cut: %d events left out)", tl.Cut)
	}
	return b.String()
}

// Peak is the most bytes live in the allocations traced at once.
func (tl *Timeline) Peak() uint64 {
	var cur, peak uint64
	live := map[int]uint64{}
	for i, e := range tl.Events {
		switch e.Kind {
		case KindAlloc:
			live[i] = e.B
			cur += e.B
		case KindFree:
			if a := tl.AllocOf(i); a != nil && a.End == i {
				cur -= min(cur, live[a.ID])
			}
		}
		peak = max(peak, cur)
	}
	return peak
}

// onStream names a stream in a sentence.
func onStream(s int) string {
	if s == 0 {
		return "the default stream"
	}
	return StreamName(s)
}
