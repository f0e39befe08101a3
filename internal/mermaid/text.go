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
	for _, p := range L.Paths {
		if p.Label != "" {
			fmt.Fprintf(&out, "  %s → %s: %s\n", L.g.Nodes[p.From].ID, L.g.Nodes[p.To].ID, p.Label)
		}
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
