package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cudalessons/lessons/internal/browsertest"
	"github.com/cudalessons/lessons/internal/timeline"
)

// timelineChecker gives a verdict with the timeline of a race, as the
// page's Check does (Pictures).
type timelineChecker struct {
	siteChecker
	tl *Timeline
}

func (s timelineChecker) Check(ctx context.Context, id string) (*Verdict, error) {
	return &Verdict{Exercise: id, Checks: []CheckResult{{Name: "no stream-ordering race", Want: "0", Got: "1"}}, Timeline: s.tl}, nil
}

func raceTimeline(t *testing.T) *Timeline {
	tl, err := timeline.Parse(timeline.Encode([]timeline.Event{
		{T: 1000, Kind: timeline.KindAlloc, Stream: 1, A: 0x1000, B: 4 << 20, C: 1},
		timeline.Name(0, "produce"),
		{T: 2000, Kind: timeline.KindLaunch, Stream: 1, A: 0},
		timeline.Name(1, "consume</script><img src=x onerror=alert(1)>"),
		{T: 3000, Kind: timeline.KindLaunch, Stream: 2, A: 1},
		{T: 3000, Kind: timeline.KindFinding, Flags: timeline.FindUse, Stream: -1, A: 5, B: 1, C: 4 << 20},
		{T: 4000, Kind: timeline.KindFree, Stream: 1, A: 0x1000, B: 4 << 20, C: 1},
		{T: 5000, Kind: timeline.KindHostWait, Flags: timeline.WaitDevice, Stream: -1, A: 900000},
	}))
	if err != nil {
		t.Fatal(err)
	}
	return &Timeline{Light: timeline.SVG(tl, timeline.SVGOptions{Theme: "light"}), Dark: timeline.SVG(tl, timeline.SVGOptions{Theme: "dark"}), Summary: tl.Summary()}
}

// TestBrowserTimelineUnderAVerdict: a Check's verdict shows the run's
// timeline as a picture, the one of the page's theme, that fits a phone's
// width; a kernel's name in it runs nothing.
func TestBrowserTimelineUnderAVerdict(t *testing.T) {
	tl := raceTimeline(t)
	_, url := siteCourse(t, func(s siteChecker) Checker { return timelineChecker{s, tl} })
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 2 * time.Minute})}
	dir := os.Getenv("LESSONS_SCREENSHOTS")
	for _, width := range []int{1000, 400} {
		for _, theme := range []string{"light", "dark"} {
			p.do("viewport", chromedp.EmulateViewport(int64(width), 900))
			p.do("open", chromedp.Navigate(withToken(url)))
			p.eval(fmt.Sprintf(`localStorage.setItem("lessons-theme", %q), ""`, theme))
			p.do("reload", chromedp.Reload())
			p.wait("Check", `!!document.querySelector('.exercise button.check')`)
			p.click(`.exercise button.check`)
			p.wait("the timeline", `(img => img && img.complete && img.naturalWidth > 0)(document.querySelector(".timeline img.timeline-`+theme+`"))`)
			shown := p.eval(`[...document.querySelectorAll(".timeline img")].filter(i => i.getClientRects().length > 0).map(i => i.className).join(",")`)
			if shown != "timeline-"+theme {
				t.Errorf("%d px, %s: pictures shown %q, want only the %s one", width, theme, shown, theme)
			}
			// Readable: never drawn under 600 px wide (on a phone it
			// scrolls in its box), and the page itself never scrolls
			// sideways for it.
			if got := p.eval(`(i => String(Math.round(i.getBoundingClientRect().width) >= 600) + " " + String(document.documentElement.scrollWidth <= document.documentElement.clientWidth))(document.querySelector(".timeline img.timeline-` + theme + `"))`); got != "true true" {
				t.Errorf("%d px, %s: picture readable and page not widened: %s", width, theme, got)
			}
			if alt := p.eval(`document.querySelector(".timeline img").alt`); !strings.Contains(alt, "1 finding") {
				t.Errorf("the picture's words: %q", alt)
			}
			if dir != "" {
				if buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)); err == nil {
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("timeline-%s-%d.png", theme, width)), buf, 0o644)
				}
			}
		}
	}
	if n := p.eval(`String(document.querySelectorAll("main img[src='x'], main svg").length)`); n != "0" {
		t.Errorf("the kernel's name became %s elements of the page", n)
	}
}

