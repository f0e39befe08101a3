package pilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/safefs"
)

// Executor does a worker's jobs on its node: a cell in the sandbox, an
// exercise built or run and judged as lessons grade does.
type Executor interface {
	// Cell runs the job's command in ws (the workspace's copy, its
	// files in place) on the job's GPU, its output to out.
	Cell(ctx context.Context, job *Job, ws string, out io.Writer) (Exit, error)
	// Build builds the exercise of the course unpacked in course from
	// the student's files; the result carries the program.
	Build(ctx context.Context, job *Job, course string, files []FileData) (*Result, error)
	// Run runs prog (the program built for the job) and judges it.
	Run(ctx context.Context, job *Job, course string, files []FileData, prog string) (*Result, error)
}

// Worker is a pilot job's worker: it connects to the class server and
// does the jobs it is given until ctx ends or the server lets it go.
type Worker struct {
	URL    string // the class server, as this node reaches it
	Secret string // the job's secret (never on a command line: ps shows those)
	Role   string // RoleGPU or RoleBuild
	GPUs   []string
	Host   string
	Dir    string // this node's folder: the files' cache, the workspaces
	Exec   Executor
	Client *http.Client
	Log    io.Writer
	// Flush is how often a cell's output is sent (and the server asked
	// whether the run is still wanted); 0: 200 ms.
	Flush time.Duration

	mu     sync.Mutex
	course map[string]string      // unpacked courses by hash
	wsLock map[string]*sync.Mutex // a workspace's runs, one at a time
}

// ReadSecret reads a pilot's secret from file (its job script wrote it
// there, readable by its user alone) and removes the file, so that no
// run on the node finds it later.
func ReadSecret(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("pilot: the job's secret: %w (the pilot runs in the job serve --class submits)", err)
	}
	if err := os.Remove(file); err != nil {
		return "", fmt.Errorf("pilot: remove the job's secret once read: %w", err)
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "", fmt.Errorf("pilot: the job's secret in %s is empty", file)
	}
	return s, nil
}

// Beat is how often a worker tells the server it is alive: well within
// the hub's lease (90 s by default).
const Beat = 20 * time.Second

// GoneError is the server's word that this worker is not (or no longer)
// one of its pilots: the worker stops.
type GoneError struct{ Status int }

func (e *GoneError) Error() string {
	return fmt.Sprintf("pilot: the class server refused this worker (HTTP %d): its job's secret is not (or no longer) the server's; the worker stops", e.Status)
}

// Run connects and works until ctx ends or the server lets it go.
func (w *Worker) Run(ctx context.Context) error {
	if w.Client == nil {
		w.Client = http.DefaultClient
	}
	if w.Log == nil {
		w.Log = io.Discard
	}
	if w.Flush <= 0 {
		w.Flush = 200 * time.Millisecond
	}
	w.course, w.wsLock = map[string]string{}, map[string]*sync.Mutex{}
	if err := w.prepare(); err != nil {
		return err
	}
	var wl welcome
	if err := w.post(ctx, "hello", hello{Role: w.Role, Host: w.Host, GPUs: w.GPUs}, &wl); err != nil {
		return err
	}
	fmt.Fprintf(w.Log, "pilot: worker %s on %s: %s, %d at once on each of %d GPU(s)\n", wl.Worker, w.Host, w.Role, wl.Per, len(w.GPUs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	devs := w.GPUs
	if w.Role == RoleBuild {
		devs = []string{""}
	}
	errc := make(chan error, len(devs)*max(wl.Per, 1)+1)
	var wg sync.WaitGroup
	// A beat renews the lease while every slot is busy with a long run
	// (an exercise's run streams nothing until it ends).
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(Beat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := w.post(ctx, "beat", struct{}{}, nil); errors.As(err, new(*GoneError)) {
					errc <- err
					cancel()
					return
				}
			}
		}
	}()
	for _, d := range devs {
		for slot := range max(wl.Per, 1) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := w.loop(ctx, d, indexOf(w.GPUs, d)*max(wl.Per, 1)+slot)
				if err != nil {
					errc <- err
					cancel()
				}
			}()
		}
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if ctx.Err() != nil && !errors.As(err, new(*GoneError)) {
			continue
		}
		return err
	}
	return nil
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return 0
}

