package timeline

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const MiB = 1 << 20

// hand are traces written by hand, as the library would send them.
func hand() map[string][]Event {
	var t uint64
	at := func(e Event) Event { t += 1500; e.T = t; return e }
	seq := func(es ...Event) []Event {
		t = 0
		out := make([]Event, len(es))
		for i, e := range es {
			if e.Kind == KindName {
				e.T = t
				out[i] = e
				continue
			}
			out[i] = at(e)
			if e.Kind == KindHostWait {
				t += e.A
			}
		}
		return out
	}
	return map[string][]Event{
		// Stream 1 allocates and fills; stream 2 waits on an event before
		// it reads; the free is ordered after stream 2's use.
		"pipeline": seq(
			Event{Kind: KindAlloc, Stream: 1, A: 0x1000, B: 4 * MiB, C: 1},
			Name(0, "produce"),
			Event{Kind: KindLaunch, Stream: 1, A: 0},
			Event{Kind: KindRecord, Stream: 1, A: 0xe1},
			Event{Kind: KindWait, Stream: 2, A: 0xe1},
			Name(1, "consume"),
			Event{Kind: KindLaunch, Stream: 2, A: 1},
			Event{Kind: KindRecord, Stream: 2, A: 0xe2},
			Event{Kind: KindWait, Stream: 1, A: 0xe2},
			Event{Kind: KindFree, Stream: 1, A: 0x1000, B: 4 * MiB, C: 1},
			Event{Kind: KindHostWait, Flags: WaitDevice, Stream: -1, A: 2_000_000},
		),
		// The same without the event: stream 2 reads before the
		// allocation on stream 1 is ordered before it.
		"race": seq(
			Event{Kind: KindAlloc, Stream: 1, A: 0x1000, B: 4 * MiB, C: 1},
			Name(0, "produce"),
			Event{Kind: KindLaunch, Stream: 1, A: 0},
			Name(1, "consume"),
			Event{Kind: KindLaunch, Stream: 2, A: 1},
			Event{Kind: KindFinding, Flags: FindUse, Stream: -1, A: 5, B: 1, C: 4 * MiB},
			Event{Kind: KindFree, Stream: 1, A: 0x1000, B: 4 * MiB, C: 1},
			Event{Kind: KindFinding, Flags: FindFree, Stream: -1, A: 7, B: 1, C: 4 * MiB},
			Event{Kind: KindHostWait, Flags: WaitDevice, Stream: -1, A: 1_000_000},
		),
		// A host wait in each turn of a loop: the stream sits idle while
		// the host waits, and the pool hands the same block back.
		"hostloop": func() []Event {
			var es []Event
			es = append(es, Name(0, "step"))
			for i := 0; i < 4; i++ {
				es = append(es,
					Event{Kind: KindAlloc, Stream: 1, A: 0x2000, B: MiB, C: 1},
					Event{Kind: KindLaunch, Stream: 1, A: 0},
					Event{Kind: KindFree, Stream: 1, A: 0x2000, B: MiB, C: uint64(len(es)) + 1},
					Event{Kind: KindHostWait, Flags: WaitStream, Stream: 1, A: 300_000})
			}
			return seq(es...)
		}(),
		// A pool that grows: four buffers live at once on one stream, a
		// kernel on each (timed on the GPU: ranFor adds the times), the
		// frees, a host wait that gives the memory back (the threshold is
		// 0), then a trim.
		"poolgrowth": ranFor(seq(
			Name(0, "grow"),
			Event{Kind: KindAlloc, Stream: 1, A: 0x10000, B: 8 * MiB, C: 1},
			Event{Kind: KindPool, Stream: 0, A: 32 * MiB, B: 8 * MiB},
			Event{Kind: KindLaunch, Stream: 1, A: 0},
			Event{Kind: KindAlloc, Stream: 1, A: 0x20000, B: 8 * MiB, C: 1},
			Event{Kind: KindPool, Stream: 0, A: 32 * MiB, B: 16 * MiB},
			Event{Kind: KindLaunch, Stream: 1, A: 0},
			Event{Kind: KindAlloc, Stream: 1, A: 0x30000, B: 8 * MiB, C: 1},
			Event{Kind: KindPool, Stream: 0, A: 32 * MiB, B: 24 * MiB},
			Event{Kind: KindLaunch, Stream: 1, A: 0},
			Event{Kind: KindAlloc, Stream: 1, A: 0x40000, B: 16 * MiB, C: 1},
			Event{Kind: KindPool, Stream: 0, A: 64 * MiB, B: 40 * MiB},
			Event{Kind: KindLaunch, Stream: 1, A: 0},
			Event{Kind: KindFree, Stream: 1, A: 0x10000, B: 8 * MiB},
			Event{Kind: KindFree, Stream: 1, A: 0x20000, B: 8 * MiB},
			Event{Kind: KindFree, Stream: 1, A: 0x30000, B: 8 * MiB},
			Event{Kind: KindFree, Stream: 1, A: 0x40000, B: 16 * MiB},
			Event{Kind: KindPool, Stream: 0, A: 64 * MiB, B: 0},
			Event{Kind: KindHostWait, Flags: WaitStream, Stream: 1, A: 400_000},
			Event{Kind: KindPool, Stream: 0, A: 0, B: 0},
			Event{Kind: KindTrim, Stream: -1, A: 0},
		)),
		// A graph launched three times, then a trim; one buffer leaks.
		"graph": seq(
			Event{Kind: KindThreshold, Stream: -1, A: 64 * MiB},
			Event{Kind: KindAlloc, Stream: 0, A: 0x9000, B: 256 * 1024},
			Event{Kind: KindGraph, Stream: 1, A: 3, B: 1},
			Event{Kind: KindGraph, Stream: 1, A: 3, B: 1},
			Event{Kind: KindGraph, Stream: 1, A: 3, B: 1},
			Event{Kind: KindHostWait, Flags: WaitStream, Stream: 1, A: 50_000},
			Event{Kind: KindTrim, Stream: -1, A: 0},
			Event{Kind: KindFinding, Flags: FindLeak, Stream: -1, A: 2},
		),
	}
}

