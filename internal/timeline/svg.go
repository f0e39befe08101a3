package timeline

import (
	"fmt"
	"html"
	"strings"
)

// SVGOptions says how SVG draws.
type SVGOptions struct {
	// Width is the drawing's width in pixels (720 when 0); it scales
	// down to its container (a phone's width) as an image does.
	Width int
	// MaxAllocs is how many allocations get a row of their own (6 when 0).
	MaxAllocs int
	// Theme is "light" or "dark" for a picture on its own (an image, a
	// file); "" follows the page's CSS variables (inline in its HTML).
	Theme string
}

// palettes are the colours of a picture on its own, by theme: the page's
// own (internal/render/assets/style.css).
var palettes = map[string]map[string]string{
	"light": {"--fg": "#1b1f24", "--muted": "#57606a", "--line": "#d0d7de", "--accent": "#2da44e", "--bg": "#ffffff"},
	"dark":  {"--fg": "#dde3ea", "--muted": "#a3adb8", "--line": "#2e3742", "--accent": "#4cc38a", "--bg": "#14181d"},
}

// style is the drawing's CSS, its variables given a theme's colours.
func style(theme string) string {
	css := svgStyle
	if p, ok := palettes[theme]; ok {
		for _, v := range []string{"--fg", "--muted", "--line", "--accent"} {
			for {
				i := strings.Index(css, "var("+v+",")
				if i < 0 {
					break
				}
				j := strings.Index(css[i:], ")")
				css = css[:i] + p[v] + css[i+j+1:]
			}
		}
		css += ".timeline{background:" + p["--bg"] + "}"
	}
	return css
}

const (
	svgLabel = 78 // the lanes' names
	svgLane  = 22
	svgPad   = 8
)

