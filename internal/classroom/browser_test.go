package classroom

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cudalessons/lessons/internal/browsertest"
	"github.com/cudalessons/lessons/internal/classroom/access"
)

// tab drives one tab of a headless Chromium.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func (p *tab) run(what string, a chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, a); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// wait asks again until a JavaScript expression is true (a page that
// reloads meanwhile is asked again too).
func (p *tab) wait(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = chromedp.Run(p.ctx, chromedp.Evaluate[bool]("!!("+expr+")")); err == nil && ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	body, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	p.t.Fatalf("waiting for %s (%s): %v\npage: %s", what, expr, err, body)
}

func (p *tab) eval(expr string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// A student as the class sees one: signs in with a link, runs a cell,
// edits the exercise in the page, checks it, submits it and reads the
// feedback; the instructor's view shows the submission; the link does
// not sign in twice.
func TestClassInTheBrowser(t *testing.T) {
	tc := newTestClass(t, nil)
	link := tc.invite("ann")
	ctx := browsertest.New(t, browsertest.Options{Timeout: 90 * time.Second})
	p := &tab{t: t, ctx: ctx}
	p.run("open the link", chromedp.Navigate(tc.srv.URL+"/_class/signin?link="+link))
	p.run("sign in", chromedp.Click(chromedp.CSS("#signin")))
	p.wait("the contents", `location.pathname === "/" && document.querySelector("a[href]")`)
	p.run("open the lesson", chromedp.Navigate(tc.srv.URL+"/day001-hello.html"))
	p.wait("the notebook", `document.querySelector('.cell[data-cell="1"] button.run')`)
	p.run("run the cell", chromedp.Click(chromedp.CSS(`.cell[data-cell="1"] button.run`)))
	p.wait("the cell's output", `document.querySelector('.cell[data-cell="1"] .cell-output').textContent.includes("hello from the class")`)
	p.wait("the exercise's file", `document.querySelector('li.exercise[data-exercise="pool"] textarea.class-file')?.dataset.loaded`)
	p.eval(`(function(){var ta=document.querySelector('textarea.class-file'); ta.value="int main() { /* DONE */ }\n"; ta.dispatchEvent(new Event("input"));})()` + `; ""`)
	p.run("save", chromedp.Click(chromedp.CSS(`button.class-save`)))
	p.wait("saved", `document.querySelector('.class-saved').textContent === "saved"`)
	p.run("check", chromedp.Click(chromedp.CSS(`li.exercise[data-exercise="pool"] button.check`)))
	p.wait("the verdict", `document.querySelector('li.exercise[data-exercise="pool"] .verdict-head')`)
	if v := p.eval(`document.querySelector('li.exercise[data-exercise="pool"] .verdict').textContent`); !strings.Contains(v, "Passed") || !strings.Contains(v, "1 hidden check also runs") {
		t.Fatalf("the check's verdict: %q", v)
	}
	p.run("submit", chromedp.Click(chromedp.CSS(`button.class-submit`)))
	p.wait("the feedback", `document.querySelector('.class-feedback').dataset.status`)
	if fb := p.eval(`document.querySelector('.class-feedback').textContent`); !strings.Contains(fb, "failed, 0 of 10 points") || !strings.Contains(fb, "0 of 1 hidden check passed") {
		t.Fatalf("the feedback: %q", fb)
	}
	// The feedback is a page's HTML (its table, its headings), not
	// markdown in a <pre>; the page gives no terminal's advice.
	if got := p.eval(`String(!!document.querySelector('.class-feedback table') && !!document.querySelector('.class-feedback h1') && !document.querySelector('.class-feedback pre') && !document.querySelector('.class-feedback').textContent.includes("**"))`); got != "true" {
		t.Errorf("the feedback is not drawn as HTML: %s", p.eval(`document.querySelector('.class-feedback').innerHTML`))
	}
	if li := p.eval(`document.querySelector('li.exercise[data-exercise="pool"]').textContent`); strings.Contains(li, "lessons check") || !strings.Contains(li, "edit its file below") {
		t.Errorf("the exercise's words in the page: %q", li)
	}
	barCoversNothing(t, p)
	// The file was saved where the server keeps it: a reload shows it.
	p.run("reload", chromedp.Reload())
	p.wait("the file after a reload", `document.querySelector('textarea.class-file')?.value.includes("DONE")`)

	// The instructor's view, in another browser (its own cookies).
	prof := &tab{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 60 * time.Second})}
	prof.run("the instructor's link", chromedp.Navigate(tc.srv.URL+"/_class/signin?link="+tc.invite(access.RoleInstructor)))
	prof.run("sign in", chromedp.Click(chromedp.CSS("#signin")))
	prof.wait("the class's table", `document.querySelector('tr[data-student="ann"]')?.textContent.includes("submitted: failed 0/10")`)
	// A second submission shows in the view without a reload.
	p.eval(`(function(){var ta=document.querySelector('textarea.class-file'); ta.value="DONE HIDDEN"; ta.dispatchEvent(new Event("input"));})()` + `; ""`)
	p.run("submit again", chromedp.Click(chromedp.CSS(`button.class-submit`)))
	p.wait("passed", `document.querySelector('.class-feedback').dataset.status === "passed"`)
	prof.wait("the view updated", `document.querySelector('tr[data-student="ann"]')?.textContent.includes("submitted: passed 10/10")`)

	// The used link, in a third browser: refused.
	eve := &tab{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 30 * time.Second})}
	eve.run("the used link", chromedp.Navigate(tc.srv.URL+"/_class/signin?link="+link))
	eve.run("sign in", chromedp.Click(chromedp.CSS("#signin")))
	eve.wait("refused", `document.body.innerText.includes("not valid")`)
	eve.run("the lesson", chromedp.Navigate(tc.srv.URL+"/day001-hello.html"))
	eve.wait("no page", `document.body.innerText.includes("Sign in") && !document.querySelector(".cell")`)
}

