package exercise

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"time"

	"github.com/cudalessons/lessons/checker"
)

// statsChannel is the pipe a run's statistics record comes over, and the
// key its frames are signed with: made for one run, so that a record of
// another run, or of the program's own making, does not verify.
type statsChannel struct {
	key  []byte
	r, w *os.File
	ch   *checker.Channel
	done chan struct{}
}

// drainGrace is how long the record is still read after the program
// ended: its frames are in the pipe already; only a process it left
// behind (in a session of its own) can hold the pipe open longer.
const drainGrace = 2 * time.Second

func openStatsChannel() (*statsChannel, error) {
	key := make([]byte, checker.KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &statsChannel{key: key, r: r, w: w, ch: checker.NewChannel(key), done: make(chan struct{})}
	// Drained as the program runs: a full pipe would block the program.
	go func() {
		io.Copy(c.ch, r)
		close(c.done)
	}()
	return c, nil
}

// env is what the library is told: its descriptor (the first of the
// run's ExtraFiles) and the key.
func (c *statsChannel) env() []string {
	return []string{"LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(c.key)}
}

// finish reads the record to its end once the program has ended.
func (c *statsChannel) finish() (*checker.Received, error) {
	c.w.Close()
	c.r.SetReadDeadline(time.Now().Add(drainGrace))
	<-c.done
	c.r.Close()
	return c.ch.Close()
}

// trust decides what of a run's record may be judged: the record, and why
// it cannot be trusted ("" when it can). A record cut short by a run that
// was stopped or crashed keeps its last snapshot (the failed "ends by
// itself" check says what happened); one cut short by a program that
// ended by itself (_exit) is untrusted; a forged one is thrown away.
func trust(run *checker.Run, rec *checker.Received, err error, stopped bool, found string) {
	if rec != nil {
		run.Stats, run.Children = rec.Stats, rec.Children
		if p := rec.Problem(); p != "" {
			run.Untrusted = p
		}
	}
	var ce *checker.ChannelError
	switch {
	case err == nil:
	case errors.As(err, &ce) && ce.CutShort:
		if !stopped {
			run.Untrusted = ce.Reason
		}
	default:
		run.Stats, run.Children, run.StatsErr, run.Untrusted = nil, nil, err.Error(), err.Error()
	}
	if found != "" {
		run.Untrusted = found
	}
}