// ranFor adds the GPU's times of each launch, as the library sends them
// at its end: each kernel starts 1 us after its launch and runs 40 us
// (the later ones queued behind the earlier on their stream).
func ranFor(es []Event) []Event {
	var free uint64
	out := append([]Event(nil), es...)
	last := es[len(es)-1].T
	for i, e := range es {
		if e.Kind != KindLaunch {
			continue
		}
		start := max(e.T+1000, free)
		free = start + 40_000
		out = append(out, Event{T: last, Kind: KindRan, Stream: e.Stream, A: uint64(i) + 1, B: start, C: free})
	}
	return out
}

// fixed makes the "C" field of frees point at their allocation, as the
// library does.
func fixed(es []Event) []Event {
	out := append([]Event(nil), es...)
	live := map[uint64]int{}
	for i, e := range out {
		switch e.Kind {
		case KindAlloc:
			live[e.A] = i
		case KindFree:
			if j, ok := live[e.A]; ok {
				out[i].C = uint64(j) + 1
				delete(live, e.A)
			}
		}
	}
	return out
}

func traces(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for name, es := range hand() {
		out[name] = Encode(fixed(es))
	}
	// Traces the library itself sent (LESSONS_STATS_TRACE=1): stub-* over
	// the stand-in runtime of kernels/testdata/stub, the others on the GPU
	// machine (testdata/gpu/record.sh).
	files, _ := filepath.Glob(filepath.Join("testdata", "recorded", "*.trace"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["recorded-"+strings.TrimSuffix(filepath.Base(f), ".trace")] = b
	}
	return out
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}

func TestTextGolden(t *testing.T) {
	for name, b := range traces(t) {
		tl, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range []int{60, 80, 120} {
			t.Run(fmt.Sprintf("%s-%d", name, w), func(t *testing.T) {
				got := Text(tl, TextOptions{Width: w})
				for i, line := range strings.Split(got, "\n") {
					if n := len([]rune(line)); n > w {
						t.Errorf("line %d is %d columns, wider than %d: %q", i, n, w, line)
					}
				}
				golden(t, filepath.Join("testdata", fmt.Sprintf("%s.%d.txt", name, w)), []byte(got))
			})
		}
	}
}

func TestRaceIsTiedToItsEvents(t *testing.T) {
	tl, err := Parse(Encode(fixed(hand()["race"])))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Findings) != 2 {
		t.Fatalf("findings: %+v", tl.Findings)
	}
	use := tl.Findings[0]
	if tl.Events[use.At].Kind != KindLaunch || tl.Events[use.At].Stream != 2 || tl.Events[use.With].Kind != KindAlloc {
		t.Errorf("the use is tied to %+v and %+v", tl.Events[use.At], tl.Events[use.With])
	}
	s := tl.Sentence(use)
	for _, want := range []string{"kernel consume on stream 2", "4 MiB", "stream 1", "Stream-ordered allocation"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence %q lacks %q", s, want)
		}
	}
	if got := Text(tl, TextOptions{Width: 80, Color: true}); !strings.Contains(got, "\x1b[31m") {
		t.Error("findings are not red in color")
	}
}

