package mermaid

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Cell size of the grid, in SVG units, for a 14px monospace font.
const (
	cellW = 8.5
	cellH = 18.0
)

// MinScale is the least an SVG of a diagram shrinks with its page: its
// 14 px text stays at 10 px or more. Below that it scrolls in its figure.
const MinScale = 10.0 / 14

// PixelWidth is the width of the layout's SVG at full size, in CSS pixels.
func (L *Layout) PixelWidth() float64 {
	lanes := 2 * len(L.Back)
	if lanes > 0 {
		lanes += 2
	}
	return float64(L.Width+lanes) * cellW
}

// SVG draws the layout as an SVG element that needs no script, font or
// network: boxes, labels, and every edge with its arrowhead, loop-backs
// included (routed round the right of the chart). id must be unique in
// the page: the arrowhead marker and the accessible name use it, and two
// diagrams on one page must not share them. It shrinks with its page to
// MinScale of its size, and scrolls in its figure below that. The name is
// a title naming the chart's steps; its description lists every edge in
// words.
func (L *Layout) SVG(id string) string {
	var b strings.Builder
	w := L.PixelWidth()
	h := float64(L.Height) * cellH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="mermaid-svg" viewBox="0 0 %.1f %.1f" width="%.0f" height="%.0f" style="min-width:%.0fpx" role="img" aria-labelledby="%s-title %s-desc">`, w, h, w, h, math.Ceil(MinScale*w), id, id)
	fmt.Fprintf(&b, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, id, html.EscapeString(L.Name()), id, html.EscapeString(strings.Join(L.g.EdgeTexts(), "; ")))
	fmt.Fprintf(&b, `<defs><marker id="%s-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>`, id)
	cx := func(x int) float64 { return float64(x)*cellW + cellW/2 }
	cy := func(y int) float64 { return float64(y)*cellH + cellH/2 }
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
	// Edges are drawn over the boxes, so that no shape (a diamond reaches
	// half a cell above its row) hides an arrowhead.
	edge := func(pts []string, e Edge) {
		attrs := `fill="none" stroke="currentColor" stroke-width="1.5"`
		if e.Dotted {
			attrs += ` stroke-dasharray="4 3"`
		}
		if e.Arrow {
			attrs += fmt.Sprintf(` marker-end="url(#%s-arrow)"`, id)
		}
		fmt.Fprintf(&b, `<polyline class="edge" points="%s" %s/>`, strings.Join(pts, " "), attrs)
	}
	for _, p := range L.Paths {
		var pts []string
		for i, pt := range p.Points {
			y := cy(pt.Y)
			// a diamond's vertices lie half a cell beyond its border rows
			if i == len(p.Points)-1 && L.Boxes[p.To].Shape == Diamond {
				y -= cellH / 2
			}
			if i == 0 && L.Boxes[p.From].Shape == Diamond {
				y += cellH / 2
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", cx(pt.X), y))
		}
		edge(pts, p.Edge)
	}
	for i, e := range L.Back {
		from, to := L.Boxes[e.From], L.Boxes[e.To]
		lane := cx(L.Width + 1 + 2*i)
		fy, ty := cy(from.Y+from.H/2), cy(to.Y+to.H/2)
		right := func(bx Placed) float64 {
			if bx.Shape == Diamond {
				return cx(bx.X+bx.W-1) + cellW
			}
			return cx(bx.X + bx.W - 1)
		}
		edge([]string{
			fmt.Sprintf("%.1f,%.1f", right(from), fy), fmt.Sprintf("%.1f,%.1f", lane, fy),
			fmt.Sprintf("%.1f,%.1f", lane, ty), fmt.Sprintf("%.1f,%.1f", right(to)+2, ty),
		}, e)
		if e.Label != "" {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="edge-label" text-anchor="end">%s</text>`, lane-4, (fy+ty)/2, html.EscapeString(e.Label))
		}
	}
	for _, p := range L.Paths {
		if p.Label == "" {
			continue
		}
		last := p.Points[len(p.Points)-2]
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="edge-label">%s</text>`, cx(last.X)+6, cy(last.Y)-4, html.EscapeString(p.Label))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// Name names the chart for a reader who cannot see it: its first steps.
func (L *Layout) Name() string {
	var labels []string
	for _, n := range L.g.Nodes {
		labels = append(labels, strings.Join(strings.Fields(n.Label), " "))
	}
	if len(labels) > 3 {
		labels = append(labels[:3], "…")
	}
	return fmt.Sprintf("Flowchart of %d steps: %s", len(L.g.Nodes), strings.Join(labels, ", "))
}

// EdgeTexts says each edge of the graph in words, by node labels:
// "Kernel thread → old offset fits? (yes)".
func (g *Graph) EdgeTexts() []string {
	var out []string
	for _, e := range g.Edges {
		s := strings.Join(strings.Fields(g.Nodes[e.From].Label), " ") + " → " + strings.Join(strings.Fields(g.Nodes[e.To].Label), " ")
		if e.Label != "" {
			s += " (" + e.Label + ")"
		}
		out = append(out, s)
	}
	return out
}
