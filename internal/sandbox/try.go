package sandbox

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/cudalessons/lessons/internal/runner"
)

// Tried is how a program run by Try ended: Code is its own exit status,
// to pass on, when it exited by itself above 0.
type Tried struct {
	Result *runner.Result
	Code   int
}

// Try is lessons sandbox: it runs argv in the sandbox of pol in the
// current folder (the one folder it may write), as user uid when not 0,
// in a cgroup of its own unless noCgroup, its output to out. report is
// told first what the sandbox gives it here. A program that did not end
// by itself (a limit, a signal) is an error that says why.
func Try(ctx context.Context, pol Policy, uid int, noCgroup bool, argv []string, out io.Writer, report func(Report)) (*Tried, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	pol.Dir = dir
	if uid != 0 {
		pol.UID, pol.GID = uid, uid
	}
	r := Runner{Policy: pol}
	noGroup := "--no-cgroup"
	if !noCgroup {
		if r.Cgroups, err = OpenCgroups(); err != nil {
			noGroup = err.Error()
		}
		defer r.Cgroups.Close()
	}
	rep := r.Verify(ctx)
	if r.Cgroups == nil {
		rep.NoCgroup = noGroup
	}
	if os.Geteuid() == 0 && uid == 0 {
		// root without --uid runs the program as root: advice to run
		// as root would say nothing
		rep.As = "root (--uid N runs it as user N)"
	}
	report(rep)
	res, err := r.Run(ctx, runner.Spec{Argv: argv, Dir: dir, Env: os.Environ()}, out)
	if err != nil {
		return nil, err
	}
	if res.ExitCode > 0 && !res.TimedOut && !res.Truncated && !res.Canceled && res.Signal == 0 {
		// the program's own verdict, passed on as it is, as env and
		// time do; it has said what it had to say
		return &Tried{Result: res, Code: res.ExitCode}, nil
	}
	if !res.OK() {
		return nil, errors.New("sandbox: " + argv[0] + ": " + res.Reason(0, 0))
	}
	return &Tried{Result: res}, nil
}
