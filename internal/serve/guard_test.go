package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// Requests that try to run a cell without the token, with a wrong one,
// from another origin or by another name are refused, and nothing runs.
func TestRequestsThatMayNotRun(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	run := map[string]any{"page": "day001-a", "session": "x", "cell": 2}
	for name, try := range map[string]struct{ token, origin string }{
		"no token":        {"", c.http.URL},
		"a wrong token":   {strings.Repeat("0", 48), c.http.URL},
		"another origin":  {c.srv.Token(), "http://evil.example"},
		"no origin":       {c.srv.Token(), ""},
		"a token prefix":  {c.srv.Token()[:10], c.http.URL},
		"another scheme":  {c.srv.Token(), strings.Replace(c.http.URL, "http:", "file:", 1)},
		"another port":    {c.srv.Token(), "http://127.0.0.1:1"},
		"the null origin": {c.srv.Token(), "null"},
	} {
		res := c.postWith(context.Background(), "run", run, try.token, try.origin)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s %s, want 403", name, res.Status, body)
		}
	}
	if _, err := os.Stat(c.workspace("day001-a")); err == nil {
		t.Error("a refused request made the workspace")
	}
}

// A page of another site whose name is pointed at this server (DNS
// rebinding) sends its own name as Host: refused, for pages too.
func TestRebindingHostIsRefused(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	for _, path := range []string{"/day001-a.html", apiPrefix + "cells?page=day001-a&token=" + c.srv.Token()} {
		req, _ := http.NewRequest("GET", c.http.URL+path, nil)
		req.Host = "evil.example:" + strings.Split(c.http.URL, ":")[2]
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s as evil.example: %s, want 403", path, res.Status)
		}
	}
	req, _ := http.NewRequest("POST", c.http.URL+apiPrefix+"run", strings.NewReader(`{"page":"day001-a","cell":2}`))
	req.Host = "evil.example"
	req.Header.Set(TokenHeader, c.srv.Token())
	req.Header.Set("Origin", "http://evil.example")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("POST run as evil.example with the token: %s, want 403", res.Status)
	}
	// localhost and a name the server was told are fine.
	c.srv.AllowHost("lab.example")
	for _, host := range []string{"localhost", "LOCALHOST:99", "lab.example:8080", "[::1]:3000", "10.0.0.7"} {
		req, _ := http.NewRequest("GET", withToken(c.http.URL+"/day001-a.html"), nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET as %s: %s", host, res.Status)
		}
	}
}

func TestReadsNeedTheToken(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	for _, path := range []string{apiPrefix + "cells?page=day001-a", apiPrefix + "events", apiPrefix + "cells?page=day001-a&token=nope"} {
		code, _, _ := bare(t, c.http.URL+path)
		if code != http.StatusForbidden {
			t.Errorf("GET %s: %d, want 403", path, code)
		}
	}
}

// Nothing outside the course's pages and the notebook's own files is
// served, whatever the path says.
func TestPathEscapes(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	os.WriteFile(c.root+"/secret.txt", []byte("secret"), 0o644)
	for _, path := range []string{
		"/../secret.txt", "/%2e%2e/secret.txt", "/_lessons/assets/../api.go", "/_lessons/assets/..%2fapi.go",
		"/_lessons/assets/%2e%2e%2fserve.go", "/_lessons/assets/assets/notebook.js", "/lessons/day001-a.md",
	} {
		code, _, body := get(t, c.http.URL+path)
		if code == 200 || body == "secret" || strings.Contains(body, "package serve") {
			t.Errorf("GET %s: %d %.80q", path, code, body)
		}
	}
	for _, page := range []string{"../day001-a", "/etc/passwd", "day001-a/../../x"} {
		req, _ := http.NewRequest("GET", c.http.URL+apiPrefix+"cells?page="+page, nil)
		req.Header.Set(TokenHeader, c.srv.Token())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Errorf("cells of %q: %s", page, res.Status)
		}
	}
	if code, ctype, body := get(t, c.http.URL+"/_lessons/assets/notebook.js"); code != 200 || !strings.HasPrefix(ctype, "text/javascript") || !strings.Contains(body, "lessons-token") {
		t.Errorf("notebook.js: %d %s", code, ctype)
	}
}

// Every request needs the token, on loopback too: pages, the site's
// style and scripts (the search index holds every lesson's text), the
// notebook's assets and the streams.
func TestEverythingNeedsTheToken(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	code, _, body := get(t, c.http.URL+"/day001-a.html")
	if code != 200 || !strings.Contains(body, `<meta name="lessons-token" content="`+c.srv.Token()+`">`) {
		t.Fatalf("the page does not carry the token: %d", code)
	}
	for _, p := range []string{"/", "/day001-a.html", "/style.css", "/lessons.js", "/search-index.js", "/_lessons/assets/notebook.js", "/_lessons/assets/notebook.css", ReloadPath, apiPrefix + "events"} {
		if code, _, _ := bare(t, c.http.URL+p); code != http.StatusForbidden {
			t.Errorf("%s without the token: %d, want 403", p, code)
		}
		if code, _, _ := bare(t, c.http.URL+p+"?token=x"); code != http.StatusForbidden {
			t.Errorf("%s with a wrong token: %d, want 403", p, code)
		}
	}
}

