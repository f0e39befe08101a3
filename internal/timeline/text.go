package timeline

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TextOptions says how Text draws.
type TextOptions struct {
	// Width is the terminal's width in columns (80 when 0).
	Width int
	// Color marks findings in red with ANSI escapes.
	Color bool
	// MaxAllocs is how many allocations get a row of their own (6 when 0).
	MaxAllocs int
}

const labelWidth = 10

// Text draws the timeline for a terminal: a lane for the host and one per
// stream, time across in the order of the host's calls, the allocations'
// lifetimes as bars, the bytes live as a band, the findings in red under
// them with a sentence each.
func Text(tl *Timeline, o TextOptions) string {
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.MaxAllocs <= 0 {
		o.MaxAllocs = 6
	}
	cols := max(o.Width-labelWidth-2, 8)
	l := tl.Place(cols)
	red, off := "", ""
	if o.Color {
		red, off = "\x1b[31m", "\x1b[0m"
	}
	var b strings.Builder
	b.WriteString(wrap(tl.Summary(), o.Width, "  "))
	b.WriteString(pad("", labelWidth) + " " + fit("order of calls ->", cols) + "\n")
	row := func(label string, cells []rune, tail string) {
		line := pad(label, labelWidth) + "|" + string(cells) + "|"
		if tail != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(tail) <= o.Width {
			line += " " + tail
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	blank := func() []rune { return []rune(strings.Repeat(" ", cols)) }

	// The host's lane: its waits.
	host := blank()
	for i, e := range tl.Events {
		switch e.Kind {
		case KindHostWait:
			c0, c1 := l.Col(i), l.EndCol(i)
			for c := c0; c <= c1; c++ {
				host[c] = '~'
			}
			host[c0] = waitLetter(e.Flags)
		case KindTrim:
			put(host, l.Col(i), 'T')
		case KindThreshold:
			put(host, l.Col(i), 't')
		}
	}
	row("host", host, "")

	// A lane per stream, and the edges between them.
	lane := map[int][]rune{}
	index := map[int]int{}
	for k, s := range tl.Streams {
		lane[s] = blank()
		index[s] = k
	}
	for i, e := range tl.Events {
		cells, ok := lane[int(e.Stream)]
		if !ok || e.Kind == KindHostWait || e.Kind == KindName || e.Kind == KindFinding {
			continue
		}
		put(cells, l.Col(i), opLetter(e))
	}
	for _, ed := range tl.Edges {
		c := l.Col(ed.Wait)
		a, z := index[ed.From], index[ed.To]
		step := 1
		if z < a {
			step = -1
		}
		for k := a + step; k != z; k += step {
			if cells := lane[tl.Streams[k]]; cells[c] == ' ' {
				cells[c] = '|'
			}
		}
		if step > 0 {
			lane[ed.To][c] = 'v'
		} else {
			lane[ed.To][c] = '^'
		}
	}
	// Where kernels ran on the GPU: dashes after the K, to their end.
	for id := range tl.Ran {
		cells, ok := lane[int(tl.Events[id].Stream)]
		c0, c1, ok2 := l.RanCols(id)
		if !ok || !ok2 {
			continue
		}
		for c := c0; c <= c1; c++ {
			if cells[c] == ' ' {
				cells[c] = '-'
			}
		}
	}
	for _, s := range tl.Streams {
		row(StreamName(s), lane[s], "")
	}

	// The pool's reserved and used bytes, else the bytes live, as bands.
	reserved, used, top := tl.poolValues(l)
	if top > 0 {
		row("reserved", eighths(reserved, top), "")
		row("used", eighths(used, top), "")
	}
	if band, peak := tl.live(l); peak > 0 && (top == 0 || tl.unpooled()) {
		row("live", band, "")
	}

	// The allocations' lifetimes.
	shown := tl.allocRows(o.MaxAllocs)
	rowOf := map[int]int{}
	for k, j := range shown {
		rowOf[j] = k + 1
	}
	for k, j := range shown {
		a := tl.Allocs[j]
		cells := blank()
		c0 := l.Col(a.ID)
		c1 := cols - 1
		if a.End >= 0 {
			c1 = l.Col(a.End)
		}
		for c := c0; c <= c1; c++ {
			cells[c] = '='
		}
		cells[c0] = '['
		if a.End >= 0 {
			cells[c1] = ']'
		} else {
			cells[c1] = '>'
		}
		tail := Bytes(a.Bytes)
		if a.Reuses >= 0 {
			if r, ok := rowOf[a.Reuses]; ok {
				tail += fmt.Sprintf(", reuses #%d's block", r)
			} else {
				tail += ", reuses a freed block"
			}
		}
		if a.End < 0 {
			tail += ", never freed"
		} else if a.FreedOn != a.Stream {
			tail += ", freed on " + StreamName(a.FreedOn)
		}
		label(cells, c0, c1, tail, Bytes(a.Bytes))
		row(fmt.Sprintf("#%d %s", k+1, short(a.Stream)), cells, "")
	}
	if more := len(tl.Allocs) - len(shown); more > 0 {
		b.WriteString(pad("", labelWidth) + fmt.Sprintf(" ... and %d more allocation%s\n", more, plural(more)))
	}

	// The findings: a mark at the operation at fault, then a sentence.
	if len(tl.Findings) > 0 {
		cells := blank()
		for _, f := range tl.Findings {
			if f.At >= 0 {
				cells[l.Col(f.At)] = 'X'
			}
		}
		b.WriteString(red)
		row("findings", cells, "")
		for k, f := range tl.Findings {
			if k == 5 {
				b.WriteString(fmt.Sprintf("  ... and %d more finding%s\n", len(tl.Findings)-5, plural(len(tl.Findings)-5)))
				break
			}
			b.WriteString(wrap(fmt.Sprintf("X %d. %s", k+1, tl.Sentence(f)), o.Width, "     "))
		}
		b.WriteString(off)
	}
	b.WriteString(tl.legend(o.Width))
	return b.String()
}

var legendItems = []string{"K kernel", "C copy", "M memset", "A alloc", "F free", "r event recorded", "v/^ a stream waits on it (| on the lanes between)",
	"G graph launch", "D/S/E/M~~ host waits (device, stream, event, memcpy)", "~ while the host waited", "T trim", "t threshold", "[==] a buffer's life", "X finding"}

// legend lists the letters, whole items to a line.
func (tl *Timeline) legend(width int) string {
	items := legendItems
	if len(tl.Ran) > 0 {
		items = append([]string{"K--- kernel, then while it ran on the GPU"}, items[1:]...)
	}
	var b strings.Builder
	line := ""
	for _, it := range items {
		if line != "" && utf8.RuneCountInString(line)+3+utf8.RuneCountInString(it) > width {
			b.WriteString(line + "\n")
			line = ""
		}
		if line != "" {
			line += " · "
		}
		line += it
	}
	return b.String() + line + "\n"
}

// label writes a bar's words in its row: after the bar where they fit,
// else before it, else over it.
func label(cells []rune, c0, c1 int, text, short string) {
	if n := utf8.RuneCountInString(text); c1+2+n > len(cells) && c0-1-n < 0 {
		text = short
	}
	r := []rune(text)
	n := len(r)
	switch {
	case c1+2+n <= len(cells):
		copy(cells[c1+2:], r)
	case c0-1-n >= 0:
		copy(cells[c0-1-n:], r)
	default:
		if n > c1-c0-1 {
			n = max(c1-c0-1, 0)
		}
		copy(cells[c0+1:c0+1+n], r[:n])
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func short(s int) string {
	if s == 0 {
		return "dflt"
	}
	return fmt.Sprintf("s%d", s)
}

// put writes r at c unless a letter that says more is there.
func put(cells []rune, c int, r rune) {
	if prio(r) >= prio(cells[c]) {
		cells[c] = r
	}
}

func prio(r rune) int {
	return strings.IndexRune(" tTrGCMKvA^F", r)
}

func opLetter(e Event) rune {
	switch e.Kind {
	case KindAlloc:
		return 'A'
	case KindFree:
		return 'F'
	case KindLaunch:
		return 'K'
	case KindCopy:
		if e.C == 1 {
			return 'M'
		}
		return 'C'
	case KindRecord:
		return 'r'
	case KindWait:
		return 'v'
	case KindGraph:
		return 'G'
	}
	return ' '
}

func waitLetter(kind uint16) rune {
	switch kind {
	case WaitDevice:
		return 'D'
	case WaitStream:
		return 'S'
	case WaitEvent:
		return 'E'
	case WaitCopy:
		return 'M'
	}
	return '~'
}

// live is the bytes live in allocations over the columns, as a band of
// eighths, and its peak.
func (tl *Timeline) live(l *Layout) ([]rune, uint64) {
	per, peak := tl.liveValues(l)
	return eighths(per, peak), peak
}

// eighths draws values as a band of eighths of top.
func eighths(per []uint64, top uint64) []rune {
	out := make([]rune, len(per))
	bars := []rune(" ▁▂▃▄▅▆▇█")
	for i, v := range per {
		if top == 0 {
			out[i] = ' '
			continue
		}
		k := int((min(v, top)*8 + top - 1) / top)
		out[i] = bars[min(k, 8)]
	}
	return out
}

// poolValues are the pools' reserved and used bytes (all pools added) in
// each column, the most of each column, and the most reserved (0: the
// trace has no pool's figures).
func (tl *Timeline) poolValues(l *Layout) (reserved, used []uint64, top uint64) {
	if len(tl.Pools) == 0 {
		return nil, nil, 0
	}
	reserved, used = make([]uint64, l.Cols), make([]uint64, l.Cols)
	last := map[int]PoolSample{}
	var r, u uint64
	c := 0
	for _, p := range tl.Pools {
		col := l.Col(p.ID)
		for ; c < col; c++ {
			reserved[c], used[c] = max(reserved[c], r), max(used[c], u)
		}
		prev := last[p.Pool]
		r, u = r-prev.Reserved+p.Reserved, u-prev.Used+p.Used
		last[p.Pool] = p
		reserved[col], used[col] = max(reserved[col], r), max(used[col], u)
		top = max(top, r, u)
	}
	for ; c < l.Cols; c++ {
		reserved[c], used[c] = max(reserved[c], r), max(used[c], u)
	}
	return reserved, used, top
}

// unpooled says whether some allocation did not come from a pool
// (cudaMalloc): the pool's bands do not count it, the live band does.
func (tl *Timeline) unpooled() bool {
	for _, a := range tl.Allocs {
		if !a.Async {
			return true
		}
	}
	return false
}

// PoolPeak is the most bytes the pools held reserved at once, and used.
func (tl *Timeline) PoolPeak() (reserved, used uint64) {
	last := map[int]PoolSample{}
	var r, u uint64
	for _, p := range tl.Pools {
		prev := last[p.Pool]
		r, u = r-prev.Reserved+p.Reserved, u-prev.Used+p.Used
		last[p.Pool] = p
		reserved, used = max(reserved, r), max(used, u)
	}
	return reserved, used
}

// liveValues is the most bytes live in each column, and the peak.
func (tl *Timeline) liveValues(l *Layout) ([]uint64, uint64) {
	per := make([]uint64, l.Cols)
	var cur, peak uint64
	c := 0
	for i, e := range tl.Events {
		for ; c < l.Col(i); c++ {
			per[c] = max(per[c], cur)
		}
		switch e.Kind {
		case KindAlloc:
			cur += e.B
		case KindFree:
			if a := tl.AllocOf(i); a != nil {
				cur -= min(cur, a.Bytes)
			}
		}
		per[l.Col(i)] = max(per[l.Col(i)], cur)
		peak = max(peak, cur)
	}
	for ; c < l.Cols; c++ {
		per[c] = max(per[c], cur)
	}
	return per, peak
}

// allocRows picks the allocations drawn as rows: those a finding names
// first, then the first ones, in order.
func (tl *Timeline) allocRows(n int) []int {
	pick := map[int]bool{}
	for _, f := range tl.Findings {
		for _, id := range []int{f.With, f.At} {
			if id < 0 {
				continue
			}
			for j, a := range tl.Allocs {
				if (a.ID == id || a.End == id) && len(pick) < n {
					pick[j] = true
				}
			}
		}
	}
	for j := range tl.Allocs {
		if len(pick) >= n {
			break
		}
		pick[j] = true
	}
	var out []int
	for j := range tl.Allocs {
		if pick[j] {
			out = append(out, j)
		}
	}
	return out
}

func pad(s string, n int) string {
	s = fit(s, n)
	return s + strings.Repeat(" ", n-utf8.RuneCountInString(s))
}

func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// wrap breaks s into lines of at most width runes, the lines after the
// first indented.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line == "" || line == indent {
			line += w
		} else {
			line += " " + w
		}
	}
	if line != "" && line != indent {
		b.WriteString(line + "\n")
	}
	return b.String()
}
