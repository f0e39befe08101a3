package serve

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/cudalessons/lessons/internal/browsertest"
	coursepkg "github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/runner"
)

// siteChecker lists the course's exercises as the page's Check does.
type siteChecker struct{ c *coursepkg.Course }

func (s siteChecker) Exercises(page string) ([]Exercise, error) {
	var out []Exercise
	for _, x := range s.c.Exercises {
		out = append(out, Exercise{ID: x.ID, Student: x.Student})
	}
	return out, nil
}
func (s siteChecker) Files() map[string][]string { return nil }
func (s siteChecker) Check(ctx context.Context, id string) (*Verdict, error) {
	return &Verdict{Exercise: id, Checks: []CheckResult{{Name: "runs to the end", Pass: true}}}, nil
}

// siteCourse serves a course's real site (render.Site: its style sheet
// and theme script) with the notebook and Check, as lessons serve does.
func siteCourse(t *testing.T, wrap ...func(siteChecker) Checker) (*Server, string) {
	long := strings.Repeat("x", 30)
	return siteCourseOf(t, "# Day 1: A\n\nA lesson.\n\n```cuda file=long.cu\n// fake: echo the output of a cell\nint main() { int "+long+" = 1, y"+long+" = 2, z"+long+" = 3; return 0; }\n```\n\n"+
		"```sh run\nnvcc -o long long.cu && ./long\n```\n", wrap...)
}

// siteCourseOf is siteCourse with md as its one lesson.
func siteCourseOf(t *testing.T, md string, wrap ...func(siteChecker) Checker) (*Server, string) {
	root := coursetest.Tiny(t, []string{"pool-reuse"}, map[string]string{"lessons/day001-a.md": md})
	c, err := coursepkg.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(fakeNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := newServer(func() (map[string][]byte, error) { return render.Site(c) })
	srv.SetNotebook(&Notebook{
		Lesson: func(page string) (*lesson.Lesson, string, error) {
			l, err := c.Parse(c.Lessons[0])
			return l, filepath.Join(root, "work", page), err
		},
		Env:     func(ws string) (notebook.Env, error) { return notebook.Env{Runner: runner.Exec{}, Wrapper: bin}, nil },
		Timeout: time.Minute,
	})
	if len(wrap) > 0 {
		srv.SetChecker(wrap[0](siteChecker{c}))
	} else {
		srv.SetChecker(siteChecker{c})
	}
	if err := srv.Rebuild(); err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv)
	t.Cleanup(h.Close)
	return srv, h.URL + "/" + c.Lessons[0].Name() + ".html"
}

// contrastsJS is the lowest WCAG contrast of the notebook's text (cell
// output and status, the exercises, the buttons) against the background
// it is drawn on, with the element.
const contrastsJS = `(() => {
  const rgba = s => (s.match(/[\d.]+/g) || [0, 0, 0, 0]).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bg = el => { for (; el; el = el.parentElement) { const c = rgba(getComputedStyle(el).backgroundColor); if (c.length < 4 || c[3] > 0) return c; } return [255, 255, 255]; };
  let worst = { ratio: 99, what: "" };
  for (const el of document.querySelectorAll(".cell-output, .cell-status, .exercise, .exercise code, .cell-tools button, .notebook-bar button, .exercise button, .cell-editor")) {
    if (!el.textContent.trim() && el.tagName !== "TEXTAREA") continue;
    const a = lum(rgba(getComputedStyle(el).color)), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < worst.ratio) worst = { ratio, what: el.tagName + "." + el.className + " " + getComputedStyle(el).color + " on " + bg(el).join(",") };
  }
  return worst;
})()`

func colorScheme(s string) chromedp.Action[chromedp.Void] {
	p := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}}
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p)
		return err
	})
}

