package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRunsScript checks that the browser starts, loads a loopback
// page and runs its script.
func TestBrowserRunsScript(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><p id="x">before</p><script>document.getElementById("x").textContent = "after";</script>`)
	}))
	defer srv.Close()
	ctx := New(t, Options{})
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#x")))
	if err != nil {
		t.Fatal(err)
	}
	if text != "after" {
		t.Errorf("the page's script did not run: %q", text)
	}
}
