package classroom

import (
	"encoding/json"
	"fmt"
	"os"
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