// loop asks for jobs of device and does them, one at a time, on slot.
func (w *Worker) loop(ctx context.Context, device string, slot int) error {
	fails := 0
	for ctx.Err() == nil {
		var job Job
		err := w.post(ctx, "next", next{Device: device}, &job)
		if errors.As(err, new(*GoneError)) {
			return err
		}
		if err != nil {
			// The server restarting, or the network: try again for a
			// while, then stop (the job's time is the cluster's).
			fails++
			if fails > 30 {
				return fmt.Errorf("pilot: the class server at %s did not answer 30 times: %w", w.URL, err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		fails = 0
		if job.ID == "" {
			continue // the poll ended with nothing
		}
		job.Slot = slot
		res := w.do(ctx, &job)
		if err := w.post(ctx, "done/"+job.ID, res, nil); errors.As(err, new(*GoneError)) {
			return err
		}
	}
	return nil
}

// do does one job and says how it went; a failure of the tool is the
// result's Err.
func (w *Worker) do(ctx context.Context, job *Job) *Result {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var res *Result
	var err error
	switch job.Kind {
	case KindCell:
		res, err = w.cell(ctx, job, cancel)
	case KindBuild, KindRun:
		res, err = w.exercise(ctx, job)
	default:
		err = fmt.Errorf("pilot: a job of kind %q (this worker is older than the server?)", job.Kind)
	}
	if err != nil {
		res = &Result{Err: err.Error()}
	}
	// The node's log names the run, never the student (a cell's
	// workspace is a hash).
	what := job.Kind
	if job.Kind != KindCell {
		what += " " + job.Exercise
	}
	how := fmt.Sprintf("exit %d", res.Exit.Code)
	switch {
	case res.Err != "":
		how = "failed: " + res.Err
	case job.Kind == KindBuild && len(res.Prog) == 0:
		how = "did not compile"
	case job.Kind == KindBuild:
		how = fmt.Sprintf("built, %d KiB", len(res.Prog)>>10)
	case job.Kind == KindRun:
		how = fmt.Sprintf("%d checks", len(res.Results))
	}
	fmt.Fprintf(w.Log, "pilot: %s %s on GPU %q slot %d: %s in %s\n", job.ID, what, job.Device, job.Slot, how, res.Took.Round(time.Millisecond))
	return res
}

func (w *Worker) cell(ctx context.Context, job *Job, cancel func()) (*Result, error) {
	if err := CheckName(job.Workspace); err != nil || strings.Contains(job.Workspace, "/") {
		return nil, fmt.Errorf("pilot: workspace name %q", job.Workspace)
	}
	// Two runs of one workspace (a student's two sessions of a page) on
	// this node would sync and diff the same copy: one at a time.
	w.mu.Lock()
	l := w.wsLock[job.Workspace]
	if l == nil {
		l = new(sync.Mutex)
		w.wsLock[job.Workspace] = l
	}
	w.mu.Unlock()
	l.Lock()
	defer l.Unlock()
	ws, err := safefs.Dir(filepath.Join(w.Dir, "ws"), job.Workspace)
	if err != nil {
		return nil, err
	}
	// Closed before the student's files land in it (the run hands it to
	// its own user).
	if err := os.Chmod(ws, 0o700); err != nil {
		return nil, fmt.Errorf("pilot: %w", err)
	}
	if err := w.sync(ctx, job, ws); err != nil {
		return nil, err
	}
	// The folders that never travel are made here as the server makes
	// them in its workspaces: the cell's TMPDIR (nvcc writes there),
	// its build cache, its nvcc wrapper; one a cell before made a file
	// or a link (it is the node's, never sent back) is a folder again.
	for _, k := range Kept {
		if _, err := safefs.DirAgain(ws, k); err != nil {
			return nil, err
		}
	}
	out := &stream{w: w, ctx: ctx, id: job.ID, stop: cancel}
	done, pumped := make(chan struct{}), make(chan struct{})
	go func() { out.pump(done); close(pumped) }()
	exit, err := w.Exec.Cell(ctx, job, ws, out)
	close(done)
	<-pumped // its last chunk sent: the rest follows it, in order
	out.flush()
	if err != nil {
		return nil, err
	}
	changed, removed, cut, err := Diff(ws, job.Files)
	if err != nil {
		return nil, err
	}
	return &Result{Exit: exit, Changed: changed, Removed: removed, Truncated: cut, Took: exit.Duration}, nil
}

// prepare makes the worker's folders. A cell runs as a user of its slot's
// own (the sandbox's, where the pilot is root), in its workspace under
// ws/: the scratch folder and ws/ are traversable by those users and
// listable by none, a workspace is its run's user's alone; what holds the
// course (its solutions and secret checks), the files of every student
// (blobs) and the programs is the worker's alone.
func (w *Worker) prepare() error {
	if err := os.Chmod(w.Dir, 0o711); err != nil {
		return fmt.Errorf("pilot: %w", err)
	}
	for _, d := range []string{"blobs", "ws", "course", "jobs"} {
		p, err := safefs.Dir(w.Dir, d)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o700)
		if d == "ws" {
			mode = 0o711
		}
		if err := os.Chmod(p, mode); err != nil {
			return fmt.Errorf("pilot: %w", err)
		}
	}
	return nil
}

// sync makes ws hold exactly the job's files (what a node kept from an
// earlier run of the workspace is fetched no more), Kept left alone.
func (w *Worker) sync(ctx context.Context, job *Job, ws string) error {
	want := map[string]bool{}
	for _, f := range job.Files {
		if err := CheckName(f.Name); err != nil || kept(f.Name) {
			return fmt.Errorf("pilot: the server sent file %q", f.Name)
		}
		want[f.Name] = true
	}
	have, _, err := Snapshot(ws)
	if err != nil && !errors.Is(err, ErrTooBig) {
		return err
	}
	same := map[string]bool{}
	for _, f := range have {
		if !want[f.Name] {
			if err := safefs.Remove(ws, f.Name); err != nil {
				return err
			}
		}
		same[f.Name+"\x00"+f.Hash+fmt.Sprint(f.Mode)] = true
	}
	for _, f := range job.Files {
		if same[f.Name+"\x00"+f.Hash+fmt.Sprint(f.Mode)] {
			continue
		}
		data, err := w.blob(ctx, f.Hash)
		if err != nil {
			return err
		}
		if d := filepath.Dir(f.Name); d != "." {
			if _, err := safefs.Dir(ws, d); err != nil {
				return err
			}
		}
		safefs.Remove(ws, f.Name) // its mode is set anew
		if err := safefs.WriteFile(ws, f.Name, data, os.FileMode(f.Mode&0o755|0o600)); err != nil {
			return err
		}
	}
	return nil
}

func (w *Worker) exercise(ctx context.Context, job *Job) (*Result, error) {
	course, err := w.unpack(ctx, job.Course)
	if err != nil {
		return nil, err
	}
	var files []FileData
	for _, f := range job.Files {
		if err := CheckName(f.Name); err != nil {
			return nil, err
		}
		data, err := w.blob(ctx, f.Hash)
		if err != nil {
			return nil, err
		}
		files = append(files, FileData{Name: f.Name, Mode: f.Mode, Data: data})
	}
	if job.Kind == KindBuild {
		return w.Exec.Build(ctx, job, course, files)
	}
	if job.Prog == nil {
		return nil, errors.New("pilot: a run without its program")
	}
	if _, err := w.blob(ctx, job.Prog.Hash); err != nil {
		return nil, err
	}
	// The program runs from a copy of its own: the cache's file is
	// every run's.
	dir, err := os.MkdirTemp(filepath.Join(w.Dir, "jobs"), "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	data, err := os.ReadFile(filepath.Join(w.Dir, "blobs", job.Prog.Hash))
	if err != nil {
		return nil, err
	}
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, data, 0o755); err != nil {
		return nil, err
	}
	os.Chmod(dir, 0o755)
	return w.Exec.Run(ctx, job, course, files, prog)
}

// unpack is the course of hash, unpacked once on this node.
func (w *Worker) unpack(ctx context.Context, hash string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d, ok := w.course[hash]; ok {
		return d, nil
	}
	data, err := w.blob(ctx, hash)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(filepath.Join(w.Dir, "course"), "c-")
	if err != nil {
		return "", err
	}
	if err := Untar(data, dir); err != nil {
		return "", err
	}
	w.course[hash] = dir
	return dir, nil
}

// blob is the content of hash: from this node's cache, else fetched
// from the server and checked against its name.
func (w *Worker) blob(ctx context.Context, hash string) ([]byte, error) {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("pilot: %q is not a file's hash", hash)
	}
	p := filepath.Join(w.Dir, "blobs", hash)
	if data, err := os.ReadFile(p); err == nil && Hash(data) == hash {
		return data, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.URL+Path+"blob/"+hash, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+w.Secret)
	resp, err := w.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pilot: fetch a file: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("pilot: fetch file %s: HTTP %d", hash[:12], resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("pilot: fetch file %s: %w", hash[:12], err)
	}
	if Hash(data) != hash {
		return nil, fmt.Errorf("pilot: file %s came with other content", hash[:12])
	}
	tmp := p + fmt.Sprintf(".%d", time.Now().UnixNano())
	if err := os.WriteFile(tmp, data, 0o600); err == nil {
		os.Rename(tmp, p)
	}
	return data, nil
}

// post sends v as JSON to the hub's path and decodes the answer into
// into (left as it is on 204).
func (w *Worker) post(ctx context.Context, path string, v, into any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL+Path+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+w.Secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusGone:
		return &GoneError{Status: resp.StatusCode}
	case resp.StatusCode == http.StatusNoContent:
		return nil
	case resp.StatusCode != http.StatusOK:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("pilot: %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	if into == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// stream is a cell's output on its way to the server: sent every Flush
// (and, empty, to ask whether the run is still wanted).
type stream struct {
	w    *Worker
	ctx  context.Context
	id   string
	stop func()
	mu   sync.Mutex
	buf  bytes.Buffer
	last time.Time
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.buf.Write(p)
	s.mu.Unlock()
	return len(p), nil
}

func (s *stream) pump(done chan struct{}) {
	t := time.NewTicker(s.w.Flush)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			s.mu.Lock()
			empty := s.buf.Len() == 0
			s.mu.Unlock()
			if !empty || time.Since(s.last) > 5*time.Second {
				s.flush()
			}
		}
	}
}

func (s *stream) flush() {
	s.mu.Lock()
	data := append([]byte(nil), s.buf.Bytes()...)
	s.buf.Reset()
	s.last = time.Now()
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(context.WithoutCancel(s.ctx), http.MethodPost, s.w.URL+Path+"out/"+s.id, bytes.NewReader(data))
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+s.w.Secret)
	resp, err := s.w.Client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var ack outAck
	if json.NewDecoder(resp.Body).Decode(&ack) == nil && ack.Stop {
		s.stop()
	}
}
