package render

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/cudalessons/lessons/internal/browsertest"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
)

// exported writes the course's site to a temporary folder and returns a
// function that makes the file:// address of one of its pages: the site
// must work from the files alone, with no server and no network.
func exported(t *testing.T) (*course.Course, func(page string) string) {
	t.Helper()
	c, err := course.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Export(c, dir); err != nil {
		t.Fatal(err)
	}
	return c, func(page string) string {
		return (&url.URL{Scheme: "file", Path: filepath.Join(dir, page)}).String()
	}
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%v: %s", err, expr)
	}
	return v
}

func TestBrowserSidebarAndSearch(t *testing.T) {
	c, page := exported(t)
	ctx := browsertest.New(t, browsertest.Options{})
	do(t, ctx, chromedp.Navigate(page("index.html")))
	lessons := js[[]string](t, ctx, `[...document.querySelectorAll("#sidebar .lessons > li > a")].map(a => a.getAttribute("href"))`)
	if len(lessons) != len(c.Lessons) {
		t.Fatalf("the sidebar lists %d lessons, want %d: %v", len(lessons), len(c.Lessons), lessons)
	}
	for i, e := range c.Lessons {
		if lessons[i] != e.Name()+".html" {
			t.Errorf("sidebar entry %d is %s, want %s", i, lessons[i], e.Name()+".html")
		}
	}

	// do_deallocate appears only in day 76: every hit is there.
	do(t, ctx, chromedp.Navigate(page("day068-memory-pools.html")),
		chromedp.SendKeys(chromedp.CSS("#search"), "do_deallocate"),
		chromedp.WaitVisible(chromedp.CSS("#search-results li")))
	hits := js[[]string](t, ctx, `[...document.querySelectorAll("#search-results li a")].map(a => a.getAttribute("href"))`)
	if len(hits) == 0 {
		t.Fatal("search for do_deallocate found nothing")
	}
	for _, h := range hits {
		if !strings.HasPrefix(h, "day076-") {
			t.Errorf("search for do_deallocate found %s", h)
		}
	}
	current := js[string](t, ctx, `document.querySelector("#sidebar [aria-current=page]").getAttribute("href")`)
	if current != "day068-memory-pools.html" {
		t.Errorf("the sidebar marks %q as current on day 68", current)
	}
}

// TestBrowserSearchServed: the same search works over HTTP, as lessons
// serve gives the site (the files of Site, served as they are).
func TestBrowserSearchServed(t *testing.T) {
	c, err := course.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	site, err := Site(c)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		b, ok := site[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
		w.Write(b)
	}))
	defer srv.Close()
	ctx := browsertest.New(t, browsertest.Options{})
	do(t, ctx, chromedp.Navigate(srv.URL+"/index.html"),
		chromedp.SendKeys(chromedp.CSS("#search"), "do_deallocate"),
		chromedp.WaitVisible(chromedp.CSS("#search-results li")))
	hits := js[[]string](t, ctx, `[...document.querySelectorAll("#search-results li a")].map(a => a.getAttribute("href"))`)
	if len(hits) == 0 || !strings.HasPrefix(hits[0], "day076-") {
		t.Errorf("served search for do_deallocate found %v", hits)
	}
}

func TestBrowserCopy(t *testing.T) {
	_, page := exported(t)
	ctx := browsertest.New(t, browsertest.Options{})
	do(t, ctx, chromedp.Navigate(page("day069-stream-ordered.html")))
	code := js[string](t, ctx, `document.querySelector(".cell pre").innerText.replace(/\n$/, "")`)
	do(t, ctx, chromedp.Click(chromedp.CSS(".cell button.copy")))
	copied, err := chromedp.Run(ctx, chromedp.Poll[string](`window.lessonsLastCopy`))
	if err != nil {
		t.Fatal(err)
	}
	if copied != code || !strings.Contains(code, "cudaMallocAsync") {
		t.Errorf("copied %q, want the cell's code %q", copied[:min(60, len(copied))], code[:min(60, len(code))])
	}
}

// contrastJS computes, for every highlighted token of every code block,
// the WCAG contrast of its color against its block's background, and
// returns the lowest with the token.
const contrastJS = `(() => {
  const rgb = s => s.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  let worst = { ratio: 99, text: "" };
  for (const pre of document.querySelectorAll("pre.chroma")) {
    const bg = lum(rgb(getComputedStyle(pre).backgroundColor));
    for (const el of [pre.querySelector("code"), ...pre.querySelectorAll("span")]) {
      if (!el || !el.textContent.trim()) continue;
      const fg = lum(rgb(getComputedStyle(el).color));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      if (ratio < worst.ratio) worst = { ratio, text: el.textContent.slice(0, 30) + " (" + el.className + ")" };
    }
  }
  return worst;
})()`

