// Package mermaid reads mermaid flowcharts and draws them, as boxes and
// arrows in a terminal and as SVG in a page, from one layout. It knows the
// flowchart subset lessons use: nodes with shapes, edges with optional
// labels, chains (A --> B --> C) and groups (A & B --> C).
package mermaid

import (
	"fmt"
	"strings"
)

// Shape is how a node is drawn.
type Shape int

const (
	Box Shape = iota
	Round
	Diamond
	Circle
)

// Node is a box of the chart.
type Node struct {
	ID    string
	Label string
	Shape Shape
}

// Edge joins two nodes, by index in Graph.Nodes.
type Edge struct {
	From, To int
	Label    string
	Dotted   bool
	// Arrow is false for a plain line (---).
	Arrow bool
}

// Graph is a parsed flowchart.
type Graph struct {
	// Direction is TD, TB, BT, LR or RL as written; every chart is drawn
	// top-down.
	Direction string
	Nodes     []Node
	Edges     []Edge
	ids       map[string]int
}

// The most a chart may have. Laying a chart out costs more than its size
// (a long edge becomes a box in every row it crosses, and rows are
// reordered against each other), and a course is someone else's: a
// 320-node chart took 14.6 s. A chart past these is not drawn; the page
// says why and shows its source.
const (
	MaxNodes = 100
	MaxEdges = 200
)

// Error is a line of a chart that could not be read.
type Error struct {
	Line int // 1-based, within the chart
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("diagram line %d: %s", e.Line, e.Msg) }

// Parse reads a flowchart.
func Parse(src string) (*Graph, error) {
	g := &Graph{ids: map[string]int{}}
	header := false
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if j := strings.Index(line, "%%"); j >= 0 {
			line = strings.TrimSpace(line[:j])
		}
		line = strings.TrimSuffix(line, ";")
		if line == "" {
			continue
		}
		if !header {
			f := strings.Fields(line)
			if f[0] != "flowchart" && f[0] != "graph" {
				return nil, &Error{i + 1, fmt.Sprintf("only flowcharts can be drawn; this chart starts with %q", f[0])}
			}
			g.Direction = "TD"
			if len(f) > 1 {
				g.Direction = strings.ToUpper(f[1])
			}
			header = true
			continue
		}
		if skipped(line) {
			continue
		}
		if err := g.statement(line); err != nil {
			return nil, &Error{i + 1, err.Error()}
		}
	}
	if !header {
		return nil, &Error{1, "the chart is empty"}
	}
	return g, nil
}

