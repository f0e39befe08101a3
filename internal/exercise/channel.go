package exercise

import (
	"errors"
	"fmt"
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

// forkedWork says why a run's record cannot be trusted when a child the
// program forked called CUDA and the exercise's checks read no statistic
// of its children (spec.ReadsChildren): a check with no scope reads the
// program's own process, so the work done in a child (a hundred
// cudaMalloc, forked before the program's first CUDA call) passed a check
// of one while the outside witness, which counts the program and its
// children together, agreed (fork_work.cu of the corpus). An exercise
// about several processes names its children's statistics and is judged
// as before. "" when no child called CUDA.
func forkedWork(spec *checker.Spec, rec *checker.Received) string {
	if rec == nil || rec.Children == nil || spec == nil || spec.ReadsChildren() {
		return ""
	}
	return fmt.Sprintf("%d child process(es) the program forked called CUDA, and this exercise's checks read the program's own process alone: the work done there is in no check; do the exercise's work in the program itself", len(rec.ChildGuards))
}

// startedPrograms says why a run's record cannot be trusted when the
// program, or a child it forked, started another program (exec,
// posix_spawn, system, popen): what runs there has no channel, so its
// CUDA calls are not counted, and a program that starts itself again
// without the library does the work its own way, unseen, while its own
// record says what a right one's does. No exercise needs one. "" when
// none was started. A Python script is held to it too: one that ran its
// work in a second interpreter without the library (subprocess,
// multiprocessing's spawn) passed with the first one's record
// (spawn_python.py, mp_spawn.py of the corpus). A PyTorch or CuPy run
// that starts a helper fails here too, and says so.
func startedPrograms(rec *checker.Received) string {
	if rec == nil {
		return ""
	}
	n := uint64(0)
	if rec.Stats != nil {
		n += rec.Stats.Execs
	}
	if rec.Children != nil {
		n += rec.Children.Execs
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the program started another program %d time(s) (exec, posix_spawn, system or popen): what runs there has no statistics record, so its CUDA calls are not counted; do the exercise's work in the program itself", n)
}