func TestBrowserThemeContrast(t *testing.T) {
	_, page := exported(t)
	ctx := browsertest.New(t, browsertest.Options{})
	for _, theme := range []string{"dark", "light"} {
		do(t, ctx, chromedp.Navigate(page("day076-memory-resources.html")))
		js[any](t, ctx, fmt.Sprintf(`localStorage.setItem("lessons-theme", %q)`, theme))
		do(t, ctx, chromedp.Reload())
		set := js[string](t, ctx, `document.documentElement.getAttribute("data-theme")`)
		worst := js[struct {
			Ratio float64 `json:"ratio"`
			Text  string  `json:"text"`
		}](t, ctx, contrastJS)
		if set != theme {
			t.Errorf("the theme chosen (%s) is not remembered: the page has %q", theme, set)
		}
		// The switch flips it, and the next page keeps the flip.
		do(t, ctx, chromedp.Click(chromedp.CSS("#theme-toggle")), chromedp.Navigate(page("index.html")))
		if got := js[string](t, ctx, `document.documentElement.getAttribute("data-theme")`); got == theme {
			t.Errorf("after the switch from %s the next page is still %s", theme, got)
		}
		if worst.Ratio < 4.5 {
			t.Errorf("%s theme: code %q has contrast %.2f:1 to its background, want at least 4.5:1", theme, worst.Text, worst.Ratio)
		}
	}
}

func TestBrowserNarrow(t *testing.T) {
	c, page := exported(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 400, Height: 800})
	// A headless window may be kept wider than asked (500 px at least on
	// some builds): the viewport is set to 400 px itself.
	do(t, ctx, chromedp.EmulateViewport(400, 800))
	if w := js[int](t, ctx, `window.innerWidth`); w != 400 {
		t.Fatalf("the page is %d px wide, want 400", w)
	}
	for _, name := range append([]string{"index.html"}, names(c)...) {
		do(t, ctx, chromedp.Navigate(page(name)))
		over := js[[]string](t, ctx, `(() => {
  const w = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth > w) out.push("page " + document.documentElement.scrollWidth);
  for (const el of document.querySelectorAll("main *")) {
    const r = el.getBoundingClientRect();
    if (r.right > w + 1 && !el.closest("pre, figure, table")) out.push(el.tagName + "." + el.className + " " + r.right);
  }
  return out.slice(0, 5);
})()`)
		if len(over) > 0 {
			t.Errorf("%s at 400 px overflows: %v", name, over)
		}
	}
}

func TestBrowserDiagrams(t *testing.T) {
	c, page := exported(t)
	ctx := browsertest.New(t, browsertest.Options{})
	for _, e := range c.Lessons {
		do(t, ctx, chromedp.Navigate(page(e.Name()+".html")))
		svgs := js[[]struct {
			Name  string `json:"name"`
			Edges int    `json:"edges"`
		}](t, ctx, `[...document.querySelectorAll("svg:not(.narrow)")].map(s => ({
  name: (s.getAttribute("aria-labelledby") || "").split(" ").map(id => (document.getElementById(id) || {}).textContent || "").join(" ").trim() || s.getAttribute("aria-label") || "",
  edges: s.querySelectorAll("polyline.edge").length}))`)
		dup := js[int](t, ctx, `(() => { const seen = {}; let d = 0; for (const el of document.querySelectorAll("[id]")) { if (seen[el.id]) d++; seen[el.id] = 1; } return d; })()`)
		if dup > 0 {
			t.Errorf("%s: %d ids repeated", e.Name(), dup)
		}
		l, err := c.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, cell := range l.Cells {
			if cell.Kind == lesson.Diagram {
				g, err := mermaid.Parse(cell.Text)
				if err == nil {
					want = append(want, len(g.Edges))
				}
			}
		}
		if len(svgs) != len(want) {
			t.Fatalf("%s: %d SVGs for %d diagrams", e.Name(), len(svgs), len(want))
		}
		for i, s := range svgs {
			if s.Name == "" {
				t.Errorf("%s: diagram %d has no accessible name", e.Name(), i+1)
			}
			if s.Edges != want[i] {
				t.Errorf("%s: diagram %d draws %d edges of %d", e.Name(), i+1, s.Edges, want[i])
			}
		}
	}
}

func names(c *course.Course) []string {
	var out []string
	for _, e := range c.Lessons {
		out = append(out, e.Name()+".html")
	}
	return out
}

