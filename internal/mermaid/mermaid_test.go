package mermaid

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParse(t *testing.T) {
	g, err := Parse(`flowchart TD
    %% a comment
    A[Pool (one cudaMalloc)] --> B(Round) & C{Decide?}
    B -->|yes| D((Done))
    C -.-> D
    C --- E
    D -- back to start --> A
    style A fill:#f9f
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.ID+"="+n.Label)
	}
	if want := "A=Pool (one cudaMalloc) B=Round C=Decide? D=Done E=E"; strings.Join(got, " ") != want {
		t.Errorf("nodes = %v, want %s", got, want)
	}
	if len(g.Edges) != 6 {
		t.Fatalf("edges = %+v, want 6", g.Edges)
	}
	e := g.Edges[2]
	if g.Nodes[e.From].ID != "B" || g.Nodes[e.To].ID != "D" || e.Label != "yes" || !e.Arrow {
		t.Errorf("edge 2 = %+v", e)
	}
	if !g.Edges[3].Dotted || g.Edges[4].Arrow || g.Edges[5].Label != "back to start" {
		t.Errorf("edges 3-5 = %+v", g.Edges[3:])
	}
	if g.Nodes[2].Shape != Diamond || g.Nodes[3].Shape != Circle {
		t.Errorf("shapes = %+v", g.Nodes)
	}
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"":                          "diagram line 1: the chart is empty",
		"sequenceDiagram\nA->>B: x": `diagram line 1: only flowcharts can be drawn; this chart starts with "sequenceDiagram"`,
		"flowchart TD\nA[open":      "diagram line 2: [ opened but never closed with ]",
		"flowchart TD\nA -->":       "diagram line 2: a node is missing at the end of the line",
		"flowchart TD\nA ?? B":      `diagram line 2: expected an arrow such as --> at "?? B"`,
	} {
		_, err := Parse(src)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %s", src, err, want)
		}
	}
}

// TestGolden draws each chart of testdata/*.mmd and compares with its
// .golden file (-update rewrites them).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.mmd")
	if len(files) == 0 {
		t.Fatal("no charts in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			g, err := Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			got := g.Layout(76).Text()
			golden := strings.TrimSuffix(f, ".mmd") + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
				return
			}
			want, _ := os.ReadFile(golden)
			if got != string(want) {
				t.Errorf("drawing differs (-update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
			for _, n := range g.Nodes {
				for _, w := range strings.Fields(n.Label) {
					if !strings.Contains(got, w) {
						t.Errorf("label word %q of %s is not drawn", w, n.ID)
					}
				}
			}
		})
	}
}

func TestWidthIsRespected(t *testing.T) {
	g, _ := Parse("flowchart TD\nA[one two three four five six seven eight nine ten] --> B[x]\nA --> C[y]\nA --> D[z]")
	for _, w := range []int{30, 50, 80} {
		for _, line := range strings.Split(g.Layout(w).Text(), "\n") {
			if n := len([]rune(line)); n > w {
				t.Errorf("width %d: line of %d columns: %q", w, n, line)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.mmd")
	for _, file := range files {
		src, _ := os.ReadFile(file)
		f.Add(string(src))
	}
	f.Add("graph LR\nA-->B-->A\nA & B --> C")
	f.Add("graph TD\nA & B & C & D & E & F & G & H & I & J --> K & L & M & N & O & P & Q & R & S & T & U")
	f.Fuzz(func(t *testing.T, src string) {
		g, err := Parse(src)
		if err != nil {
			return
		}
		if len(g.Nodes) > MaxNodes || len(g.Edges) > MaxEdges {
			t.Fatalf("%d nodes and %d edges let through", len(g.Nodes), len(g.Edges))
		}
		L := g.Layout(60)
		_ = L.Text()
		_ = L.SVG("d1")
		for _, b := range L.Boxes {
			if b.X < 0 || b.Y < 0 || b.X+b.W > L.Width || b.Y+b.H > L.Height {
				t.Fatalf("box %+v outside %dx%d", b, L.Width, L.Height)
			}
		}
	})
}

// TestSVGEveryEdge: every edge is drawn, a loop-back too, with one marker
// and one accessible name per diagram id.
func TestSVGEveryEdge(t *testing.T) {
	g, err := Parse("flowchart TD\nA[start] --> B{fits?}\nB -->|yes| C[use]\nB -->|no| D[fail]\nC --> A\n")
	if err != nil {
		t.Fatal(err)
	}
	svg := g.Layout(80).SVG("d7")
	if n := strings.Count(svg, `<polyline class="edge"`); n != len(g.Edges) {
		t.Errorf("%d edges drawn, want %d:\n%s", n, len(g.Edges), svg)
	}
	for _, want := range []string{`aria-labelledby="d7-title d7-desc"`, `<title id="d7-title">Flowchart of 4 steps: start, fits?, use, …</title>`,
		`marker id="d7-arrow"`, `url(#d7-arrow)`, "use → start"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg, `id="arrow"`) {
		t.Error("SVG has the shared id arrow")
	}
}

// A chart past the caps is refused at the line that passes them, with
// why; one at the caps is drawn.
func TestCaps(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString("graph TD\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "N%d --> N%d\n", i-1, i)
		}
		return b.String()
	}
	if _, err := Parse(chain(MaxNodes)); err != nil {
		t.Errorf("%d nodes: %v", MaxNodes, err)
	}
	_, err := Parse(chain(320))
	if err == nil || err.Error() != fmt.Sprintf("diagram line %d: the chart has more than 100 nodes, the most lessons draws: split it into smaller charts", MaxNodes+1) {
		t.Errorf("320 nodes: %v", err)
	}
	// A group to a group makes every pair an edge: 15 by 15 is 225.
	var a, b []string
	for i := 0; i < 15; i++ {
		a, b = append(a, fmt.Sprint("A", i)), append(b, fmt.Sprint("B", i))
	}
	_, err = Parse("graph TD\n" + strings.Join(a, " & ") + " --> " + strings.Join(b, " & ") + "\n")
	if err == nil || !strings.Contains(err.Error(), "diagram line 2: the chart has more than 200 edges") {
		t.Errorf("225 edges: %v", err)
	}
}

// TestChainCompact: a chain of steps with straight, unlabelled edges has
// one row between its boxes, for the arrow (day 70's seven steps took 39
// rows with three).
func TestChainCompact(t *testing.T) {
	g, err := Parse("flowchart TD\nA[one] --> B[two]\nB --> C[three]\nC --> D[four]\nD --> E[five]\nE --> F[six]\nF --> G[seven]\n")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(g.Layout(76).Text(), "\n")
	if rows := strings.Count(text, "\n") + 1; rows != 7*3+6 {
		t.Errorf("%d rows, want %d:\n%s", rows, 7*3+6, text)
	}
	if n := strings.Count(text, "▼"); n != 6 {
		t.Errorf("%d arrows, want 6:\n%s", n, text)
	}
	// Each edge's last stretch has a length, so its arrowhead points down.
	for _, m := range regexp.MustCompile(`points="([^"]+)"`).FindAllStringSubmatch(g.Layout(76).SVG("c"), -1) {
		pts := strings.Fields(m[1])
		if len(pts) < 2 || pts[len(pts)-1] == pts[len(pts)-2] {
			t.Errorf("an edge ends in a stretch of no length: %s", m[1])
		}
	}
	// A labelled edge keeps its room.
	g, _ = Parse("flowchart TD\nA[one] -->|go| B[two]\n")
	if text := g.Layout(76).Text(); !strings.Contains(text, "go") {
		t.Errorf("label lost:\n%s", text)
	}
}
