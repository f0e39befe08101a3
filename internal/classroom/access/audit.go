package access

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Audit is the class's audit log: one JSON line an action (who, from
// where, what), appended and synced before the action is answered, so
// that a server killed right after loses no line of what it did.
type Audit struct {
	mu    sync.Mutex
	f     *os.File
	clock func() time.Time
}

// Entry is one line of the audit log.
type Entry struct {
	Time   time.Time `json:"time"`
	Who    string    `json:"who"` // a student's id, "instructor", or "-" before sign-in
	From   string    `json:"from"`
	Action string    `json:"action"`
	Detail string    `json:"detail,omitempty"`
}

// OpenAudit opens (or makes) the audit log at path, for appending only.
func OpenAudit(path string, clock func() time.Time) (*Audit, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the audit log: %w", err)
	}
	return &Audit{f: f, clock: clock}, nil
}

// Log appends an entry and syncs it; an error means the action must not
// go ahead (it would be unrecorded).
func (a *Audit) Log(who, from, action, detail string) error {
	data, _ := json.Marshal(Entry{Time: a.clock().UTC(), Who: who, From: from, Action: action, Detail: detail})
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("audit log %s: %w", a.f.Name(), err)
	}
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("audit log %s: %w", a.f.Name(), err)
	}
	return nil
}

// Close closes the log.
func (a *Audit) Close() error { return a.f.Close() }

// Unfinished are the submissions the log shows started and never
// ended (graded, or stopped): those of a server that was killed. Each
// is "who exercise".
func Unfinished(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	open := map[string]bool{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a line cut by the kill
		}
		ex, _, _ := strings.Cut(e.Detail, " ")
		ex = strings.TrimSuffix(ex, ":")
		key := e.Who + " " + ex
		switch e.Action {
		case "submit":
			if !open[key] {
				order = append(order, key)
			}
			open[key] = true
		case "submitted", "submit stopped":
			open[key] = false
		}
	}
	var out []string
	for _, k := range order {
		if open[k] {
			out = append(out, k)
		}
	}
	return out, sc.Err()
}