// TestBrowserCellTimeline: with the notebook's Timelines toggle on, a
// cell's run shows the timeline of the CUDA program it ran under its
// output (the trace the library sent over the stand-in runtime), the
// picture of the page's theme, readable at a phone's width without
// widening the page; with the toggle off, none.
func TestBrowserCellTimeline(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	trace, _ := filepath.Abs("../timeline/testdata/recorded/stub-race.trace")
	t.Setenv("TIMELINE_TRACE", trace)
	srv, url := siteCourseOf(t, "# Day 1: A\n\nA lesson.\n\n```cuda file=p.cu\n// fake: echo the program ran\n// fake: TIMELINE_HELPER=1 "+exe+" -test.run=TestHelperSendsATrace\nint main() {}\n```\n\n"+
		"```sh run\nnvcc -o p p.cu && ./p\n```\n")
	// The C library stands in for the statistics library: preloading it
	// changes nothing and makes the loader say nothing.
	lib := "libc.so.6"
	srv.nb.Library = func(context.Context) (string, error) { return lib, nil }
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 2 * time.Minute})}
	dir := os.Getenv("LESSONS_SCREENSHOTS")
	run := `document.querySelector('.cell[data-cell="2"] .cell-tools button.run').click(), ""`
	for _, width := range []int{1000, 400} {
		for _, theme := range []string{"light", "dark"} {
			p.do("viewport", chromedp.EmulateViewport(int64(width), 900))
			p.do("open", chromedp.Navigate(withToken(url)))
			p.eval(fmt.Sprintf(`localStorage.setItem("lessons-theme", %q), localStorage.setItem("lessons-timelines", "1"), ""`, theme))
			p.do("reload", chromedp.Reload())
			p.wait("the toggle", `!!document.querySelector('.timeline-toggle input') && document.querySelector('.timeline-toggle input').checked`)
			p.eval(run)
			p.wait("the timeline", `(img => img && img.complete && img.naturalWidth > 0)(document.querySelector('.cell[data-cell="2"] .cell-timelines img.timeline-`+theme+`'))`)
			if got := p.eval(`document.querySelector('.cell[data-cell="2"] .cell-output').textContent.includes("the program ran") ? "yes" : "no"`); got != "yes" {
				t.Errorf("the cell's output is gone: %s", got)
			}
			if got := p.eval(`(i => String(Math.round(i.getBoundingClientRect().width) >= 600) + " " + String(document.documentElement.scrollWidth <= document.documentElement.clientWidth))(document.querySelector('.cell-timelines img.timeline-` + theme + `'))`); got != "true true" {
				t.Errorf("%d px, %s: picture readable and page not widened: %s", width, theme, got)
			}
			if dir != "" {
				if buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)); err == nil {
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("cell-timeline-%s-%d.png", theme, width)), buf, 0o644)
				}
			}
		}
	}
	// Off: the run shows its output alone.
	p.eval(`document.querySelector('.timeline-toggle input').click(), ""`)
	p.eval(run)
	p.wait("the run's end", `document.querySelector('.cell[data-cell="2"] .cell-status').className.includes("ok")`)
	if n := p.eval(`String(document.querySelectorAll('.cell-timelines img').length)`); n != "0" {
		t.Errorf("with the toggle off, %s pictures", n)
	}
	// A server that cannot trace (the class server's) shows no toggle.
	srv.nb.Library = nil
	p.do("reload", chromedp.Reload())
	p.wait("the cells' tools", `!!document.querySelector('.cell-tools button.run')`)
	if n := p.eval(`String(document.querySelectorAll('.timeline-toggle').length)`); n != "0" {
		t.Errorf("a server that cannot trace shows %s toggles", n)
	}
}