// skipped reports lines that change only looks or grouping.
func skipped(line string) bool {
	for _, p := range []string{"classDef ", "class ", "style ", "linkStyle ", "click ", "direction ", "subgraph ", "subgraph\t"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return line == "end" || line == "subgraph"
}

// statement reads one line: a node group, then (edge, node group)*.
func (g *Graph) statement(line string) error {
	s := &scanner{src: line}
	prev, err := g.group(s)
	if err != nil {
		return err
	}
	for {
		s.space()
		if s.done() {
			return nil
		}
		label, dotted, arrow, ok := s.edge()
		if !ok {
			return fmt.Errorf("expected an arrow such as --> at %q", s.rest())
		}
		next, err := g.group(s)
		if err != nil {
			return err
		}
		if len(g.Edges)+len(prev)*len(next) > MaxEdges {
			return fmt.Errorf("the chart has more than %d edges, the most lessons draws: split it into smaller charts", MaxEdges)
		}
		for _, a := range prev {
			for _, b := range next {
				g.Edges = append(g.Edges, Edge{From: a, To: b, Label: label, Dotted: dotted, Arrow: arrow})
			}
		}
		prev = next
	}
}

// group reads A or A & B & C, each with an optional shape and label.
func (g *Graph) group(s *scanner) ([]int, error) {
	var out []int
	for {
		s.space()
		n, err := g.node(s)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		s.space()
		if !s.eat("&") {
			return out, nil
		}
	}
}

func (g *Graph) node(s *scanner) (int, error) {
	id := s.ident()
	if id == "" {
		if s.done() {
			return 0, fmt.Errorf("a node is missing at the end of the line")
		}
		return 0, fmt.Errorf("expected a node name at %q", s.rest())
	}
	label, shape, hasLabel, err := s.shape()
	if err != nil {
		return 0, err
	}
	i, seen := g.ids[id]
	if !seen {
		if len(g.Nodes) == MaxNodes {
			return 0, fmt.Errorf("the chart has more than %d nodes, the most lessons draws: split it into smaller charts", MaxNodes)
		}
		i = len(g.Nodes)
		g.ids[id] = i
		g.Nodes = append(g.Nodes, Node{ID: id, Label: id})
	}
	if hasLabel {
		g.Nodes[i].Label, g.Nodes[i].Shape = label, shape
	}
	return i, nil
}

type scanner struct {
	src string
	pos int
}

func (s *scanner) done() bool   { return s.pos >= len(s.src) }
func (s *scanner) rest() string { return s.src[s.pos:] }

func (s *scanner) space() {
	for !s.done() && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

func (s *scanner) eat(p string) bool {
	if strings.HasPrefix(s.rest(), p) {
		s.pos += len(p)
		return true
	}
	return false
}

func (s *scanner) ident() string {
	start := s.pos
	for !s.done() {
		c := s.src[s.pos]
		if c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			s.pos++
			continue
		}
		if c == '-' && s.pos+1 < len(s.src) && s.src[s.pos+1] != '-' && s.src[s.pos+1] != '.' && s.src[s.pos+1] != '>' {
			s.pos++
			continue
		}
		break
	}
	return s.src[start:s.pos]
}

var shapes = []struct {
	open, close string
	shape       Shape
}{
	{"((", "))", Circle}, {"([", "])", Round}, {"[[", "]]", Box}, {"[(", ")]", Round},
	{"{{", "}}", Diamond}, {"[/", "/]", Box}, {"[\\", "\\]", Box},
	{"[", "]", Box}, {"(", ")", Round}, {"{", "}", Diamond}, {">", "]", Box},
}

// shape reads a node's label in its brackets, if there is one. A label may
// hold brackets of other kinds, and may be quoted.
func (s *scanner) shape() (string, Shape, bool, error) {
	for _, sh := range shapes {
		if !strings.HasPrefix(s.rest(), sh.open) {
			continue
		}
		body := s.rest()[len(sh.open):]
		if strings.HasPrefix(body, `"`) {
			if q := strings.Index(body[1:], `"`); q >= 0 && strings.HasPrefix(body[q+2:], sh.close) {
				s.pos += len(sh.open) + q + 2 + len(sh.close)
				return body[1 : q+1], sh.shape, true, nil
			}
		}
		end := closing(body, sh.open[len(sh.open)-1], sh.close)
		if end < 0 {
			return "", 0, false, fmt.Errorf("%s opened but never closed with %s", sh.open, sh.close)
		}
		s.pos += len(sh.open) + end + len(sh.close)
		return strings.TrimSpace(body[:end]), sh.shape, true, nil
	}
	return "", 0, false, nil
}

// closing finds close in body, skipping nested pairs of the opening bracket.
func closing(body string, open byte, close string) int {
	depth := 0
	for i := 0; i < len(body); i++ {
		if depth == 0 && strings.HasPrefix(body[i:], close) {
			return i
		}
		switch {
		case body[i] == open:
			depth++
		case depth > 0 && body[i] == close[0]:
			depth--
		}
	}
	return -1
}

// edge reads an arrow with an optional label: -->, ---, -.->, ==>,
// -->|label|, -- label -->.
func (s *scanner) edge() (label string, dotted, arrow, ok bool) {
	start := s.pos
	s.eat("<")
	if strings.HasPrefix(s.rest(), "-- ") || strings.HasPrefix(s.rest(), "== ") {
		// -- label --> form
		body := s.rest()[3:]
		for _, end := range []string{"-->", "---", "==>", "==="} {
			if i := strings.Index(body, end); i >= 0 {
				s.pos += 3 + i + len(end)
				return strings.TrimSpace(body[:i]), false, end[2] == '>', true
			}
		}
		s.pos = start
		return "", false, false, false
	}
	n := 0
	for !s.done() && strings.IndexByte("-.=", s.src[s.pos]) >= 0 {
		if s.src[s.pos] == '.' {
			dotted = true
		}
		s.pos++
		n++
	}
	if n < 2 {
		s.pos = start
		return "", false, false, false
	}
	if !s.done() && strings.IndexByte(">ox", s.src[s.pos]) >= 0 && (s.pos+1 >= len(s.src) || !isIdent(s.src[s.pos+1]) || s.src[s.pos] == '>') {
		arrow = s.src[s.pos] == '>'
		s.pos++
	}
	s.space()
	if s.eat("|") {
		i := strings.IndexByte(s.rest(), '|')
		if i < 0 {
			s.pos = start
			return "", false, false, false
		}
		label = strings.TrimSpace(s.rest()[:i])
		s.pos += i + 1
	}
	return label, dotted, arrow, true
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
