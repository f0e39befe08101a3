package access

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/cudalessons/lessons/internal/safefs"
)

// Roles of a signed-in person.
const (
	RoleStudent    = "student"
	RoleInstructor = "instructor"
)

// SessionLife is how long a sign-in lasts.
const SessionLife = 14 * 24 * time.Hour

// ErrBadLink is a sign-in link that is unknown, used or too old.
var ErrBadLink = errors.New("this sign-in link is not valid: it was used already, replaced, or mistyped; ask your instructor for a new one")

// Grant is what a secret (a link's, a session's) stands for. Only the
// secret's hash is kept on disk: a copy of the class folder signs no one in.
type Grant struct {
	Who     string    `json:"who"`
	Role    string    `json:"role"`
	Made    time.Time `json:"made"`
	Expires time.Time `json:"expires,omitempty"`
	Used    time.Time `json:"used,omitempty"`
	Kind    string    `json:"kind,omitempty"` // "cookie" or "api", for sessions
}

// Keys keeps the class's sign-in links and sessions in the class's
// private folder, each file rewritten whole (synced, renamed) under a
// lock, so that lessons invite may add links while the server runs.
type Keys struct {
	dir   string
	clock func() time.Time
	mu    sync.Mutex

	cacheMu    sync.Mutex
	cached     map[string]*Grant // sessions.json as last read
	cachedAt   time.Time
	cachedSize int64
}

// NewKeys keeps keys in dir (the class's private folder).
func NewKeys(dir string, clock func() time.Time) *Keys { return &Keys{dir: dir, clock: clock} }

