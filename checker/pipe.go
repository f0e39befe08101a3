package checker

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"time"
)

// Pipe is the pipe a run's statistics record comes over and the key its
// frames are signed with: made for one run, so that a record of another
// run, or of the program's own making, does not verify. It is drained into
// a Channel as the program writes (a full pipe would block the program).
// A graded run (internal/exercise) and a traced lesson cell
// (internal/notebook) each open one.
type Pipe struct {
	// W is the program's end: the first of its ExtraFiles, descriptor 3.
	W    *os.File
	key  []byte
	r    *os.File
	ch   *Channel
	done chan struct{}
}

// OpenPipe makes a run's pipe and its fresh key.
func OpenPipe() (*Pipe, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &Pipe{W: w, key: key, r: r, ch: NewChannel(key), done: make(chan struct{})}
	go func() {
		io.Copy(p.ch, r)
		close(p.done)
	}()
	return p, nil
}

// Env is what the statistics library is told: its descriptor (W, the
// first of the run's ExtraFiles) and the key.
func (p *Pipe) Env() []string {
	return []string{"LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(p.key)}
}

// Finish reads the record to its end once the program has ended: the
// frames are in the pipe already, and only a process the program left
// behind (in a session of its own) holds it open longer than grace.
func (p *Pipe) Finish(grace time.Duration) (*Received, error) {
	p.W.Close()
	p.r.SetReadDeadline(time.Now().Add(grace))
	<-p.done
	p.r.Close()
	return p.ch.Close()
}
