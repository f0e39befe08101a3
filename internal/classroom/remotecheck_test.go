package classroom

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
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
		err := RemoteCheck(context.Background(), study.Terminal{Out: &out, Width: 200}, c, x, src, false, src == c.Path(x.Student))
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
	if code, body := post(tc.token(RoleInstructor), `{"exercise":"pool","text":"x"}`); code == http.StatusOK || !strings.Contains(body, "judges a student's file") {
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