// TestBrowserServedPage: the served page as a student sees it. The ◐
// choice drives the notebook's colours too, whatever the system's scheme
// (cell output was near invisible in dark chosen on a light system): the
// notebook's text has a contrast of 4.5:1 or more in every case. The
// exercises are listed once, with Check on the lesson's own list; buttons
// are styled as the site's; the editor does not soft-wrap code; and at
// 400 px an exercise's name is never broken at its hyphen.
func TestBrowserServedPage(t *testing.T) {
	_, url := siteCourse(t)
	p := &page{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 2 * time.Minute})}
	dir := os.Getenv("LESSONS_SCREENSHOTS")
	for _, system := range []string{"light", "dark"} {
		for _, chosen := range []string{"light", "dark"} {
			p.do("system scheme", colorScheme(system))
			p.do("open", chromedp.Navigate(withToken(url)))
			p.eval(fmt.Sprintf(`localStorage.setItem("lessons-theme", %q), ""`, chosen))
			p.do("reload", chromedp.Reload())
			p.wait("Run", `!!document.querySelector('.cell[data-cell="2"] button.run')`)
			p.click(`.cell[data-cell="2"] button.run`)
			p.wait("the cell's output", out(2)+`.includes("the output of a cell")`)
			p.wait("Check", `!!document.querySelector('.exercise button.check')`)
			if got := p.eval(`document.documentElement.dataset.theme`); got != chosen {
				t.Errorf("system %s, chosen %s: the page is %s", system, chosen, got)
			}
			worst := js[struct {
				Ratio float64 `json:"ratio"`
				What  string  `json:"what"`
			}](t, p.ctx, contrastsJS)
			if worst.Ratio < 4.5 {
				t.Errorf("system %s, chosen %s: %s has contrast %.2f:1, want 4.5:1 or more", system, chosen, worst.What, worst.Ratio)
			}
			if dir != "" {
				buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
				if err == nil {
					os.WriteFile(filepath.Join(dir, "served-"+system+"-"+chosen+".png"), buf, 0o644)
				}
			}
		}
	}

	// Listed once: the lesson's box, with Check in it.
	if n := p.eval(`String([...document.querySelectorAll("main li")].filter(li => li.textContent.includes("pool-reuse")).length) + " " + document.querySelectorAll("section.exercises").length`); n != "1 1" {
		t.Errorf("the exercise is listed in %s list items and sections, want 1 1", n)
	}
	// Buttons look like the site's: a border with round corners, the
	// panel's colour, not the browser's grey.
	if b := p.eval(`(s => s.borderTopLeftRadius + " " + s.backgroundColor + " " + s.borderTopStyle)(getComputedStyle(document.querySelector(".cell-tools button.run")))`); !strings.HasPrefix(b, "6px ") || strings.Contains(b, "rgb(239, 239, 239)") || strings.Contains(b, "rgb(240, 240, 240)") {
		t.Errorf("Run is drawn %q, want the site's button", b)
	}
	// The editor scrolls a long line, never wraps it.
	p.click(`.cell[data-cell="1"] button.edit`)
	p.wait("the editor", `!!document.querySelector('.cell[data-cell="1"] textarea')`)
	if got := p.eval(`(ta => getComputedStyle(ta).whiteSpace + " " + (ta.scrollWidth > ta.clientWidth))(document.querySelector(".cell-editor"))`); got != "pre true" {
		t.Errorf("the editor: white-space and overflow %q, want pre true (no soft wrap)", got)
	}

	// At 400 px the name stays whole.
	p.do("narrow", chromedp.EmulateViewport(400, 800))
	p.do("reload", chromedp.Reload())
	p.wait("Check", `!!document.querySelector('.exercise button.check')`)
	if n := p.eval(`String(document.querySelector(".exercise-id").getClientRects().length)`); n != "1" {
		t.Errorf("at 400 px pool-reuse is drawn on %s lines", n)
	}
	if dir != "" {
		buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
		if err == nil {
			os.WriteFile(filepath.Join(dir, "served-400.png"), buf, 0o644)
		}
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