// emulateMedia sets the CSS media type ("print", or "" for the screen) and
// the system's color scheme the page sees.
func emulateMedia(media, scheme string) chromedp.Action[chromedp.Void] {
	p := emulation.SetEmulatedMediaParams{Media: media, Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p)
		return err
	})
}

// TestBrowserPrintAndSystemTheme: with no choice stored, the page follows
// the system's scheme; printed, it shows the lesson without the sidebar,
// the header, the copy buttons or the prev/next links.
func TestBrowserPrintAndSystemTheme(t *testing.T) {
	_, page := exported(t)
	ctx := browsertest.New(t, browsertest.Options{})
	for _, scheme := range []string{"dark", "light"} {
		do(t, ctx, emulateMedia("", scheme), chromedp.Navigate(page("day087-device-allocator.html")))
		if got := js[string](t, ctx, `document.documentElement.getAttribute("data-theme")`); got != scheme {
			t.Errorf("system scheme %s: the page is %s", scheme, got)
		}
	}
	do(t, ctx, emulateMedia("print", "light"))
	hidden := js[[]string](t, ctx, `["header.top", "#sidebar", "nav.bottom", "button.copy"].filter(s => { const el = document.querySelector(s); return !el || getComputedStyle(el).display !== "none"; })`)
	if len(hidden) > 0 {
		t.Errorf("printed, these still show: %v", hidden)
	}
	if js[string](t, ctx, `getComputedStyle(document.querySelector("main")).display`) == "none" {
		t.Error("printed, the lesson itself is hidden")
	}
}

// shot saves a screenshot of sel where $LESSONS_SCREENSHOTS names a
// folder, to be looked at; the tests check what the eye would (sizes,
// contrast, overflow) from the page itself.
func shot(t *testing.T, ctx context.Context, sel, name string) {
	t.Helper()
	dir := os.Getenv("LESSONS_SCREENSHOTS")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// diagramsJS measures every diagram shown: its text's size on the screen
// (14 px in the SVG, scaled as the SVG is) and whether its figure must
// scroll to show it whole.
const diagramsJS = `[...document.querySelectorAll("figure.diagram")].map(f => {
  const s = [...f.querySelectorAll("svg")].find(s => getComputedStyle(s).display !== "none");
  if (!s) return { id: f.id, shown: 0 };
  const r = s.getBoundingClientRect(), fr = f.getBoundingClientRect();
  return { id: f.id, shown: 1, narrow: s.classList.contains("narrow") ? 1 : 0,
    px: 14 * r.width / s.viewBox.baseVal.width, cut: f.scrollWidth > f.clientWidth + 1 || r.right > fr.right + 1 ? 1 : 0 };
})`

type shownDiagram struct {
	ID     string  `json:"id"`
	Shown  int     `json:"shown"`
	Narrow int     `json:"narrow"`
	Px     float64 `json:"px"`
	Cut    int     `json:"cut"`
}

// TestBrowserDiagramsNarrow: on a 400 px screen every diagram's text is
// 10 px or more and nothing of it is cut off at its figure's edge (day
// 76's was 7 px, its right-hand box cut); where the wide drawing would
// shrink past that, the narrow one is shown. On a wide screen the wide one.
func TestBrowserDiagramsNarrow(t *testing.T) {
	c, page := exported(t)
	for _, width := range []int{400, 1280} {
		ctx := browsertest.New(t, browsertest.Options{Width: width, Height: 900})
		do(t, ctx, chromedp.EmulateViewport(int64(width), 900))
		for _, name := range names(c) {
			do(t, ctx, chromedp.Navigate(page(name)))
			ds := js[[]shownDiagram](t, ctx, diagramsJS)
			for _, d := range ds {
				if d.Shown == 0 {
					t.Errorf("%s at %d px: %s shows no drawing", name, width, d.ID)
					continue
				}
				if d.Px < 10 {
					t.Errorf("%s at %d px: %s's text is %.1f px, under 10", name, width, d.ID, d.Px)
				}
				if d.Cut == 1 {
					t.Errorf("%s at %d px: %s is cut off at its figure's edge", name, width, d.ID)
				}
				if width == 1280 && d.Narrow == 1 {
					t.Errorf("%s at %d px: %s shows its narrow drawing", name, width, d.ID)
				}
			}
			if len(ds) > 0 {
				shot(t, ctx, "figure.diagram", fmt.Sprintf("%s-%d", strings.TrimSuffix(name, ".html"), width))
			}
		}
	}
}
