package classroom

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// TestMain doubles as the class server that TestKillNineLosesNothing
// kills: with LESSONS_CLASS_CHILD set, it serves the class in
// $LESSONS_CLASS_DIR and prints its address; and as the sandbox's helper
// (TestPythonInTheSandbox's cells).
func TestMain(m *testing.M) {
	sandbox.Helper()
	if os.Getenv("LESSONS_CLASS_CHILD") != "" {
		childServer()
		return
	}
	os.Exit(m.Run())
}

func childServer() {
	c, err := course.Load(os.Getenv("LESSONS_CLASS_COURSE"))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	cls, err := Open(Config{
		Course: c, Dir: os.Getenv("LESSONS_CLASS_DIR"),
		Roster:    []Student{{ID: "ann"}, {ID: "bob"}, {ID: "cy"}},
		Site:      func() (map[string][]byte, error) { return render.Site(c) },
		Env:       func(string) (notebook.Env, error) { return notebook.Env{Runner: runner.Exec{}}, nil },
		Cells:     func(string, int) runner.Runner { return runner.Exec{} },
		Toolchain: &fakeTools{}, Jobs: 2, Devices: []string{"0"}, PerDevice: 4,
	})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println("listening", ln.Addr())
	http.Serve(ln, cls)
}

type child struct {
	cmd  *exec.Cmd
	base string
}

func startChild(t *testing.T, courseDir, classDir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LESSONS_CLASS_CHILD=1", "LESSONS_CLASS_COURSE="+courseDir, "LESSONS_CLASS_DIR="+classDir)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("the class server said %q (%v)", line, err)
	}
	return &child{cmd: cmd, base: "http://" + addr}
}

// client is a student's HTTP client, its cookie kept across the
// server's restart (the server changes port; the cookie is the same).
type client struct {
	jar  *cookiejar.Jar
	http *http.Client
	ck   *http.Cookie
}

func (c *client) post(base, path string, v any) (int, error) {
	data, _ := json.Marshal(v)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	req.AddCookie(c.ck)
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}

// The server killed with SIGKILL in the middle of a load of saves and
// submissions, and started again: every save it acknowledged is on disk
// (the newest acknowledged, or one sent after it), every submission it
// acknowledged is in the gradebook, and the students are still signed in.
func TestKillNineLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a server")
	}
	courseDir, classDir := t.TempDir(), t.TempDir()
	writeTree(t, courseDir, testCourse)
	os.MkdirAll(filepath.Join(classDir, PrivateDir), 0o700)
	keys := access.NewKeys(filepath.Join(classDir, PrivateDir), time.Now)
	first := startChild(t, courseDir, classDir)
	students := []string{"ann", "bob", "cy"}
	clients := map[string]*client{}
	for _, s := range students {
		link, err := keys.Invite(s, access.RoleStudent)
		if err != nil {
			t.Fatal(err)
		}
		c := &client{http: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}}
		req, _ := http.NewRequest("POST", first.base+"/_class/signin", strings.NewReader(url.Values{"link": {link}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", first.base)
		res, err := c.http.Do(req)
		if err != nil || res.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in of %s: %v %v", s, res, err)
		}
		for _, ck := range res.Cookies() {
			if ck.Name == CookieName {
				c.ck = ck
			}
		}
		res.Body.Close()
		clients[s] = c
	}
	type acked struct {
		mu      sync.Mutex
		save    int // the newest save acknowledged
		sent    int // the newest save sent
		submits int
	}
	state := map[string]*acked{}
	var wg sync.WaitGroup
	enough := make(chan struct{})
	var once sync.Once
	var total atomic.Int32
	for _, s := range students {
		a := &acked{}
		state[s] = a
		wg.Add(1)
		go func(s string, c *client) {
			defer wg.Done()
			for i := 1; ; i++ {
				a.mu.Lock()
				a.sent = i
				a.mu.Unlock()
				path, body := "/_class/api/file", map[string]any{"exercise": "pool", "text": fmt.Sprintf("save %d", i)}
				if i%4 == 0 {
					path = "/_class/api/submit"
				}
				code, err := c.post(first.base, path, body)
				if err != nil {
					return // the server is gone
				}
				if code != 200 {
					t.Errorf("%s %s: %d", s, path, code)
					return
				}
				a.mu.Lock()
				a.save = i
				if i%4 == 0 {
					a.submits++
				}
				a.mu.Unlock()
				if total.Add(1) == 150 { // then kill it, while the others are in flight
					once.Do(func() { close(enough) })
				}
			}
		}(s, clients[s])
	}
	<-enough
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.cmd.Wait()
	wg.Wait()

	second := startChild(t, courseDir, classDir)
	// What was being graded when the first was killed is reported
	// stopped by the second.
	if left, err := access.Unfinished(filepath.Join(classDir, PrivateDir, "audit.log")); err != nil || len(left) > 0 {
		t.Errorf("submissions neither graded nor reported stopped after the restart: %v %v", left, err)
	}
	book, err := gradebook.Open(filepath.Join(classDir, PrivateDir, "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	for _, s := range students {
		a := state[s]
		req, _ := http.NewRequest("GET", second.base+"/_class/api/file?exercise=pool", nil)
		req.AddCookie(clients[s].ck)
		res, err := clients[s].http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var f struct{ Text string }
		json.NewDecoder(res.Body).Decode(&f)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s after the restart: %d (signed out?)", s, res.StatusCode)
		}
		var n int
		fmt.Sscanf(f.Text, "save %d", &n)
		if n < a.save || n > a.sent {
			t.Errorf("%s: the file says %q after the restart; %d was the newest save acknowledged, %d the newest sent", s, f.Text, a.save, a.sent)
		}
		hist, err := book.History(s, "pool")
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) < a.submits {
			t.Errorf("%s: %d submissions in the gradebook, %d acknowledged", s, len(hist), a.submits)
		}
		t.Logf("%s: %d saves acknowledged, file at %d; %d submissions acknowledged, %d recorded", s, a.save, n, a.submits, len(hist))
	}
}
