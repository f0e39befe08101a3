package exercise

import (
	"errors"
	"time"

	"github.com/cudalessons/lessons/checker"
)

// drainGrace is how long the record is still read after the program
// ended: its frames are in the pipe already; only a process it left
// behind (in a session of its own) can hold the pipe open longer.
const drainGrace = 2 * time.Second

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
