package python

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/runner"
)

// Replayed is a session whose cells run where no process may outlive a
// run: a sandbox behind a queue (the class server's). Each cell is one
// run of the driver through Runner, which first runs the Python cells
// above it that this session ran (the last run of each that went well,
// in the page's order), for their state, their output left out, then
// the cell: what Jupyter's "Run All Above" would give. So a cell sees
// what the cells above it set, at the cost of running them again (the
// time limit covers them all); a cell below, run before, is not there.
type Replayed struct {
	Interp    *Interpreter
	Runner    runner.Runner
	Dir       string
	Env       []string
	MaxOutput int64

	mu      sync.Mutex
	history []replayCell
}

type replayCell struct {
	N    int    `json:"n"`
	Code string `json:"code"`
}

// Run runs cell n's code after the cells before it, its output (and only
// its) to out as it comes.
func (s *Replayed) Run(ctx context.Context, n int, code string, out io.Writer, timeout time.Duration) (*Result, error) {
	s.mu.Lock()
	before := slices.DeleteFunc(slices.Clone(s.history), func(c replayCell) bool { return c.N >= n })
	s.mu.Unlock()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer reqR.Close()
	go func() {
		enc := json.NewEncoder(reqW)
		for _, c := range append(before, replayCell{n, code}) {
			if enc.Encode(c) != nil {
				break
			}
		}
		reqW.Close()
	}()
	var nb [8]byte
	rand.Read(nb[:])
	nonce := hex.EncodeToString(nb[:])
	res := &Result{}
	var done []string // how the cells before went
	ready, ran := false, 0
	// Before the driver is ready, what is written is the runner's own
	// (the queue's place) or Python's failing start: shown. Then only
	// the last cell's output is.
	sp := &splitter{marker: []byte("\x1e" + nonce), text: func(p []byte) {
		if len(p) > 0 && (!ready || ran == len(before)) {
			out.Write(p)
		}
	}}
	sp.frame = func(f frame) {
		switch {
		case f.Ready != "":
			ready = true
		case f.Done != nil && ran < len(before):
			st := "ok"
			if !f.OK {
				st = "failed: " + f.Ename
			}
			done = append(done, fmt.Sprintf("[%d] %s", *f.Done, st))
			ran++
			if ran == len(before) {
				fmt.Fprintf(out, "(the Python cells run before ran again first, for their state: %s)\n", strings.Join(done, ", "))
			}
		case f.Done != nil:
			res.OK, res.Ename, res.Evalue = f.OK, f.Ename, f.Evalue
			ran++
		case ran == len(before) && f.Display != nil:
			res.Outputs = append(res.Outputs, output("display_data", f.Display))
		case ran == len(before) && f.Result != nil:
			res.Outputs = append(res.Outputs, output("execute_result", f.Result))
		}
	}
	env := append(slices.Clip(s.Env), "LESSONS_PY_NONCE="+nonce, "LESSONS_PY_FD=3", "MPLBACKEND=Agg", "PYTHONUNBUFFERED=1")
	rr, err := s.Runner.Run(ctx, runner.Spec{
		Argv: []string{s.Interp.Path, "-u", "-c", driverSource}, Dir: s.Dir, Env: env,
		Timeout: timeout, MaxOutput: s.MaxOutput, ExtraFiles: []*os.File{reqR},
	}, sp)
	sp.Flush()
	if err != nil {
		return nil, err
	}
	res.TimedOut, res.Canceled = rr.TimedOut, rr.Canceled
	switch {
	case ran <= len(before) && !res.TimedOut && !res.Canceled:
		// The driver ended before the cell did: killed (memory, output),
		// or Python did not start.
		why := rr.Reason(timeout, s.MaxOutput)
		if why == "" {
			why = fmt.Sprintf("exited with status %d", rr.ExitCode)
		}
		return nil, errors.New("Python ended before the cell did: " + why)
	case !rr.OK():
		res.OK = false
	}
	if res.OK {
		s.mu.Lock()
		s.history = append(slices.DeleteFunc(s.history, func(c replayCell) bool { return c.N == n }), replayCell{n, code})
		slices.SortFunc(s.history, func(a, b replayCell) int { return a.N - b.N })
		s.mu.Unlock()
	}
	return res, nil
}

// Alive is always so: no process is kept between cells.
func (s *Replayed) Alive() bool { return true }

// Close forgets the cells run: the next starts from nothing, as a
// restarted kernel does.
func (s *Replayed) Close() error {
	s.mu.Lock()
	s.history = nil
	s.mu.Unlock()
	return nil
}
