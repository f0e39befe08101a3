package access

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// A link signs in once, before it expires; a newer link for the same
// person replaces it; sessions end when closed, when old, and past
// MaxBrowsers the oldest goes; lessons submit's token is one a person.
func TestKeys(t *testing.T) {
	clk := &clock{time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	k := NewKeys(t.TempDir(), clk.now)
	old, err := k.Invite("ann", RoleStudent)
	if err != nil {
		t.Fatal(err)
	}
	link, _ := k.Invite("ann", RoleStudent)
	if _, _, err := k.Redeem(old); !errors.Is(err, ErrBadLink) {
		t.Errorf("a replaced link: %v", err)
	}
	sess, g, err := k.Redeem(link)
	if err != nil || g.Who != "ann" || g.Role != RoleStudent {
		t.Fatalf("redeem: %v %+v", err, g)
	}
	if _, _, err := k.Redeem(link); !errors.Is(err, ErrBadLink) {
		t.Errorf("a link used twice: %v", err)
	}
	if g, ok := k.Session(sess); !ok || g.Who != "ann" || g.Kind != "cookie" {
		t.Errorf("the session: %+v %v", g, ok)
	}
	if _, ok := k.Session(""); ok {
		t.Error("no secret is a session")
	}
	var first string
	for i := range MaxBrowsers {
		clk.t = clk.t.Add(time.Minute)
		s, _ := k.Open("bob", RoleStudent, "cookie")
		if i == 0 {
			first = s
		}
	}
	clk.t = clk.t.Add(time.Minute)
	k.Open("bob", RoleStudent, "cookie")
	if _, ok := k.Session(first); ok {
		t.Errorf("bob's oldest browser is still signed in past %d", MaxBrowsers)
	}
	tok1, _ := k.Open("bob", RoleStudent, "api")
	tok2, _ := k.Open("bob", RoleStudent, "api")
	if _, ok := k.Session(tok1); ok {
		t.Error("an earlier token still works after a new one")
	}
	if _, ok := k.Session(tok2); !ok {
		t.Error("the new token does not work")
	}
	k.Close(tok2)
	if _, ok := k.Session(tok2); ok {
		t.Error("a closed session still works")
	}
	clk.t = clk.t.Add(SessionLife + time.Hour)
	if _, ok := k.Session(sess); ok {
		t.Error("a session past its life still works")
	}
	late, _ := k.Invite("cy", RoleStudent)
	clk.t = clk.t.Add(31 * 24 * time.Hour)
	if _, _, err := k.Redeem(late); !errors.Is(err, ErrBadLink) {
		t.Errorf("an expired link: %v", err)
	}
	for _, f := range []string{"invites.json", "sessions.json"} {
		data, _ := os.ReadFile(filepath.Join(k.dir, f))
		if strings.Contains(string(data), link) || strings.Contains(string(data), sess) {
			t.Errorf("%s keeps a secret rather than its hash", f)
		}
	}
}

// Failed sign-ins from an address are held up past the burst; a
// success costs nothing, and the bucket fills again with time.
func TestLimiter(t *testing.T) {
	clk := &clock{time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	l := NewLimiter(2, 6*time.Second, clk.now)
	for range 2 {
		if ok, _ := l.Allow("10.0.0.1"); !ok {
			t.Fatal("refused within the burst")
		}
		l.Failed("10.0.0.1")
	}
	if ok, wait := l.Allow("10.0.0.1"); ok || wait != 6*time.Second {
		t.Errorf("past the burst: %v, wait %s", ok, wait)
	}
	if ok, _ := l.Allow("10.0.0.2"); !ok {
		t.Error("another address is held up")
	}
	clk.t = clk.t.Add(6 * time.Second)
	if ok, _ := l.Allow("10.0.0.1"); !ok {
		t.Error("still refused after the wait")
	}
}

// The log keeps every line; the submissions a killed server started and
// never ended are found again.
func TestAuditUnfinished(t *testing.T) {
	clk := &clock{time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "audit.log")
	if left, err := Unfinished(path); err != nil || left != nil {
		t.Fatalf("no log yet: %v %v", left, err)
	}
	a, err := OpenAudit(path, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][4]string{
		{"ann", "10.0.0.1", "submit", "pool"}, {"bob", "10.0.0.2", "submit", "pool"},
		{"ann", "10.0.0.1", "submitted", "pool #1 passed 10/10"}, {"cy", "10.0.0.3", "submit", "saxpy"},
	} {
		if err := a.Log(e[0], e[1], e[2], e[3]); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-11-28T09:00:00Z","who":"dee","act`) // cut by a kill
	f.Close()
	left, err := Unfinished(path)
	if err != nil || strings.Join(left, ",") != "bob pool,cy saxpy" {
		t.Errorf("unfinished: %q %v", left, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the log's mode %v", st.Mode().Perm())
	}
}

// Over a Unix socket (an authenticating proxy on this machine): a file in
// the way is refused, a killed server's socket replaced, a live one's
// not; its mode keeps the machine's other users out.
func TestListenUnix(t *testing.T) {
	dir, err := os.MkdirTemp("", "acc") // short: a socket's path has 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "class.sock")
	os.WriteFile(path, nil, 0o600)
	if _, err := Listen("unix:"+path, "", "", ""); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("a file in the way: %v", err)
	}
	os.Remove(path)
	stale, _ := net.Listen("unix", path)
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	ln, err := Listen("unix:"+path, "", "", "")
	if err != nil {
		t.Fatalf("over a killed server's socket: %v", err)
	}
	defer ln.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the socket's mode: %v, want 0600", st.Mode().Perm())
	}
	if _, err := Listen("unix:"+path, "", "", ""); err == nil || !strings.Contains(err.Error(), "another server listens") {
		t.Errorf("a second server on the socket: %v", err)
	}
	if _, err := Listen("unix:rel.sock", "", "", ""); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("a relative path: %v", err)
	}
}
