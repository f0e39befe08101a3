package classroom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/serve"
	"github.com/cudalessons/lessons/internal/study"
)

// token is a student's token of lessons submit, as the page gives it.
func (tc *testClass) token(who string) string {
	tc.t.Helper()
	b := tc.browser()
	b.signin(tc.invite(who))
	_, v := b.post("/_class/api/token", map[string]any{})
	tok, _ := v["token"].(string)
	if tok == "" {
		tc.t.Fatalf("no token for %s: %v", who, v)
	}
	return tok
}

// TestRemoteCheck: lessons check --remote sends the file with the
// student's token; the server judges it as the page's Check does, and
// the verdict prints as a local check's: public checks, the hidden one
// counted, the hint of a failed check. Nothing goes into the gradebook.
func TestRemoteCheck(t *testing.T) {
	tc := newTestClass(t, nil)
	t.Setenv("LESSONS_CLASS_SERVER", tc.srv.URL)
	t.Setenv("LESSONS_CLASS_TOKEN", tc.token("ann"))
	c := tc.class.course
	x, _ := c.Exercise("pool")
	src := filepath.Join(t.TempDir(), "pool.cu")
	check := func(text string) (string, error) {
		os.WriteFile(src, []byte(text), 0o644)
		var out bytes.Buffer
		err := RemoteCheck(context.Background(), study.Terminal{Out: &out, Width: 200}, c, x, src, false, src == c.Path(x.Student), study.Timeline{})
		return out.String(), err
	}
	out, err := check("int main() { /* nothing yet */ }\n")
	var silent *failure.Silent
	if !errors.As(err, &silent) {
		t.Fatalf("a failing file: %v\n%s", err, out)
	}
	for _, want := range []string{"Checking pool (" + src + ") on " + tc.srv.URL + ": not a submission\n", "  ✗ says DONE\n      expected: DONE\n      got:      something else\n", "1 hidden check also runs when the exercise is graded.", "hint: print DONE"} {
		if !strings.Contains(out, want) {
			t.Errorf("the failing verdict lacks %q:\n%s", want, out)
		}
	}
	out, err = check("int main() { /* DONE */ }\n")
	if err != nil || !strings.Contains(out, "  ✓ says DONE\n") || !strings.Contains(out, src+" passes every check of pool.") || strings.Contains(out, "hint") {
		t.Fatalf("a passing file: %v\n%s", err, out)
	}
	var usage *failure.Usage
	if err := RemoteCheck(context.Background(), study.Terminal{Out: io.Discard}, c, x, src, false, false, study.Timeline{Draw: true}); !errors.As(err, &usage) {
		t.Errorf("check --remote --timeline: %v", err)
	}
	if as, err := tc.class.Book().History("ann", "pool"); err != nil || len(as) != 0 {
		t.Fatalf("a remote check went into the gradebook: %v %v", as, err)
	}
	// The file checked is ann's copy now, as after lessons submit; bob's
	// is his own.
	if data, _ := tc.class.readCopy("ann", x); string(data) != "int main() { /* DONE */ }\n" {
		t.Errorf("ann's copy: %q", data)
	}
	if data, _ := tc.class.readCopy("bob", x); !strings.Contains(string(data), "TODO: write the pool") {
		t.Errorf("bob's copy: %q", data)
	}
	log, _ := os.ReadFile(filepath.Join(tc.dir, PrivateDir, "audit.log"))
	if !strings.Contains(string(log), `"action":"check","detail":"pool (remote)"`) {
		t.Errorf("the audit log lacks the remote check:\n%s", log)
	}
	// The student's own file: the pass is kept in the course's progress,
	// as a check here keeps it.
	src = c.Path(x.Student)
	if out, err = check("int main() { /* DONE */ }\n"); err != nil || !strings.Contains(out, "\npool passed (10 points). 1 of 1 exercises passed.\n") {
		t.Fatalf("the student's own file: %v\n%s", err, out)
	}
}