func TestPipelineEdgesAndReuse(t *testing.T) {
	tl, _ := Parse(Encode(fixed(hand()["pipeline"])))
	if len(tl.Edges) != 2 || tl.Edges[0].From != 1 || tl.Edges[0].To != 2 || tl.Edges[1].From != 2 || tl.Edges[1].To != 1 {
		t.Errorf("edges: %+v", tl.Edges)
	}
	loop, _ := Parse(Encode(fixed(hand()["hostloop"])))
	if len(loop.Allocs) != 4 || loop.Allocs[3].Reuses != 2 || loop.Allocs[0].Reuses != -1 {
		t.Errorf("reuse: %+v", loop.Allocs)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string][]byte{
		"ragged":        make([]byte, 41),
		"unknown kind":  Encode([]Event{{Kind: 99}}),
		"forward ref":   Encode([]Event{{Kind: KindFinding, Flags: FindLeak, A: 5}}),
		"self free":     Encode([]Event{{Kind: KindFree, C: 1}}),
		"bad stream":    Encode([]Event{{Kind: KindLaunch, Stream: -7}}),
		"bad finding":   Encode([]Event{{Kind: KindAlloc}, {Kind: KindFinding, Flags: 9, A: 1}}),
		"ran no launch": Encode([]Event{{Kind: KindAlloc, Stream: 1}, {Kind: KindRan, Stream: 1, A: 1, B: 1, C: 2}}),
		"ran backwards": Encode([]Event{{Kind: KindLaunch, Stream: 1}, {Kind: KindRan, Stream: 1, A: 1, B: 5, C: 2}}),
		"ran ahead":     Encode([]Event{{Kind: KindRan, Stream: 1, A: 2, B: 1, C: 2}, {Kind: KindLaunch, Stream: 1}}),
	}
	for name, b := range cases {
		if _, err := Parse(b); err == nil {
			t.Errorf("%s: parsed", name)
		} else if !strings.HasPrefix(err.Error(), "read the run's trace") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCutIsSaid(t *testing.T) {
	tl, err := Parse(Encode([]Event{{Kind: KindLaunch, Stream: 1}, {Kind: KindCut, Stream: -1, A: 12}}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(Text(tl, TextOptions{}), "cut: 12 events left out") {
		t.Error("a cut trace does not say so")
	}
}

func FuzzParse(f *testing.F) {
	for _, es := range hand() {
		f.Add(Encode(fixed(es)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tl, err := Parse(b)
		if err != nil {
			return
		}
		for _, w := range []int{1, 40, 80} {
			Text(tl, TextOptions{Width: w})
			SVG(tl, SVGOptions{})
		}
	})
}

func TestSVGGolden(t *testing.T) {
	for name, b := range traces(t) {
		tl, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Run(name, func(t *testing.T) {
			got := SVG(tl, SVGOptions{})
			if err := xml.Unmarshal([]byte(got), new(struct{})); err != nil {
				t.Fatalf("not well-formed: %v", err)
			}
			golden(t, filepath.Join("testdata", name+".svg"), []byte(got))
		})
	}
}

func TestSVGEscapesNames(t *testing.T) {
	tl, err := Parse(Encode([]Event{Name(0, "<script>x</script>"), {Kind: KindLaunch, Stream: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := SVG(tl, SVGOptions{}); strings.Contains(got, "<script") {
		t.Errorf("a kernel's name reached the SVG unescaped")
	}
}

func TestSVGThemes(t *testing.T) {
	tl, _ := Parse(Encode(fixed(hand()["race"])))
	for theme, bg := range map[string]string{"light": "#ffffff", "dark": "#14181d"} {
		got := SVG(tl, SVGOptions{Theme: theme})
		if strings.Contains(got, "var(--") || !strings.Contains(got, bg) {
			t.Errorf("%s: a picture on its own still names the page's variables, or lacks its background", theme)
		}
		golden(t, filepath.Join("testdata", "race."+theme+".svg"), []byte(got))
	}
}

func TestDiffGolden(t *testing.T) {
	race, _ := Parse(Encode(fixed(hand()["race"])))
	pipe, _ := Parse(Encode(fixed(hand()["pipeline"])))
	for _, w := range []int{80, 120} {
		got := Diff(race, pipe, [2]string{"your run", "the reference"}, TextOptions{Width: w})
		for i, line := range strings.Split(got, "\n") {
			if n := len([]rune(line)); n > w {
				t.Errorf("%d columns: line %d is %d wide: %q", w, i, n, line)
			}
		}
		if !strings.Contains(got, "≠ waits between streams") {
			t.Errorf("the difference that matters is not marked:\n%s", got)
		}
		golden(t, filepath.Join("testdata", fmt.Sprintf("diff.%d.txt", w)), []byte(got))
	}
}

// A kernel's name is the program's to choose: none of it reaches a
// terminal as a control.
func TestNamesCannotSteerATerminal(t *testing.T) {
	for _, name := range []string{"\x1b[2Jx", "\u009b31mx", "a\u202eb", "\x07\x08\x7f"} {
		tl, err := Parse(Encode([]Event{Name(0, name), {Kind: KindLaunch, Stream: 1}, {Kind: KindAlloc, Stream: 1, A: 1, B: 1}, {Kind: KindFinding, Flags: FindUse, A: 2, B: 3}}))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range Text(tl, TextOptions{Width: 200}) {
			if r != '\n' && (r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == '\u202e') {
				t.Errorf("%q: the drawing holds %U", name, r)
			}
		}
	}
}

// A trace at the library's cap draws in well under a second.
func TestAFullTraceDrawsQuickly(t *testing.T) {
	var es []Event
	for len(es)+3 < MaxEvents {
		n := uint64(len(es))
		es = append(es, Event{T: n, Kind: KindAlloc, Stream: 1, A: 0x1000 + n, B: 4096, C: 1},
			Event{T: n + 1, Kind: KindLaunch, Stream: 1},
			Event{T: n + 2, Kind: KindFree, Stream: 1, A: 0x1000 + n, B: 4096, C: n + 1})
	}
	tl, err := Parse(Encode(es))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Allocs) != MaxEvents/3 || tl.Allocs[len(tl.Allocs)-1].End < 0 {
		t.Fatalf("%d allocations", len(tl.Allocs))
	}
	Text(tl, TextOptions{})
	SVG(tl, SVGOptions{})
}

// A kernel's time on the GPU runs across the columns of the calls made
// meanwhile, into the host wait that waited for it; the pool's figures
// become the reserved and used bands.
func TestKernelsRanAndThePoolBand(t *testing.T) {
	tl, err := Parse(Encode(fixed(hand()["poolgrowth"])))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Ran) != 4 || len(tl.Pools) != 6 {
		t.Fatalf("%d launches timed, %d pool samples", len(tl.Ran), len(tl.Pools))
	}
	if r, u := tl.PoolPeak(); r != 64*MiB || u != 40*MiB {
		t.Errorf("pool peaks %s reserved, %s used", Bytes(r), Bytes(u))
	}
	l := tl.Place(200)
	var wait int
	for i, e := range tl.Events {
		if e.Kind == KindHostWait {
			wait = i
		}
	}
	// The last kernel ends 160 us after the first launch's start: in the
	// host wait (the frees came before it).
	last := -1
	for id := range tl.Ran {
		last = max(last, id)
	}
	c0, c1, ok := l.RanCols(last)
	if !ok || c0 < l.Col(last) || c1 <= c0 {
		t.Errorf("the last kernel ran over columns %d to %d (launched at %d)", c0, c1, l.Col(last))
	}
	if c1 < l.Col(wait) || c1 > l.EndCol(wait) {
		t.Errorf("the last kernel ends at column %d, not in the host wait's %d to %d", c1, l.Col(wait), l.EndCol(wait))
	}
	if got := l.ColAt(tl.Events[wait].T + tl.Events[wait].A/2); got <= l.Col(wait) || got >= l.EndCol(wait) {
		t.Errorf("half way through the wait is column %d, not between %d and %d", got, l.Col(wait), l.EndCol(wait))
	}
	text := Text(tl, TextOptions{Width: 80})
	for _, want := range []string{"reserved  |", "used      |", "K---", "pool up to 64 MiB"} {
		if !strings.Contains(text, want) {
			t.Errorf("the drawing lacks %q:\n%s", want, text)
		}
	}
	svg := SVG(tl, SVGOptions{})
	for _, want := range []string{`class="tl-run"`, `class="tl-reserved"`, `class="tl-used"`, "ran on the GPU for 40 us"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
}