// Secret is a fresh random secret, hex: a sign-in link's, a session's, a
// page's token.
func Secret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("classroom: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// locked runs fn with the file of name read into m, and writes m back
// when fn says so; the lock is held across processes.
func (k *Keys) locked(name string, fn func(m map[string]*Grant) (write bool, err error)) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	lf, err := os.OpenFile(filepath.Join(k.dir, "keys.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock the class's keys: %w", err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock the class's keys: %w", err)
	}
	path := filepath.Join(k.dir, name)
	m := map[string]*Grant{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("read %s: %w (restore it, or delete it and send new links)", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	write, err := fn(m)
	if err != nil || !write {
		return err
	}
	data, _ = json.MarshalIndent(m, "", " ")
	return safefs.WriteAtomic(path, data, 0o600)
}

// Invite makes a new sign-in secret for who (a student's id, or
// "instructor"); the links made for them before stop working.
func (k *Keys) Invite(who, role string) (string, error) {
	s := Secret()
	now := k.clock()
	err := k.locked("invites.json", func(m map[string]*Grant) (bool, error) {
		for h, g := range m {
			if g.Who == who && g.Used.IsZero() {
				delete(m, h)
			}
		}
		m[hashOf(s)] = &Grant{Who: who, Role: role, Made: now, Expires: now.Add(30 * 24 * time.Hour)}
		return true, nil
	})
	return s, err
}

// Redeem uses a sign-in secret, once, and opens a session for its
// person: the session's secret goes in the cookie.
func (k *Keys) Redeem(link string) (session string, g Grant, err error) {
	now := k.clock()
	err = k.locked("invites.json", func(m map[string]*Grant) (bool, error) {
		found := m[hashOf(link)]
		if found == nil || !found.Used.IsZero() || now.After(found.Expires) {
			return false, ErrBadLink
		}
		found.Used = now
		g = *found
		return true, nil
	})
	if err != nil {
		return "", g, err
	}
	session, err = k.Open(g.Who, g.Role, "cookie")
	return session, g, err
}

// MaxBrowsers is how many browsers one person may be signed in from at
// once: past it, a sign-in ends their oldest session.
const MaxBrowsers = 8

// Open starts a session for who, kept on disk (a restart keeps people
// signed in); kind is "cookie" or "api" (lessons submit's token). A new
// token replaces the person's last, and a sign-in past MaxBrowsers ends
// their oldest: the file, read again by every request after a change,
// stays the size of the class, whatever one person asks for.
func (k *Keys) Open(who, role, kind string) (string, error) {
	s := Secret()
	now := k.clock()
	return s, k.locked("sessions.json", func(m map[string]*Grant) (bool, error) {
		var theirs []string
		for h, g := range m {
			switch {
			case now.After(g.Expires):
				delete(m, h)
			case g.Who == who && g.Kind == kind:
				theirs = append(theirs, h)
			}
		}
		keep := MaxBrowsers - 1
		if kind == "api" {
			keep = 0
		}
		sort.Slice(theirs, func(i, j int) bool { return m[theirs[i]].Made.After(m[theirs[j]].Made) })
		for _, h := range theirs[min(keep, len(theirs)):] {
			delete(m, h)
		}
		m[hashOf(s)] = &Grant{Who: who, Role: role, Made: now, Expires: now.Add(SessionLife), Kind: kind}
		return true, nil
	})
}

// Session is who a session's secret stands for, if it is live. Every
// request asks: the file is read again only when it changed (a sign-in,
// a sign-out), as its size and time say.
func (k *Keys) Session(s string) (Grant, bool) {
	if s == "" {
		return Grant{}, false
	}
	path := filepath.Join(k.dir, "sessions.json")
	st, err := os.Stat(path)
	if err != nil {
		return Grant{}, false
	}
	k.cacheMu.Lock()
	defer k.cacheMu.Unlock()
	if k.cached == nil || !st.ModTime().Equal(k.cachedAt) || st.Size() != k.cachedSize {
		k.cached = nil
		k.locked("sessions.json", func(m map[string]*Grant) (bool, error) {
			k.cached = m
			return false, nil
		})
		k.cachedAt, k.cachedSize = st.ModTime(), st.Size()
	}
	if found := k.cached[hashOf(s)]; found != nil && !k.clock().After(found.Expires) {
		return *found, true
	}
	return Grant{}, false
}

// Close ends a session.
func (k *Keys) Close(s string) error {
	return k.locked("sessions.json", func(m map[string]*Grant) (bool, error) {
		delete(m, hashOf(s))
		return true, nil
	})
}

// Limiter limits failed sign-in attempts from one address: Burst at
// once, then one every Every. A sign-in that succeeds costs nothing, so a
// class behind one address (a NAT, a proxy, a lab) signs in whole; a
// guesser is held up.
type Limiter struct {
	Burst int
	Every time.Duration
	clock func() time.Time

	mu   sync.Mutex
	seen map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewLimiter limits to burst failed attempts, then one every every.
func NewLimiter(burst int, every time.Duration, clock func() time.Time) *Limiter {
	return &Limiter{Burst: burst, Every: every, clock: clock, seen: map[string]*bucket{}}
}

// bucket is addr's bucket, refilled to now; mu is held.
func (l *Limiter) bucket(addr string) *bucket {
	now := l.clock()
	b := l.seen[addr]
	if b == nil {
		if len(l.seen) > 100000 { // a flood of addresses: forget the full buckets
			for a, o := range l.seen {
				if now.Sub(o.at) > time.Duration(l.Burst)*l.Every {
					delete(l.seen, a)
				}
			}
		}
		b = &bucket{tokens: float64(l.Burst), at: now}
		l.seen[addr] = b
	}
	b.tokens = min(float64(l.Burst), b.tokens+float64(now.Sub(b.at))/float64(l.Every))
	b.at = now
	return b
}

// Allow says whether addr may try to sign in now, or how long to wait.
func (l *Limiter) Allow(addr string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.bucket(addr); b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) * float64(l.Every))
	}
	return true, 0
}

// Failed takes one attempt from addr's bucket: a sign-in that failed.
func (l *Limiter) Failed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bucket(addr).tokens--
}