// SVG draws the timeline as an inline SVG element for the page and the
// feedback: the same lanes, bars, band, arrows and findings as Text. Its
// colours follow the page's theme (its CSS variables, with fallbacks);
// every text in it is escaped.
func SVG(tl *Timeline, o SVGOptions) string {
	if o.Width <= 0 {
		o.Width = 720
	}
	o.Width = max(o.Width, 240)
	if o.MaxAllocs <= 0 {
		o.MaxAllocs = 6
	}
	plot := o.Width - svgLabel - 2*svgPad
	cols := max(plot/6, 8)
	l := tl.Place(cols)
	cw := float64(plot) / float64(cols)
	x := func(c int) float64 { return float64(svgLabel+svgPad) + float64(c)*cw }

	var body strings.Builder
	y := 28
	text := func(x float64, y int, class, s string) {
		fmt.Fprintf(&body, `<text x="%.1f" y="%d" class="%s">%s</text>`, x, y, class, html.EscapeString(s))
	}
	laneBox := func(name string) int {
		fmt.Fprintf(&body, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="tl-grid"/>`, svgLabel+svgPad, y+svgLane-2, o.Width-svgPad, y+svgLane-2)
		text(svgPad, y+15, "tl-name", name)
		top := y
		y += svgLane
		return top
	}
	text(svgPad, 16, "tl-title", tl.Summary())

	// The host's lane: its waits as gaps.
	top := laneBox("host")
	for i, e := range tl.Events {
		switch e.Kind {
		case KindHostWait:
			x0, x1 := x(l.Col(i)), x(l.EndCol(i))+cw
			fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="%.1f" height="14" class="tl-hostwait"><title>%s</title></rect>`,
				x0, top+4, x1-x0, html.EscapeString(fmt.Sprintf("the host waited %s (%s)", Duration(e.A), waitWords(e.Flags))))
		case KindTrim, KindThreshold:
			what := "cudaMemPoolTrimTo"
			if e.Kind == KindThreshold {
				what = "release threshold set to " + Bytes(e.A)
			}
			fmt.Fprintf(&body, `<text x="%.1f" y="%d" class="tl-op">%s<title>%s</title></text>`, x(l.Col(i)), top+15, map[bool]string{true: "t", false: "T"}[e.Kind == KindThreshold], html.EscapeString(what))
		}
	}

	// A lane per stream.
	laneY := map[int]int{}
	for _, s := range tl.Streams {
		laneY[s] = laneBox(StreamName(s))
	}
	// Where kernels ran on the GPU: a band behind each launch, to its end.
	for i := range tl.Events {
		ly, ok := laneY[int(tl.Events[i].Stream)]
		c0, c1, ok2 := l.RanCols(i)
		if !ok || !ok2 {
			continue
		}
		r := tl.Ran[i]
		fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="%.1f" height="6" class="tl-run"><title>%s</title></rect>`, x(c0), ly+8, x(c1)+cw-x(c0),
			html.EscapeString(fmt.Sprintf("%s ran on the GPU for %s", tl.what(i), Duration(r.End-r.Start))))
	}
	for i, e := range tl.Events {
		ly, ok := laneY[int(e.Stream)]
		if !ok || e.Kind == KindHostWait || e.Kind == KindName || e.Kind == KindFinding || e.Kind == KindCut {
			continue
		}
		cx := x(l.Col(i))
		title := html.EscapeString(tl.what(i))
		switch e.Kind {
		case KindLaunch, KindGraph, KindCopy:
			class := map[uint16]string{KindLaunch: "tl-kernel", KindGraph: "tl-graph", KindCopy: "tl-copy"}[e.Kind]
			fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="%.1f" height="14" rx="2" class="%s"><title>%s</title></rect>`, cx, ly+4, max(cw-1, 2), class, title)
		case KindAlloc, KindFree:
			class := map[uint16]string{KindAlloc: "tl-alloc", KindFree: "tl-free"}[e.Kind]
			fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="3" height="18" class="%s"><title>%s</title></rect>`, cx, ly+2, class, title)
		case KindRecord:
			fmt.Fprintf(&body, `<circle cx="%.1f" cy="%d" r="4" class="tl-event"><title>event recorded on %s</title></circle>`, cx+cw/2, ly+11, onStream(int(e.Stream)))
		}
	}
	// Event waits: an arrow from the record to the wait.
	for _, ed := range tl.Edges {
		y0, y1 := laneY[ed.From]+11, laneY[ed.To]+11
		fmt.Fprintf(&body, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="tl-edge" marker-end="url(#tl-arrow)"><title>%s waits on an event recorded on %s</title></line>`,
			x(l.Col(ed.Record))+cw/2, y0, x(l.Col(ed.Wait))+cw/2, y1, onStream(ed.To), onStream(ed.From))
	}

	// The pool's reserved and used bytes, else the bytes live, as bands.
	band := func(top int, per []uint64, peak uint64, class, title string) {
		var pts strings.Builder
		fmt.Fprintf(&pts, "%.1f,%d", x(0), top+svgLane-3)
		for c, v := range per {
			h := float64(min(v, peak)) / float64(peak) * float64(svgLane-6)
			fmt.Fprintf(&pts, " %.1f,%.1f %.1f,%.1f", x(c), float64(top+svgLane-3)-h, x(c)+cw, float64(top+svgLane-3)-h)
		}
		fmt.Fprintf(&pts, " %.1f,%d", x(cols), top+svgLane-3)
		fmt.Fprintf(&body, `<polygon points="%s" class="%s"><title>%s</title></polygon>`, pts.String(), class, html.EscapeString(title))
	}
	reserved, used, most := tl.poolValues(l)
	if most > 0 {
		r, u := tl.PoolPeak()
		at := laneBox("pool")
		band(at, reserved, most, "tl-reserved", "the pool's reserved bytes, peak "+Bytes(r))
		band(at, used, most, "tl-used", "the pool's used bytes, peak "+Bytes(u))
	}
	if per, peak := tl.liveValues(l); peak > 0 && (most == 0 || tl.unpooled()) {
		band(laneBox("live"), per, peak, "tl-live", "bytes live, peak "+Bytes(peak))
	}

	// The allocations' lives.
	shown := tl.allocRows(o.MaxAllocs)
	rowOf := map[int]int{}
	for k, j := range shown {
		rowOf[j] = k + 1
	}
	for k, j := range shown {
		a := tl.Allocs[j]
		top := laneBox(fmt.Sprintf("#%d %s", k+1, short(a.Stream)))
		x0 := x(l.Col(a.ID))
		x1 := x(cols)
		class := "tl-bar tl-leak"
		if a.End >= 0 {
			x1 = x(l.Col(a.End)) + 3
			class = "tl-bar"
		}
		words := Bytes(a.Bytes)
		if a.Reuses >= 0 {
			if r, ok := rowOf[a.Reuses]; ok {
				words += fmt.Sprintf(", reuses #%d's block", r)
			}
		}
		if a.End < 0 {
			words += ", never freed"
		} else if a.FreedOn != a.Stream {
			words += ", freed on " + StreamName(a.FreedOn)
		}
		fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="%.1f" height="12" rx="3" class="%s"><title>%s</title></rect>`, x0, top+5, max(x1-x0, 3), class, html.EscapeString(words))
		tx, anchor := x1+4, "start"
		if float64(len(words))*6.2 > float64(o.Width-svgPad)-tx {
			tx, anchor = x0-4, "end"
		}
		fmt.Fprintf(&body, `<text x="%.1f" y="%d" class="tl-small" text-anchor="%s">%s</text>`, tx, top+15, anchor, html.EscapeString(words))
	}
	if more := len(tl.Allocs) - len(shown); more > 0 {
		text(svgLabel+svgPad, y+12, "tl-small", fmt.Sprintf("... and %d more allocation%s", more, plural(more)))
		y += 18
	}

	// The findings: a red mark at the operation at fault, a sentence each.
	if len(tl.Findings) > 0 {
		top := laneBox("findings")
		for k, f := range tl.Findings {
			if f.At < 0 {
				continue
			}
			cx := x(l.Col(f.At)) + cw/2
			fmt.Fprintf(&body, `<line x1="%.1f" y1="28" x2="%.1f" y2="%d" class="tl-fault"/>`, cx, cx, top+svgLane-4)
			fmt.Fprintf(&body, `<text x="%.1f" y="%d" class="tl-finding" text-anchor="middle">%d</text>`, cx, top+15, k+1)
		}
		y += 6
		chars := max((o.Width-2*svgPad)*10/74, 20)
		for k, f := range tl.Findings {
			if k == 5 {
				text(svgPad, y+12, "tl-finding", fmt.Sprintf("... and %d more", len(tl.Findings)-5))
				y += 18
				break
			}
			for _, line := range strings.Split(strings.TrimRight(wrap(fmt.Sprintf("%d. %s", k+1, tl.Sentence(f)), chars, "   "), "\n"), "\n") {
				text(svgPad, y+12, "tl-finding", line)
				y += 16
			}
			y += 4
		}
	}
	// The legend.
	lx := float64(svgPad)
	type item struct{ class, shape, words string }
	items := []item{
		{"tl-kernel", "box", "kernel"}, {"tl-copy", "box", "copy/memset"}, {"tl-graph", "box", "graph"},
		{"tl-alloc", "tick", "alloc"}, {"tl-free", "tick", "free"}, {"tl-event", "ring", "event → wait"},
		{"tl-hostwait", "box", "host waits"}, {"tl-bar", "box", "a buffer's life"},
	}
	if len(tl.Ran) > 0 {
		items = append(items, item{"tl-run", "box", "ran on the GPU"})
	}
	if len(tl.Pools) > 0 {
		items = append(items, item{"tl-reserved", "box", "pool reserved"}, item{"tl-used", "box", "pool used"})
	}
	for _, it := range items {
		if lx+float64(len(it.words))*6.6+24 > float64(o.Width) {
			lx = svgPad
			y += 16
		}
		switch it.shape {
		case "box":
			fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="10" height="10" class="%s"/>`, lx, y+4, it.class)
		case "tick":
			fmt.Fprintf(&body, `<rect x="%.1f" y="%d" width="3" height="12" class="%s"/>`, lx+3, y+3, it.class)
		case "ring":
			fmt.Fprintf(&body, `<circle cx="%.1f" cy="%d" r="4" class="%s"/>`, lx+5, y+9, it.class)
		}
		text(lx+14, y+13, "tl-small", it.words)
		lx += 14 + float64(len([]rune(it.words)))*6.6 + 12
	}
	y += 18 + svgPad

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s" style="max-width:100%%;height:auto">`,
		o.Width, y, o.Width, y, html.EscapeString(tl.Summary()))
	b.WriteString(`<style>` + style(o.Theme) + `</style>`)
	if p, ok := palettes[o.Theme]; ok {
		fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`, p["--bg"])
	}
	b.WriteString(`<defs><marker id="tl-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="tl-arrowhead"/></marker></defs>`)
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
	return b.String()
}