// A page of another site, opened by a signed-in student, tries to save
// into their exercise, submit it, and read it: by a form's POST (a
// navigation, which carries the cookie when the sites share a host) and by
// fetch with the credentials. Every attempt is refused, and the file is
// as the student left it.
func TestCrossSitePageInTheBrowser(t *testing.T) {
	tc := newTestClass(t, nil)
	link := tc.invite("ann")
	p := &tab{t: t, ctx: browsertest.New(t, browsertest.Options{})}
	p.run("open the link", chromedp.Navigate(tc.srv.URL+"/_class/signin?link="+link))
	p.run("sign in", chromedp.Click(chromedp.CSS("#signin")))
	p.wait("signed in", `location.pathname === "/"`)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/form" {
			fmt.Fprintf(w, `<!doctype html><title>form</title><form id="f" method="post" action="%s/_class/api/submit" enctype="text/plain"><input name='{"exercise":"pool","text":"pwned","x":"' value='"}'></form><script>document.getElementById("f").submit()</script>`, tc.srv.URL)
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>evil</title><script>
var u = %q;
Promise.all([
  fetch(u + "/_class/api/file", {method: "POST", credentials: "include", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({exercise: "pool", text: "pwned"})}).then(function () { return "sent"; }, function () { return "refused"; }),
  fetch(u + "/_class/api/file?exercise=pool", {credentials: "include"}).then(function (r) { return r.text(); }).then(function (t) { return "read: " + t; }, function () { return "refused"; })
]).then(function (r) { document.title = r.join(" | "); });
</script>`, tc.srv.URL)
	}))
	defer evil.Close()
	p.run("the other site's scripts", chromedp.Navigate(evil.URL))
	p.wait("its fetches", `document.title !== "evil"`)
	title := p.eval("document.title")
	t.Logf("the other site's fetches: %s", title)
	if strings.Contains(title, "TODO") || strings.Contains(title, "read: {") {
		t.Errorf("the other site read the file: %s", title)
	}
	p.run("the other site's form", chromedp.Navigate(evil.URL+"/form"))
	p.wait("the form's answer", `document.title !== "form"`)
	p.run("back", chromedp.Navigate(tc.srv.URL+"/_class/api/file?exercise=pool"))
	if body := p.eval("document.body.innerText"); strings.Contains(body, "pwned") || !strings.Contains(body, "TODO") {
		t.Fatalf("the student's file after the other site's page: %s", body)
	}
	if n, _, _ := tc.class.Book().Latest("ann", "pool"); n != nil {
		t.Fatalf("the other site's form submitted: %+v", n)
	}
	log, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	if !strings.Contains(string(log), `"action":"refused"`) {
		t.Errorf("no refusal in the audit log:\n%s", log)
	}
}

// The instructor's view shows what students wrote (their files, their
// rows): a file that is markup and script is shown as text, and runs
// nothing in the instructor's page.
func TestHostileFileInTheInstructorsView(t *testing.T) {
	tc := newTestClass(t, nil)
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	hostile := `</pre><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>"; alert(3); //`
	if code, _ := ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": hostile}); code != 200 {
		t.Fatalf("save: %d", code)
	}
	ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
	prof := &tab{t: t, ctx: browsertest.New(t, browsertest.Options{Timeout: 60 * time.Second})}
	prof.run("the instructor's link", chromedp.Navigate(tc.srv.URL+"/_class/signin?link="+tc.invite(access.RoleInstructor)))
	prof.run("sign in", chromedp.Click(chromedp.CSS("#signin")))
	prof.wait("ann's row", `document.querySelector('tr[data-student="ann"]')?.textContent.includes("checked")`)
	prof.run("student", chromedp.SendKeys(chromedp.CSS(`#look [name="student"]`), "ann"))
	prof.run("exercise", chromedp.SendKeys(chromedp.CSS(`#look [name="exercise"]`), "pool"))
	prof.run("show", chromedp.Click(chromedp.CSS(`#look button`)))
	prof.wait("the file", `document.getElementById("file").textContent.includes("onerror")`)
	if got := prof.eval(`document.getElementById("file").textContent`); got != hostile {
		t.Errorf("the file as shown: %q", got)
	}
	if n := prof.eval(`String(document.querySelectorAll("img").length) + String(window.pwned)`); n != "0undefined" {
		t.Errorf("the student's markup ran in the instructor's page: %s", n)
	}
}

