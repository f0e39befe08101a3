package mermaid

import (
	"sort"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Layout places a graph's boxes and edges on a grid of character cells;
// the terminal draws the grid as it is and SVG scales it.
type Layout struct {
	Width, Height int
	Boxes         []Placed
	Paths         []Path
	// Back are edges that close a cycle: they are listed, not drawn.
	Back []Edge
	g    *Graph
}

// Placed is a node's box: its top-left cell, size and wrapped label.
type Placed struct {
	Node
	X, Y, W, H int
	Lines      []string
}

// Point is a cell.
type Point struct{ X, Y int }

// Path is an edge drawn as a polyline of cells: from the source box's bottom
// border to the target box's top border.
type Path struct {
	Edge
	Points []Point
}

const (
	gapX    = 3 // columns between boxes in a row
	gapRows = 3 // rows between layers: leave, turn, arrive (one where all go straight)
	minWrap = 8
)

// Layout lays the graph out in at most maxWidth columns (wider only when a
// single word does not fit).
func (g *Graph) Layout(maxWidth int) *Layout {
	forward, back := g.acyclic()
	layer := g.layers(forward)
	lg := newLayered(g, forward, layer)
	lg.order()
	wrap := 40
	for {
		lg.size(wrap)
		if lg.widest() <= maxWidth || wrap <= minWrap {
			break
		}
		wrap -= 2
	}
	return lg.place(back)
}

// acyclic splits edges into forward ones (a DAG) and back ones, by DFS in
// the order nodes were written.
func (g *Graph) acyclic() (forward, back []Edge) {
	const (
		unseen = iota
		open
		closed
	)
	state := make([]int, len(g.Nodes))
	out := make([][]int, len(g.Nodes))
	for i, e := range g.Edges {
		out[e.From] = append(out[e.From], i)
	}
	isBack := make([]bool, len(g.Edges))
	var visit func(int)
	visit = func(v int) {
		state[v] = open
		for _, ei := range out[v] {
			w := g.Edges[ei].To
			switch state[w] {
			case unseen:
				visit(w)
			case open:
				isBack[ei] = true
			}
		}
		state[v] = closed
	}
	for v := range g.Nodes {
		if state[v] == unseen {
			visit(v)
		}
	}
	for i, e := range g.Edges {
		if isBack[i] {
			back = append(back, e)
		} else {
			forward = append(forward, e)
		}
	}
	return forward, back
}

// layers gives each node its longest distance from a source.
func (g *Graph) layers(forward []Edge) []int {
	n := len(g.Nodes)
	indeg := make([]int, n)
	out := make([][]int, n)
	for _, e := range forward {
		indeg[e.To]++
		out[e.From] = append(out[e.From], e.To)
	}
	layer := make([]int, n)
	var queue []int
	for v := 0; v < n; v++ {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range out[v] {
			layer[w] = max(layer[w], layer[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	return layer
}

// layered is the graph with a dummy node wherever an edge crosses a layer.
type layered struct {
	g      *Graph
	layer  []int   // of every node, real then dummy
	rows   [][]int // nodes of each layer, in drawing order
	w, h   []int
	lines  [][]string
	chains [][]int // per forward edge: the nodes it passes, ends included
	edges  []Edge
	preds  [][]int
}

func newLayered(g *Graph, forward []Edge, layer []int) *layered {
	lg := &layered{g: g, layer: append([]int(nil), layer...), edges: forward}
	lg.preds = make([][]int, len(g.Nodes))
	for _, e := range forward {
		chain := []int{e.From}
		for l := layer[e.From] + 1; l < layer[e.To]; l++ {
			d := len(lg.layer)
			lg.layer = append(lg.layer, l)
			lg.preds = append(lg.preds, []int{chain[len(chain)-1]})
			chain = append(chain, d)
		}
		lg.preds[e.To] = append(lg.preds[e.To], chain[len(chain)-1])
		chain = append(chain, e.To)
		lg.chains = append(lg.chains, chain)
	}
	depth := 0
	for _, l := range lg.layer {
		depth = max(depth, l+1)
	}
	lg.rows = make([][]int, depth)
	for v, l := range lg.layer {
		lg.rows[l] = append(lg.rows[l], v)
	}
	return lg
}

func (lg *layered) real(v int) bool { return v < len(lg.g.Nodes) }

// order sorts each layer by the mean position of its nodes' predecessors.
func (lg *layered) order() {
	pos := make([]float64, len(lg.layer))
	for l, row := range lg.rows {
		if l > 0 {
			key := make(map[int]float64, len(row))
			for _, v := range row {
				if len(lg.preds[v]) == 0 {
					key[v] = 1e9 + float64(v)
					continue
				}
				sum := 0.0
				for _, p := range lg.preds[v] {
					sum += pos[p]
				}
				key[v] = sum / float64(len(lg.preds[v]))
			}
			sort.SliceStable(row, func(i, j int) bool { return key[row[i]] < key[row[j]] })
		}
		for i, v := range row {
			pos[v] = float64(i)
		}
	}
}

// size wraps labels at wrap columns and sizes every box.
func (lg *layered) size(wrap int) {
	n := len(lg.layer)
	lg.w, lg.h, lg.lines = make([]int, n), make([]int, n), make([][]string, n)
	for v := range lg.layer {
		if !lg.real(v) {
			lg.w[v], lg.h[v] = 1, 1
			continue
		}
		lines := Wrap(lg.g.Nodes[v].Label, wrap)
		wid := 0
		for _, l := range lines {
			wid = max(wid, runewidth.StringWidth(l))
		}
		lg.lines[v] = lines
		// An odd width puts the center on a cell, so a chain of boxes of
		// different widths lines up without a jog.
		lg.w[v], lg.h[v] = (wid+4)|1, len(lines)+2
	}
}

func (lg *layered) rowWidth(row []int) int {
	w := 0
	for i, v := range row {
		if i > 0 {
			w += gapX
		}
		w += lg.w[v]
	}
	return w
}

func (lg *layered) widest() int {
	w := 0
	for _, row := range lg.rows {
		w = max(w, lg.rowWidth(row))
	}
	return w
}

func (lg *layered) place(back []Edge) *Layout {
	L := &Layout{Width: lg.widest() | 1, Back: back, g: lg.g}
	x := make([]int, len(lg.layer))
	y := make([]int, len(lg.layer))
	rowH := make([]int, len(lg.rows))
	for l, row := range lg.rows {
		for _, v := range row {
			rowH[l] = max(rowH[l], lg.h[v])
		}
		cx := (L.Width - lg.rowWidth(row)) / 2
		for _, v := range row {
			x[v] = cx
			if !lg.real(v) {
				lg.h[v] = rowH[l]
			}
			cx += lg.w[v] + gapX
		}
	}
	center := func(v int) int { return x[v] + lg.w[v]/2 }
	gaps := lg.gaps(center)
	top := 0
	for l, row := range lg.rows {
		for _, v := range row {
			y[v] = top
		}
		top += rowH[l] + gaps[l]
	}
	L.Height = top
	if len(gaps) > 0 {
		L.Height -= gaps[len(gaps)-1]
	}
	L.Boxes = make([]Placed, len(lg.g.Nodes))
	for v := range lg.g.Nodes {
		L.Boxes[v] = Placed{Node: lg.g.Nodes[v], X: x[v], Y: y[v], W: lg.w[v], H: lg.h[v], Lines: lg.lines[v]}
	}
	for i, chain := range lg.chains {
		p := Path{Edge: lg.edges[i]}
		for k := 0; k+1 < len(chain); k++ {
			a, b := chain[k], chain[k+1]
			l := lg.layer[a]
			from := Point{center(a), y[a] + lg.h[a] - 1}
			bus := rowTop(rowH, gaps, l) + rowH[l] + gaps[l]/2 // the middle row of the gap
			to := Point{center(b), y[b]}
			if k == 0 {
				p.Points = append(p.Points, from)
			}
			p.Points = append(p.Points, Point{from.X, bus}, Point{to.X, bus}, to)
			if !lg.real(b) {
				p.Points = append(p.Points, Point{to.X, y[b] + lg.h[b] - 1})
			}
		}
		L.Paths = append(L.Paths, p)
	}
	return L
}

func rowTop(rowH, gaps []int, l int) int {
	t := 0
	for i := 0; i < l; i++ {
		t += rowH[i] + gaps[i]
	}
	return t
}

// gaps gives the rows between each layer and the next: one, for the
// arrow alone, where every edge between them goes straight down between
// boxes and has no label (a chain of steps reads as a column, not a page
// of arrows); else room to leave, turn and arrive (a diamond's point
// would meet the arrow).
func (lg *layered) gaps(center func(int) int) []int {
	gaps := make([]int, len(lg.rows))
	for l := range gaps {
		gaps[l] = 1
	}
	for i, chain := range lg.chains {
		for k := 0; k+1 < len(chain); k++ {
			a, b := chain[k], chain[k+1]
			if center(a) != center(b) || lg.edges[i].Label != "" || lg.diamond(a) || lg.diamond(b) {
				gaps[lg.layer[a]] = gapRows
			}
		}
	}
	return gaps
}

// Wrap breaks s into lines of at most width columns, at spaces; a word
// longer than width stands alone on its line.
func Wrap(s string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = w
		case runewidth.StringWidth(cur)+1+runewidth.StringWidth(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

func (lg *layered) diamond(v int) bool { return lg.real(v) && lg.g.Nodes[v].Shape == Diamond }
