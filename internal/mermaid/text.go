package mermaid

import (
	"fmt"
	"strings"

	"github.com/mattn/go-runewidth"
)

const (
	up = 1 << iota
	down
	left
	right
)

var lineRunes = map[int]rune{
	up: '│', down: '│', up | down: '│',
	left: '─', right: '─', left | right: '─',
	down | right: '┌', down | left: '┐', up | right: '└', up | left: '┘',
	up | down | right: '├', up | down | left: '┤',
	down | left | right: '┬', up | left | right: '┴',
	up | down | left | right: '┼',
}

var corners = map[Shape][4]rune{
	Box:     {'┌', '┐', '└', '┘'},
	Round:   {'╭', '╮', '╰', '╯'},
	Circle:  {'╭', '╮', '╰', '╯'},
	Diamond: {'╱', '╲', '╲', '╱'},
}

// Text draws the layout with box-drawing characters.
func (L *Layout) Text() string {
	if L.Width == 0 || L.Height == 0 {
		return ""
	}
	grid := make([][]rune, L.Height)
	mask := make([][]int, L.Height)
	for y := range grid {
		grid[y] = []rune(strings.Repeat(" ", L.Width))
		mask[y] = make([]int, L.Width)
	}
	set := func(x, y int, r rune) {
		if y >= 0 && y < L.Height && x >= 0 && x < L.Width {
			grid[y][x] = r
		}
	}
	link := func(x, y, bits int) {
		if y >= 0 && y < L.Height && x >= 0 && x < L.Width {
			mask[y][x] |= bits
		}
	}
	for _, p := range L.Paths {
		pts := p.Points
		for i := 0; i+1 < len(pts); i++ {
			a, b := pts[i], pts[i+1]
			switch {
			case a.X == b.X:
				for y := min(a.Y, b.Y); y <= max(a.Y, b.Y); y++ {
					if y > min(a.Y, b.Y) {
						link(a.X, y, up)
					}
					if y < max(a.Y, b.Y) {
						link(a.X, y, down)
					}
				}
			case a.Y == b.Y:
				for x := min(a.X, b.X); x <= max(a.X, b.X); x++ {
					if x > min(a.X, b.X) {
						link(x, a.Y, left)
					}
					if x < max(a.X, b.X) {
						link(x, a.Y, right)
					}
				}
			}
		}
	}
	for y := range mask {
		for x, m := range mask[y] {
			if r, ok := lineRunes[m]; ok {
				grid[y][x] = r
			}
		}
	}
	for _, p := range L.Paths {
		last := p.Points[len(p.Points)-1]
		if p.Arrow {
			set(last.X, last.Y-1, '▼')
		}
		if p.Dotted {
			for i := 0; i+1 < len(p.Points); i++ {
				a, b := p.Points[i], p.Points[i+1]
				if a.X != b.X {
					continue
				}
				for y := min(a.Y, b.Y); y <= max(a.Y, b.Y); y++ {
					if grid[y][a.X] == '│' {
						set(a.X, y, '┊')
					}
				}
			}
		}
	}
	for _, b := range L.Boxes {
		c := corners[b.Shape]
		for x := b.X + 1; x < b.X+b.W-1; x++ {
			if grid[b.Y+b.H-1][x] != '│' && grid[b.Y+b.H-1][x] != '┊' {
				set(x, b.Y+b.H-1, '─')
			} else {
				set(x, b.Y+b.H-1, '┬')
			}
			set(x, b.Y, '─')
		}
		for y := b.Y + 1; y < b.Y+b.H-1; y++ {
			set(b.X, y, '│')
			set(b.X+b.W-1, y, '│')
			for x := b.X + 1; x < b.X+b.W-1; x++ {
				set(x, y, ' ')
			}
		}
		set(b.X, b.Y, c[0])
		set(b.X+b.W-1, b.Y, c[1])
		set(b.X, b.Y+b.H-1, c[2])
		set(b.X+b.W-1, b.Y+b.H-1, c[3])
		for i, line := range b.Lines {
			inner := b.W - 4
			pad := (inner - runewidth.StringWidth(line)) / 2
			x := b.X + 2 + pad
			for _, r := range line {
				set(x, b.Y+1+i, r)
				for k := 1; k < runewidth.RuneWidth(r); k++ {
					set(x+k, b.Y+1+i, 0)
				}
				x += runewidth.RuneWidth(r)
			}
		}
	}
	var unplaced []Path
	for _, p := range L.Paths {
		if p.Label != "" && !placeLabel(grid, p) {
			unplaced = append(unplaced, p)
		}
	}
	var out strings.Builder
	for _, row := range grid {
		var line strings.Builder
		for _, r := range row {
			if r != 0 {
				line.WriteRune(r)
			}
		}
		out.WriteString(strings.TrimRight(line.String(), " "))
		out.WriteByte('\n')
	}
	// A label with no room beside its edge is listed under the drawing,
	// by the labels the reader sees, not the node ids of the source.
	for _, p := range unplaced {
		fmt.Fprintf(&out, "  %s → %s: %s\n", L.g.Nodes[p.From].Label, L.g.Nodes[p.To].Label, p.Label)
	}
	for _, e := range L.Back {
		fmt.Fprintf(&out, "  ↺ %s → %s", L.g.Nodes[e.From].Label, L.g.Nodes[e.To].Label)
		if e.Label != "" {
			fmt.Fprintf(&out, ": %s", e.Label)
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// placeLabel writes an edge's label beside the first vertical stretch of
// the edge that has blank room to its right (or left), so the label sits
// on its edge. It reports false when there is no such room.
func placeLabel(grid [][]rune, p Path) bool {
	label := []rune(p.Label)
	n := runewidth.StringWidth(p.Label)
	free := func(x, y, w int) bool {
		if y < 0 || y >= len(grid) || x < 0 || x+w > len(grid[y]) {
			return false
		}
		for i := x; i < x+w; i++ {
			if grid[y][i] != ' ' {
				return false
			}
		}
		return true
	}
	put := func(x, y int) {
		for _, r := range label {
			grid[y][x] = r
			for k := 1; k < runewidth.RuneWidth(r); k++ {
				x++
				grid[y][x] = 0
			}
			x++
		}
	}
	// Best on a horizontal stretch of the edge itself: ──── yes ────┐
	for i := 0; i+1 < len(p.Points); i++ {
		a, b := p.Points[i], p.Points[i+1]
		lo, hi := min(a.X, b.X)+1, max(a.X, b.X)-1
		if a.Y != b.Y || hi-lo+1 < n+4 {
			continue
		}
		x := lo + (hi-lo+1-n-2)/2
		clear := true
		for k := x; k < x+n+2; k++ {
			clear = clear && grid[a.Y][k] == '─'
		}
		if clear {
			grid[a.Y][x] = ' '
			put(x+1, a.Y)
			grid[a.Y][x+1+n] = ' '
			return true
		}
	}
	for i := 0; i+1 < len(p.Points); i++ {
		a, b := p.Points[i], p.Points[i+1]
		if a.X != b.X {
			continue
		}
		for y := min(a.Y, b.Y) + 1; y < max(a.Y, b.Y); y++ {
			for _, x := range []int{a.X + 2, a.X - 1 - n} {
				// one blank column each side keeps the label off other lines
				if free(x-1, y, n+2) {
					put(x, y)
					return true
				}
			}
		}
	}
	return false
}
