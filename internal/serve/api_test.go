package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The page's API is one list (pageAPI): every operation in it is answered
// by its own case, and anything else (an operation not in it, or one of
// it by the other method) is no such request. The class server passes on
// exactly the list's posts (PagePosts).
func TestPageAPIIsOneList(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": "# A\n"})
	ask := func(method, op string) (int, string) {
		t.Helper()
		body := io.Reader(nil)
		if method == http.MethodPost {
			body = strings.NewReader(`{"page": "day001-a"}`)
		}
		req, _ := http.NewRequest(method, c.http.URL+APIPrefix+op, body)
		req.Header.Set(TokenHeader, c.srv.Token())
		req.Header.Set("Origin", c.http.URL)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		text, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
		return res.StatusCode, string(text)
	}
	posts := 0
	for op, method := range pageAPI {
		if op == "events" || op == "run" {
			continue // streams: their cases are tested where they stream
		}
		if code, text := ask(method, op); strings.Contains(text, "no such request") {
			t.Errorf("%s %s is in the page's API but its server says %d %s", method, op, code, text)
		}
		other := http.MethodGet
		if method == http.MethodGet {
			other = http.MethodPost
		}
		if code, text := ask(other, op); code != http.StatusNotFound || !strings.Contains(text, "no such request") {
			t.Errorf("%s %s (the other method): %d %s, want no such request", other, op, code, text)
		}
		if PagePosts(op) != (method == http.MethodPost) {
			t.Errorf("PagePosts(%q) = %v for a %s", op, PagePosts(op), method)
		}
		if method == http.MethodPost {
			posts++
		}
	}
	if posts != 5 { // run is left out above
		t.Errorf("%d posts of the page's API besides run; want stop, restart, edit, reset, check", posts)
	}
	for _, op := range []string{"submit", "submitted", "signin", "", "run/x", "RUN"} {
		if code, text := ask(http.MethodPost, op); code != http.StatusNotFound || !strings.Contains(text, "no such request") {
			t.Errorf("POST %q: %d %s, want no such request", op, code, text)
		}
		if PagePosts(op) {
			t.Errorf("PagePosts(%q) is true", op)
		}
	}
	if !PagePosts("run") {
		t.Error("PagePosts(run) is false")
	}
}
