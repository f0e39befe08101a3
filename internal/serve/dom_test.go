package serve

import (
	"strings"
	"testing"
)

// The page's DOM helpers are one file, served once and loaded before
// the notebook's script and a page script (the class's), which both use
// them.
func TestDOMHelpersComeFirst(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	c.srv.SetPageScript("/_class/assets/class.js")
	_, _, page := get(t, c.http.URL+"/day001-a.html")
	dom, nb, class := strings.Index(page, assetPrefix+"dom.js"), strings.Index(page, assetPrefix+"notebook.js"), strings.Index(page, "/_class/assets/class.js")
	if dom < 0 || nb < dom || class < dom {
		t.Fatalf("dom.js at %d, notebook.js at %d, class.js at %d:\n%s", dom, nb, class, page)
	}
	if code, ctype, body := get(t, c.http.URL+assetPrefix+"dom.js"); code != 200 || !strings.HasPrefix(ctype, "text/javascript") || !strings.Contains(body, "window.lessonsDOM") {
		t.Errorf("dom.js: %d %s", code, ctype)
	}
	js, _ := assets.ReadFile("assets/notebook.js")
	if strings.Contains(string(js), "function el(") || strings.Contains(string(js), "function button(") {
		t.Error("notebook.js has its own copy of the helpers")
	}
}