// overlapJS names the page's controls and headings that the class's bar
// covers, "" when none.
const overlapJS = `(function(){
  var bar = document.querySelector('.class-bar').getBoundingClientRect(), hit = [];
  document.querySelectorAll('header.top *, h1, main a, button:not(.class-bar button)').forEach(function (e) {
    if (e.closest('.class-bar')) return;
    var r = e.getBoundingClientRect();
    if (r.width && r.height && r.left < bar.right && r.right > bar.left && r.top < bar.bottom && r.bottom > bar.top)
      hit.push(e.tagName + (e.className ? '.' + e.className : '') + ' ' + (e.textContent || '').trim().slice(0, 30));
  });
  return hit.join('; ');
})()`

// barCoversNothing: at a desktop's width and a phone's, in both themes,
// the signed-in bar covers no control or heading of the page (fixed in a
// corner, it covered the theme button, and on a phone the menu and the
// title). With $LESSONS_SCREENSHOTS, each is kept there as a PNG.
func barCoversNothing(t *testing.T, p *tab) {
	t.Helper()
	dir := os.Getenv("LESSONS_SCREENSHOTS")
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		for _, theme := range []string{"light", "dark"} {
			p.run("the size", chromedp.EmulateViewport(size.w, size.h))
			p.eval(`document.documentElement.setAttribute("data-theme", "` + theme + `"); ""`)
			for _, y := range []string{"0", "400"} {
				p.eval(`window.scrollTo(0, ` + y + `); ""`)
				if hit := p.eval(overlapJS); hit != "" {
					t.Errorf("%s, %s, scrolled to %s: the bar covers %s", size.name, theme, y, hit)
				}
			}
			p.eval(`window.scrollTo(0, 0); ""`)
			if dir != "" {
				if buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)); err == nil {
					os.WriteFile(filepath.Join(dir, "class-"+size.name+"-"+theme+".png"), buf, 0o644)
				}
			}
		}
	}
	p.run("the size back", chromedp.EmulateViewport(1280, 900))
}