const svgStyle = `.timeline text{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;fill:var(--fg,#1b1f24)}` +
	`.timeline .tl-title{font-weight:600}.timeline .tl-name,.timeline .tl-small{fill:var(--muted,#57606a)}.timeline .tl-small{font-size:11px}` +
	`.timeline .tl-grid{stroke:var(--line,#d0d7de);stroke-width:1}` +
	`.timeline .tl-kernel{fill:#4f7cff}.timeline .tl-graph{fill:#8a63d2}.timeline .tl-copy{fill:#1a9e8f}` +
	`.timeline .tl-alloc{fill:#2da44e}.timeline .tl-free{fill:#d4781c}.timeline .tl-event{fill:none;stroke:var(--fg,#1b1f24);stroke-width:1.5}` +
	`.timeline .tl-edge{stroke:var(--fg,#1b1f24);stroke-width:1.2}.timeline .tl-arrowhead{fill:var(--fg,#1b1f24)}` +
	`.timeline .tl-hostwait{fill:var(--muted,#57606a);opacity:.35}` +
	`.timeline .tl-live{fill:var(--accent,#2da44e);opacity:.55}` +
	`.timeline .tl-run{fill:#4f7cff;opacity:.4}.timeline .tl-reserved{fill:var(--accent,#2da44e);opacity:.25}.timeline .tl-used{fill:var(--accent,#2da44e);opacity:.75}` +
	`.timeline .tl-bar{fill:#2da44e;opacity:.8}.timeline .tl-leak{fill:#d4781c}` +
	`.timeline .tl-fault{stroke:#e5484d;stroke-width:1.5;stroke-dasharray:3 2}.timeline text.tl-finding{fill:#e5484d;font-weight:600}`

func waitWords(kind uint16) string {
	switch kind {
	case WaitDevice:
		return "cudaDeviceSynchronize"
	case WaitStream:
		return "cudaStreamSynchronize"
	case WaitEvent:
		return "cudaEventSynchronize"
	case WaitCopy:
		return "cudaMemcpy"
	}
	return "a wait"
}
