// Package python runs a lesson's Python cells where Python is but no
// Jupyter kernel: one plain python3 process per lesson run, with a small
// driver of this package's own (driver.py, embedded), which runs the cells
// in order in one namespace, ! lines through the shell, and streams what
// they print. IPython's magics are not there; the ones course notebooks
// lean on (%cd, %env, %pip, %matplotlib, %time, %timeit, %%capture, the
// script magics such as %%script python) are done by the driver, the
// others fail the cell with why.
package python

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/lesson"
)

//go:embed driver.py
var driverSource string

// Interpreter is a python3 found on the machine.
type Interpreter struct {
	Path    string
	Version string // 3.12.3
}

// Find looks for python3 on the PATH and asks it its version.
func Find(ctx context.Context) (*Interpreter, error) {
	path, err := exec.LookPath("python3")
	if err != nil {
		return nil, errors.New("no python3 on the PATH")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-c", "import sys; print(sys.version.split()[0])").Output()
	if err != nil {
		return nil, fmt.Errorf("%s does not run: %v", path, err)
	}
	return &Interpreter{Path: path, Version: strings.TrimSpace(string(out))}, nil
}

// Way says how Python cells run with this interpreter, for run, show and
// the page.
func (i *Interpreter) Way() string {
	v := i.Version
	if parts := strings.SplitN(v, ".", 3); len(parts) == 3 {
		v = parts[0] + "." + parts[1]
	}
	return fmt.Sprintf("Python %s, no Jupyter kernel: IPython's magics are not available", v)
}

// Session is one python3 process running one lesson's cells.
type Session struct {
	interp *Interpreter
	proc   *Process
	req    *os.File
	nonce  string
	frames chan frame

	mu   sync.Mutex
	sink io.Writer // where the running cell's output goes
}

// frame is what the driver says between the cells' output.
type frame struct {
	Ready   string            `json:"ready"`
	Done    *int              `json:"done"`
	OK      bool              `json:"ok"`
	Ename   string            `json:"ename"`
	Evalue  string            `json:"evalue"`
	Display map[string]string `json:"display"`
	Result  map[string]string `json:"result"`
}

// Start starts python3 with the driver in dir, with env as its whole
// environment, in a process group of its own (an interrupt reaches the
// commands of its ! lines too).
func Start(ctx context.Context, interp *Interpreter, dir string, env []string) (*Session, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	var nb [8]byte
	rand.Read(nb[:])
	s := &Session{interp: interp, req: reqW, nonce: hex.EncodeToString(nb[:]), frames: make(chan frame, 64)}
	cmd := exec.Command(interp.Path, "-u", "-c", driverSource)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(env), "LESSONS_PY_NONCE="+s.nonce, "LESSONS_PY_FD=3", "MPLBACKEND=Agg", "PYTHONUNBUFFERED=1")
	cmd.Stdout, cmd.Stderr = outW, outW
	cmd.ExtraFiles = []*os.File{reqR}
	if s.proc, err = StartProcess(cmd, "the Python process"); err != nil {
		reqR.Close()
		reqW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %s: %w", interp.Path, err)
	}
	reqR.Close()
	outW.Close()
	go s.read(outR)
	var startup bytes.Buffer
	s.setSink(&startup)
	select {
	case f := <-s.frames:
		if f.Ready == "" {
			s.Close()
			return nil, fmt.Errorf("start the Python driver: it said %+v first", f)
		}
	case <-s.proc.Exited():
		return nil, fmt.Errorf("start the Python driver with %s: it ended at once: %s", interp.Path, strings.TrimSpace(startup.String()))
	case <-time.After(30 * time.Second):
		s.Close()
		return nil, fmt.Errorf("start the Python driver with %s: not ready after 30 s", interp.Path)
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
	return s, nil
}

func (s *Session) setSink(w io.Writer) {
	s.mu.Lock()
	s.sink = w
	s.mu.Unlock()
}

func (s *Session) write(p []byte) {
	s.mu.Lock()
	w := s.sink
	s.mu.Unlock()
	if w != nil && len(p) > 0 {
		w.Write(p)
	}
}

// read copies the process's output to the running cell's writer and takes
// the driver's frames out of it.
func (s *Session) read(r io.ReadCloser) {
	defer close(s.frames)
	defer r.Close()
	sp := &splitter{marker: []byte("\x1e" + s.nonce), text: s.write, frame: func(f frame) { s.frames <- f }}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		sp.Write(buf[:n])
		if err != nil {
			sp.Flush()
			return
		}
	}
}

