// Package watch tells when files change, the way editors really save them:
// written in place, written to a temporary file and renamed over the old
// one, or deleted and created again, often several events per save. It
// watches the files' folders with fsnotify, or polls where fsnotify cannot
// be used, and Debounce turns a burst of events into one.
package watch

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher reports changes to a set of files. Events carries the changed
// file's path, as it was given to New.
type Watcher interface {
	Events() <-chan string
	Errors() <-chan error
	Close() error
}

// New watches files with fsnotify; when that cannot be set up (no inotify,
// its limits reached), it polls every interval. poll forces polling.
func New(files []string, poll bool, interval time.Duration) (Watcher, error) {
	if !poll {
		if w, err := NewNotify(files); err == nil {
			return w, nil
		}
	}
	return NewPoll(files, interval), nil
}

// interest maps a cleaned absolute path to the name it was given as.
func interest(files []string) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			abs = f
		}
		m[filepath.Clean(abs)] = f
	}
	return m
}

type notify struct {
	w      *fsnotify.Watcher
	files  map[string]string
	events chan string
	errs   chan error
	done   chan struct{}
	once   sync.Once
}

// NewNotify watches the folders holding files, so that a file replaced by
// a rename or deleted and created again is still seen.
func NewNotify(files []string) (Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	n := &notify{w: w, files: interest(files), events: make(chan string, 64), errs: make(chan error, 4), done: make(chan struct{})}
	dirs := map[string]bool{}
	for abs := range n.files {
		dirs[filepath.Dir(abs)] = true
	}
	for d := range dirs {
		if err := w.Add(d); err != nil {
			w.Close()
			return nil, err
		}
	}
	go n.loop()
	return n, nil
}

func (n *notify) loop() {
	defer close(n.events)
	for {
		select {
		case ev, ok := <-n.w.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if name, ok := n.files[filepath.Clean(ev.Name)]; ok {
				select {
				case n.events <- name:
				case <-n.done:
					return
				}
			}
		case err, ok := <-n.w.Errors:
			if !ok {
				return
			}
			select {
			case n.errs <- err:
			default:
			}
		case <-n.done:
			return
		}
	}
}

func (n *notify) Events() <-chan string { return n.events }
func (n *notify) Errors() <-chan error  { return n.errs }
func (n *notify) Close() error {
	n.once.Do(func() { close(n.done) })
	return n.w.Close()
}

// poll compares each file's size, time and identity every interval.
type poll struct {
	files  map[string]string
	events chan string
	errs   chan error
	done   chan struct{}
	once   sync.Once
}

type stamp struct {
	exists bool
	size   int64
	mod    time.Time
	info   os.FileInfo
}

func stat(path string) stamp {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, size: st.Size(), mod: st.ModTime(), info: st}
}

func (a stamp) differs(b stamp) bool {
	if a.exists != b.exists {
		return true
	}
	if !a.exists {
		return false
	}
	return a.size != b.size || !a.mod.Equal(b.mod) || !os.SameFile(a.info, b.info)
}

// NewPoll watches files by looking at them every interval: slower, but it
// works on file systems that send no events (some network and container
// mounts).
func NewPoll(files []string, interval time.Duration) Watcher {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	t := time.NewTicker(interval)
	p := newPoll(files, t.C)
	go func() {
		<-p.done
		t.Stop()
	}()
	return p
}

// newPoll looks at files at each tick.
func newPoll(files []string, ticks <-chan time.Time) *poll {
	p := &poll{files: interest(files), events: make(chan string, 64), errs: make(chan error), done: make(chan struct{})}
	last := map[string]stamp{}
	for abs := range p.files {
		last[abs] = stat(abs)
	}
	go func() {
		defer close(p.events)
		for {
			select {
			case <-p.done:
				return
			case <-ticks:
			}
			for abs, name := range p.files {
				now := stat(abs)
				if now.differs(last[abs]) {
					last[abs] = now
					select {
					case p.events <- name:
					case <-p.done:
						return
					}
				}
			}
		}
	}()
	return p
}

func (p *poll) Events() <-chan string { return p.events }
func (p *poll) Errors() <-chan error  { return p.errs }
func (p *poll) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// Settle is how long Debounce waits after the first event of a burst
// before it passes the burst on: the events of one save (a write, or a
// temporary file renamed over the old one, or a delete and a create) come
// within a millisecond or two of each other.
const Settle = 30 * time.Millisecond

// Debounce turns bursts of events into batches of changed files. The
// first events of a burst are passed on as soon as they pause for Settle
// (or d, if shorter), so that a check can start at once; events after
// that, until the files have been quiet for d, make one more batch when
// the burst is over. One save gives one batch, without waiting for d; a
// burst (a formatter rewriting the file just after the save) gives a
// batch at its start and one at its end, and the session starts its check
// again on the last, so one verdict is shown per burst. The output closes
// when in does.
func Debounce(in <-chan string, d time.Duration) <-chan []string {
	return DebounceClock(in, d, realClock{})
}

// Clock makes the timers of DebounceClock: the real one, or in tests a
// fake one that moves only when the test says.
type Clock interface {
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// DebounceClock is Debounce with the timers of clock.
func DebounceClock(in <-chan string, d time.Duration, clock Clock) <-chan []string {
	settle := min(Settle, d)
	out := make(chan []string)
	go func() {
		defer close(out)
		var pending []string
		seen := map[string]bool{}
		var leading, trailing <-chan time.Time
		inBurst := false // the burst's first batch is out; waiting for d of quiet
		emit := func() {
			if len(pending) > 0 {
				out <- pending
			}
			pending, seen = nil, map[string]bool{}
		}
		for {
			select {
			case name, ok := <-in:
				if !ok {
					emit()
					return
				}
				if !seen[name] {
					seen[name] = true
					pending = append(pending, name)
				}
				if inBurst {
					trailing = clock.After(d)
				} else {
					leading = clock.After(settle)
				}
			case <-leading:
				leading = nil
				emit()
				inBurst, trailing = true, clock.After(max(d-settle, 0))
			case <-trailing:
				trailing = nil
				emit()
				inBurst = false
			}
		}
	}()
	return out
}
