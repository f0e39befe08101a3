package mermaid

import (
	"fmt"
	"html"
	"strings"
)

// Cell size of the grid, in SVG units, for a 14px monospace font.
const (
	cellW = 8.5
	cellH = 18.0
)

// SVG draws the layout as an SVG element that needs no script, font or
// network: boxes, labels, and edges with arrowheads.
func (L *Layout) SVG() string {
	var b strings.Builder
	w := float64(L.Width) * cellW
	h := float64(L.Height) * cellH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="mermaid-svg" viewBox="0 0 %.1f %.1f" width="%.0f" height="%.0f" role="img">`, w, h, w, h)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>`)
	cx := func(x int) float64 { return float64(x)*cellW + cellW/2 }
	cy := func(y int) float64 { return float64(y)*cellH + cellH/2 }
	for _, p := range L.Paths {
		var pts []string
		for _, pt := range p.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", cx(pt.X), cy(pt.Y)))
		}
		attrs := `fill="none" stroke="currentColor" stroke-width="1.5"`
		if p.Dotted {
			attrs += ` stroke-dasharray="4 3"`
		}
		if p.Arrow {
			attrs += ` marker-end="url(#arrow)"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" %s/>`, strings.Join(pts, " "), attrs)
	}
	for _, p := range L.Paths {
		if p.Label == "" {
			continue
		}
		last := p.Points[len(p.Points)-2]
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="edge-label">%s</text>`, cx(last.X)+6, cy(last.Y)-4, html.EscapeString(p.Label))
	}
	for _, bx := range L.Boxes {
		x, y := cx(bx.X), cy(bx.Y)
		bw, bh := float64(bx.W-1)*cellW, float64(bx.H-1)*cellH
		switch bx.Shape {
		case Diamond:
			fmt.Fprintf(&b, `<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" class="node"/>`,
				x+bw/2, y-cellH/2, x+bw+cellW, y+bh/2, x+bw/2, y+bh+cellH/2, x-cellW, y+bh/2)
		default:
			r := 3.0
			if bx.Shape != Box {
				r = bh / 2
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="%.1f" class="node"/>`, x, y, bw, bh, r)
		}
		for i, line := range bx.Lines {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" dominant-baseline="central">%s</text>`,
				x+bw/2, cy(bx.Y+1+i), html.EscapeString(line))
		}
	}
	b.WriteString(`</svg>`)
	for _, e := range L.Back {
		fmt.Fprintf(&b, `<p class="diagram-note">↺ %s → %s`, html.EscapeString(L.g.Nodes[e.From].Label), html.EscapeString(L.g.Nodes[e.To].Label))
		if e.Label != "" {
			fmt.Fprintf(&b, ": %s", html.EscapeString(e.Label))
		}
		b.WriteString("</p>")
	}
	return b.String()
}