// splitter takes the driver's frames out of its output stream: the text
// between them goes to text, each frame to frame.
type splitter struct {
	marker  []byte
	pending []byte
	text    func([]byte)
	frame   func(frame)
}

func (sp *splitter) Write(p []byte) (int, error) {
	sp.pending = append(sp.pending, p...)
	for {
		i := bytes.Index(sp.pending, sp.marker)
		if i < 0 {
			break
		}
		end := bytes.IndexByte(sp.pending[i:], '\n')
		if end < 0 {
			break
		}
		sp.text(sp.pending[:i])
		var f frame
		if json.Unmarshal(sp.pending[i+len(sp.marker):i+end], &f) == nil {
			sp.frame(f)
		}
		sp.pending = sp.pending[i+end+1:]
	}
	// Hold back only what could be the start of a frame.
	keep := 0
	if i := bytes.Index(sp.pending, sp.marker); i >= 0 {
		keep = len(sp.pending) - i
	} else if j := bytes.LastIndexByte(sp.pending, '\x1e'); j >= 0 && bytes.HasPrefix(sp.marker, sp.pending[j:]) {
		keep = len(sp.pending) - j
	}
	sp.text(sp.pending[:len(sp.pending)-keep])
	sp.pending = append([]byte(nil), sp.pending[len(sp.pending)-keep:]...)
	return len(p), nil
}

// Flush gives what is held back as text: the stream ended.
func (sp *splitter) Flush() {
	sp.text(sp.pending)
	sp.pending = nil
}

// Result is how one cell went.
type Result struct {
	OK bool
	// Ename and Evalue name the exception that ended the cell.
	Ename, Evalue string
	TimedOut      bool
	Canceled      bool
	// Outputs are the cell's images and results, as a notebook records
	// them; its text went to the writer.
	Outputs []lesson.Output
	// Busy is how long a Jupyter kernel says it worked on the cell (from
	// its status busy to its status idle, by their own dates): what
	// lessons adds is the rest of the cell's time. 0 for the driver.
	Busy time.Duration
}

// Reason says in words why the cell failed.
func (r *Result) Reason(timeout time.Duration) string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %s and was interrupted", timeout)
	case r.Canceled:
		return "interrupted"
	case r.Ename != "":
		return r.Ename + ": " + firstLine(r.Evalue)
	}
	return ""
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// Run runs cell n's code in the session, its output to out as it comes.
// At the time limit or when ctx ends it interrupts the cell (SIGINT to the
// process group, as Jupyter's interrupt does) and kills the process if the
// cell does not stop within the grace; the session is then over.
func (s *Session) Run(ctx context.Context, n int, code string, out io.Writer, timeout time.Duration) (*Result, error) {
	if err := s.proc.Err(); err != nil {
		return nil, err
	}
	s.setSink(out)
	defer s.setSink(nil)
	req, _ := json.Marshal(map[string]any{"n": n, "code": code})
	if _, err := s.req.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("send cell [%d] to Python: %w", n, err)
	}
	w := s.proc.Watch(ctx, timeout)
	defer w.Stop()
	res := &Result{}
	for {
		select {
		case f, ok := <-s.frames:
			if !ok {
				<-s.proc.Exited()
				res.TimedOut, res.Canceled = w.TimedOut, w.Canceled
				return res, s.proc.Err()
			}
			switch {
			case f.Done != nil && *f.Done == n:
				res.OK, res.Ename, res.Evalue = f.OK && !w.Stopped(), f.Ename, f.Evalue
				res.TimedOut, res.Canceled = w.TimedOut, w.Canceled
				return res, nil
			case f.Display != nil:
				res.Outputs = append(res.Outputs, output("display_data", f.Display))
			case f.Result != nil:
				res.Outputs = append(res.Outputs, output("execute_result", f.Result))
			}
		case <-w.Limit:
			w.Expire()
		case <-w.Done:
			w.Cancel()
		case <-w.Kill:
			w.KillNow()
		}
	}
}

func output(typ string, data map[string]string) lesson.Output {
	o := lesson.Output{Type: typ, Text: data["text/plain"]}
	for mime, d := range data {
		if strings.HasPrefix(mime, "image/") {
			o.MIME, o.Data = mime, d
		}
	}
	return o
}

// Alive reports whether the process still runs cells.
func (s *Session) Alive() bool { return s.proc.Alive() }

// Close ends the session: the driver's input is closed, and the process
// group killed if it has not ended within the grace.
func (s *Session) Close() error {
	s.req.Close()
	s.proc.End()
	return nil
}