// TestRemoteCheckRefused: a token reaches its student's own work only,
// the instructor's token checks nothing, a forged token nothing, and a
// check past the queue's limit is refused before anything is built.
func TestRemoteCheckRefused(t *testing.T) {
	tc := newTestClass(t, func(cfg *Config) { cfg.MaxQueued = 1 })
	ann := tc.token("ann")
	api := tc.browser()
	api.origin = ""
	post := func(tok, body string) (int, string) {
		return api.do("POST", "/_class/api/check", strings.NewReader(body), map[string]string{"Authorization": "Bearer " + tok})
	}
	for _, tc := range []struct{ name, tok, body, want string }{
		{"path", ann, `{"exercise":"../bob/pool","text":"x"}`, "no exercise"},
		{"no text", ann, `{"exercise":"pool"}`, "no file to check"},
		{"forged", strings.Repeat("ab", 32), `{"exercise":"pool","text":"x"}`, "not valid"},
	} {
		if code, body := post(tc.tok, tc.body); code == http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s", tc.name, code, body)
		}
	}
	if code, body := post(tc.token(access.RoleInstructor), `{"exercise":"pool","text":"x"}`); code == http.StatusOK || !strings.Contains(body, "judges a student's file") {
		t.Errorf("the instructor's token: %d %s", code, body)
	}
	// One run of ann's held: the next is refused at once (429), and
	// built nothing.
	tc.tools.mu.Lock()
	tc.tools.hold, tc.tools.started = make(chan struct{}), make(chan string, 1)
	tc.tools.mu.Unlock()
	done := make(chan struct{})
	go func() { post(ann, `{"exercise":"pool","text":"DONE"}`); close(done) }()
	<-tc.tools.started
	tc.tools.mu.Lock()
	builds := tc.tools.builds
	tc.tools.mu.Unlock()
	code, body := post(ann, `{"exercise":"pool","text":"DONE again"}`)
	close(tc.tools.hold)
	<-done
	if code != http.StatusTooManyRequests || !strings.Contains(body, "runs queued or running") {
		t.Errorf("past the queue's limit: %d %s", code, body)
	}
	tc.tools.mu.Lock()
	defer tc.tools.mu.Unlock()
	if tc.tools.builds != builds {
		t.Errorf("a refused check built: %d builds, was %d", tc.tools.builds, builds)
	}
}

// FuzzRemoteVerdict: whatever a server answers, the verdict it becomes
// prints without a panic and with no escape sequence but a colour (kept,
// as a program's colours are kept by a check here): the server's names,
// wants and gots are its words, not the terminal's.
func FuzzRemoteVerdict(f *testing.F) {
	f.Add([]byte(`{"exercise":"pool","passed":false,"checks":[{"name":"says DONE","pass":false,"want":"DONE","got":"x"}],"hidden":1}`))
	f.Add([]byte(`{"checks":[{"name":"\u001b[31mred\u001b[0m","pass":false,"want":"\u001b[1;32mok"}]}`))
	f.Add([]byte(`{"checks":[{"name":"\u001b]52;c;aGk=\u0007","pass":true},{"name":"says DONE","pass":true,"got":"\u001b[2J"}],"output":"\u009b31m"}`))
	root := t0Course(f)
	c, _ := course.Load(root)
	x, _ := c.Exercise("pool")
	spec, _ := exercise.LoadSpec(c, x)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v serve.Verdict
		if json.Unmarshal(data, &v) != nil {
			return
		}
		st := exercise.Remote(x, spec, results(spec.Public(), v.Checks), v.Output)
		var b strings.Builder
		st.WriteText(&b, false, true)
		if strings.ContainsAny(sgr.ReplaceAllString(b.String(), ""), "\x1b\x07\u009b") {
			t.Fatalf("an escape reached the terminal: %q", b.String())
		}
	})
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// t0Course writes the test course for a fuzz target.
func t0Course(f *testing.F) string {
	root := f.TempDir()
	writeTree(f, root, testCourse)
	return root
}

// TestTokenNotInTheClear: the token goes over https, or over http to this
// machine only; a redirect is not followed (it could carry the token to
// plain http or another host).
func TestTokenNotInTheClear(t *testing.T) {
	for base, ok := range map[string]bool{
		"https://gpu.uni.example":       true,
		"http://127.0.0.1:8080":         true,
		"http://localhost:8080/":        true,
		"http://[::1]:9000":             true,
		"http://gpu.uni.example":        false,
		"http://10.0.0.5:8080":          false,
		"http://localhost.evil.example": false,
		"ftp://gpu.uni.example":         false,
		"gpu.uni.example":               false,
		"":                              false,
	} {
		if err := tokenSafe(base); (err == nil) != ok {
			t.Errorf("tokenSafe(%q) = %v, want ok=%v", base, err, ok)
		}
	}
	_, err := Submit(context.Background(), http.DefaultClient, "http://gpu.uni.example", "tok", "pool", "x")
	if err == nil || !strings.Contains(err.Error(), "in the clear") {
		t.Errorf("submit over plain http to another machine: %v", err)
	}
	got := make(chan string, 1)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("Authorization") }))
	defer sink.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, sink.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer hop.Close()
	_, err = Submit(context.Background(), http.DefaultClient, hop.URL, "tok", "pool", "x")
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("a redirect: %v", err)
	}
	select {
	case a := <-got:
		t.Errorf("the redirect was followed, with %q", a)
	default:
	}
}