// fakeChecker passes an exercise whose file says "solved".
type fakeChecker struct{ file string }

func (f *fakeChecker) Exercises(page string) ([]Exercise, error) {
	return []Exercise{{ID: "pipe", Student: "exercises/pipe.cu"}}, nil
}

func (f *fakeChecker) Files() map[string][]string { return map[string][]string{"pipe": {f.file}} }

func (f *fakeChecker) Check(ctx context.Context, id string) (*Verdict, error) {
	data, _ := os.ReadFile(f.file)
	solved := strings.Contains(string(data), "solved")
	v := &Verdict{Exercise: id, Passed: solved, Points: 10, Checks: []CheckResult{
		{Name: `prints "12 iterations"`, Pass: true, Points: 4},
		{Name: "calls of cudaMallocAsync: at least 12", Pass: solved, Want: "the pipeline should allocate once per iteration (12)", Got: "cudaMallocAsync was called 0 times", Points: 6, Hint: "Call cudaMallocAsync on the iteration's stream."},
		{Name: "no data race", Pass: solved, Want: "no race", Got: "racecheck: Race reported between Write access at 0x1a0 in pipe.cu:31:kernel(int*)\nand Read access at 0x1c0 in pipe.cu:40"},
	}}
	if solved {
		v.Score = 10
	} else {
		v.Score = 4
		v.Hints = []string{"Call cudaMallocAsync on the iteration's stream."}
	}
	return v, nil
}

func TestSavingAnExerciseFilePushesItsVerdict(t *testing.T) {
	c := newCourse(t, map[string]string{"day001-a": dayOne})
	file := c.root + "/pipe.cu"
	os.WriteFile(file, []byte("// TODO\n"), 0o644)
	c.srv.SetChecker(&fakeChecker{file: file})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.srv.WatchExercises(ctx, true, 50*time.Millisecond, t.Logf)
	res, err := http.Get(c.http.URL + apiPrefix + "events?token=" + c.srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// The watcher starts beside the test: a save before its first look
	// is not a change to it. Save again, longer each time, until the
	// verdict comes, rather than guess how long its start takes.
	saved := make(chan struct{})
	defer close(saved)
	go func() {
		for i := 0; ; i++ {
			os.WriteFile(file, []byte("// solved"+strings.Repeat(" ", i)+"\n"), 0o644)
			select {
			case <-saved:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	// A check may read the file between a save's truncate and its write
	// (os.WriteFile), and push the verdict of an empty file: the verdict
	// wanted is the first of a solved file, pushed by a save.
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64<<10)
		var all string
		for {
			n, err := res.Body.Read(buf)
			all += string(buf[:n])
			if strings.Contains(all, `"passed":true`) && strings.Contains(all[strings.LastIndex(all, `"passed":true`):], "\n\n") || err != nil {
				got <- all
				return
			}
		}
	}()
	select {
	case s := <-got:
		i := strings.LastIndex(s, "event: verdict")
		if i < 0 || !strings.Contains(s[i:], `"passed":true`) || !strings.Contains(s[i:], `"trigger":"save"`) {
			t.Errorf("pushed: %s", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no verdict of the solved file within 10 s of the save")
	}
}

// FuzzGuard: whatever Host and Origin a request carries, it passes only
// with the token, from an Origin whose host is the Host, and a Host that
// is an IP address, localhost or a name the server was given.
func FuzzGuard(f *testing.F) {
	f.Add("127.0.0.1:3000", "http://127.0.0.1:3000", true)
	f.Add("evil.example:3000", "http://evil.example:3000", true)
	f.Add("localhost", "http://localhost", false)
	f.Add("[::1]:80", "https://[::1]:80", true)
	f.Add("lab.example", "null", true)
	f.Fuzz(func(t *testing.T, host, origin string, withToken bool) {
		g := newGuard()
		g.hosts["lab.example"] = true
		r, err := http.NewRequest("POST", "http://x/_lessons/api/run", nil)
		if err != nil {
			t.Skip()
		}
		r.Host = host
		r.Header.Set("Origin", origin)
		if withToken {
			r.Header.Set(TokenHeader, g.token)
		}
		hostMsg, _ := g.host(r)
		writeMsg, _ := g.write(r)
		if anyMsg, _ := g.any(r); anyMsg == "" && !withToken {
			t.Errorf("Host %q, Origin %q: passes without the token", host, origin)
		}
		if writeMsg == "" && (!withToken || origin == "" || !strings.HasSuffix(origin, "://"+host)) {
			t.Errorf("Host %q, Origin %q, token %v: may write", host, origin, withToken)
		}
		if hostMsg == "" {
			name := strings.ToLower(host)
			if h, _, err := net.SplitHostPort(host); err == nil {
				name = strings.ToLower(h)
			}
			name = strings.Trim(name, "[]")
			if net.ParseIP(name) == nil && name != "localhost" && name != "lab.example" {
				t.Errorf("Host %q passes", host)
			}
		}
	})
}
