package timeline

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Counts are what a run did, in figures a student can compare with the
// reference's.
type Counts struct {
	Streams, Allocs, Frees, Reuses, Launches, Copies, Records, Edges, HostWaits, Graphs, Findings, Leaks int
	HostWaited, Peak, PoolReserved                                                                       uint64
}

// Count counts what the timeline holds.
func (tl *Timeline) Count() Counts {
	c := Counts{Streams: len(tl.Streams), Allocs: len(tl.Allocs), Edges: len(tl.Edges), Findings: len(tl.Findings), Peak: tl.Peak()}
	c.PoolReserved, _ = tl.PoolPeak()
	for _, a := range tl.Allocs {
		if a.End >= 0 {
			c.Frees++
		} else {
			c.Leaks++
		}
		if a.Reuses >= 0 {
			c.Reuses++
		}
	}
	for _, e := range tl.Events {
		switch e.Kind {
		case KindLaunch:
			c.Launches++
		case KindCopy:
			c.Copies++
		case KindRecord:
			c.Records++
		case KindHostWait:
			c.HostWaits++
			c.HostWaited += e.A
		case KindGraph:
			c.Graphs++
		}
	}
	return c
}

// Diff draws two runs of one exercise for a terminal: a table of what
// each did, the rows that differ marked, then the two timelines, side by
// side where the width allows (120 columns or more), else one above the
// other. names name the runs ("your run", "the reference").
func Diff(a, b *Timeline, names [2]string, o TextOptions) string {
	if o.Width <= 0 {
		o.Width = 80
	}
	ca, cb := a.Count(), b.Count()
	rows := []struct {
		what string
		x, y string
	}{
		{"streams", fmt.Sprint(ca.Streams), fmt.Sprint(cb.Streams)},
		{"allocations", fmt.Sprint(ca.Allocs), fmt.Sprint(cb.Allocs)},
		{"blocks reused", fmt.Sprint(ca.Reuses), fmt.Sprint(cb.Reuses)},
		{"never freed", fmt.Sprint(ca.Leaks), fmt.Sprint(cb.Leaks)},
		{"peak bytes live", Bytes(ca.Peak), Bytes(cb.Peak)},
		{"pool reserved, peak", Bytes(ca.PoolReserved), Bytes(cb.PoolReserved)},
		{"kernel launches", fmt.Sprint(ca.Launches), fmt.Sprint(cb.Launches)},
		{"graph launches", fmt.Sprint(ca.Graphs), fmt.Sprint(cb.Graphs)},
		{"copies, memsets", fmt.Sprint(ca.Copies), fmt.Sprint(cb.Copies)},
		{"waits between streams", fmt.Sprint(ca.Edges), fmt.Sprint(cb.Edges)},
		{"host waits", fmt.Sprint(ca.HostWaits), fmt.Sprint(cb.HostWaits)},
		{"time the host waited", Duration(ca.HostWaited), Duration(cb.HostWaited)},
		{"findings", fmt.Sprint(ca.Findings), fmt.Sprint(cb.Findings)},
	}
	var out strings.Builder
	w := 22
	col := max(utf8.RuneCountInString(names[0]), 12) + 2
	out.WriteString("  " + pad("", w) + pad(names[0], col) + names[1] + "\n")
	for _, r := range rows {
		mark := "  "
		if r.x != r.y {
			mark = "≠ "
		}
		out.WriteString(mark + pad(r.what, w) + pad(r.x, col) + r.y + "\n")
	}
	out.WriteString("\n")
	if o.Width >= 120 {
		half := (o.Width - 3) / 2
		oa, ob := o, o
		oa.Width, ob.Width = half, half
		oa.Color, ob.Color = false, false // a colour would run on into the other half
		la := strings.Split(strings.TrimRight(names[0]+"\n"+Text(a, oa), "\n"), "\n")
		lb := strings.Split(strings.TrimRight(names[1]+"\n"+Text(b, ob), "\n"), "\n")
		for i := 0; i < max(len(la), len(lb)); i++ {
			var x, y string
			if i < len(la) {
				x = la[i]
			}
			if i < len(lb) {
				y = lb[i]
			}
			out.WriteString(strings.TrimRight(padVisible(x, half)+" | "+y, " ") + "\n")
		}
		return out.String()
	}
	out.WriteString(names[0] + "\n" + Text(a, o) + "\n" + names[1] + "\n" + Text(b, o))
	return out.String()
}

// padVisible pads s to n columns, not counting ANSI escapes.
func padVisible(s string, n int) string {
	visible := 0
	in := false
	for _, r := range s {
		switch {
		case r == 0x1b:
			in = true
		case in && r == 'm':
			in = false
		case !in:
			visible++
		}
	}
	if visible >= n {
		return s
	}
	return s + strings.Repeat(" ", n-visible)
}
