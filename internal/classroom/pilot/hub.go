package pilot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config is a hub's setup.
type Config struct {
	// Per is how many runs at once a worker takes on each GPU (the
	// class's runs per GPU), Builds how many builds at once a build
	// worker takes.
	Per, Builds int
	// Lease is how long a worker may be silent before it is taken for
	// gone (its runs reported stopped); a worker polls and reports
	// well within it. Poll is how long a worker's request for work
	// waits before it is answered "nothing".
	Lease, Poll time.Duration
	// MaxResult bounds a result's size (a cell's files, a program).
	MaxResult int64
	// Join is told a worker's GPUs as the queue names them when it
	// connects, Leave when it goes.
	Join, Leave func(devices []string)
	Clock       func() time.Time
}

// Hub is the server's side: the pilot jobs it admitted, the workers
// connected, the runs sent to them. It is an http.Handler for Path.
type Hub struct {
	cfg Config

	mu      sync.Mutex
	admit   map[string]string // a secret's hash -> its pilot's name
	workers map[string]*worker
	devices map[string]*worker // the queue's device names -> worker
	builds  []*call            // builds not yet taken by a build worker
	wake    chan struct{}      // closed and replaced when builds arrive
	seq     int
}

type worker struct {
	name, role, host string
	gpus             []string
	last             time.Time
	mail             map[string][]*call // a GPU's runs not yet taken
	wake             chan struct{}
	taken            map[string]*call
	gone             chan struct{}
}

type call struct {
	job    *Job
	blobs  map[string][]byte
	outMu  sync.Mutex
	out    io.Writer
	outMax int64
	outN   int64
	ctx    context.Context
	w      *worker // the worker that took it
	name   string  // the worker it was sent to
	why    string  // why its worker left
	done   chan *Result
	left   chan struct{} // closed when its worker leaves before the result
}

// StoppedError is a run whose worker went away (its node's job ended,
// was cancelled or stopped answering) before the run ended.
type StoppedError struct{ Worker, Why string }

func (e *StoppedError) Error() string {
	return fmt.Sprintf("the run was stopped: %s's worker %s; run it again", e.Worker, e.Why)
}

// ErrNoWorker is a job for which no worker is connected (a build with
// no build worker, a run on a GPU whose worker left): do it here.
var ErrNoWorker = errors.New("pilot: no worker is connected for this job")

// NewHub is a hub with cfg's limits.
func NewHub(cfg Config) *Hub {
	if cfg.Per <= 0 {
		cfg.Per = 1
	}
	if cfg.Builds <= 0 {
		cfg.Builds = 4
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 90 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 20 * time.Second
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = 256 << 20
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	for _, f := range []*func([]string){&cfg.Join, &cfg.Leave} {
		if *f == nil {
			*f = func([]string) {}
		}
	}
	return &Hub{cfg: cfg, admit: map[string]string{}, workers: map[string]*worker{}, devices: map[string]*worker{}, wake: make(chan struct{})}
}

// Admit makes the secret of pilot job name (a GPU node's, "gpu3", or a
// build node's): the one worker that presents it is that pilot. A name
// admitted again gets a new secret; the old one no longer works.
func (h *Hub) Admit(name string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("pilot: no randomness: " + err.Error())
	}
	s := hex.EncodeToString(b)
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, n := range h.admit {
		if n == name {
			delete(h.admit, k)
		}
	}
	h.admit[Hash([]byte(s))] = name
	return s
}

// Revoke forgets pilot name's secret and lets its worker go, its runs
// stopped (its Slurm job ended).
func (h *Hub) Revoke(name, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, n := range h.admit {
		if n == name {
			delete(h.admit, k)
		}
	}
	if w := h.workers[name]; w != nil {
		h.leaveLocked(w, why)
	}
}

// Device is the queue's name of a worker's GPU.
func Device(worker, gpu string) string { return worker + "/" + gpu }

// OnNode tells whether device is a worker's GPU (not one of this
// machine's).
func OnNode(device string) bool { return strings.Contains(device, "/") }

// Workers are the connected workers, as "name (role on host: GPUs)".
func (h *Hub) Workers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, w := range h.workers {
		out = append(out, fmt.Sprintf("%s (%s on %s: %d GPUs)", w.name, w.role, w.host, len(w.gpus)))
	}
	sort.Strings(out)
	return out
}

// Builders tells whether a build worker is connected.
func (h *Hub) Builders() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range h.workers {
		if w.role == RoleBuild {
			return true
		}
	}
	return false
}

// Do sends job to the worker of device (a build to any build worker
// when device is "") with blobs, the content of every hash the job
// names, and waits for its result; out gets a cell's output as it
// comes (up to maxOut bytes). ctx ending stops the run on its node.
func (h *Hub) Do(ctx context.Context, device string, job *Job, blobs map[string][]byte, out io.Writer, maxOut int64) (*Result, error) {
	c := &call{job: job, blobs: blobs, out: out, outMax: maxOut, ctx: ctx, done: make(chan *Result, 1), left: make(chan struct{})}
	if c.out == nil {
		c.out = io.Discard
	}
	h.mu.Lock()
	h.seq++
	job.ID = fmt.Sprintf("r%d-%s", h.seq, Hash([]byte(fmt.Sprint(h.seq, h.cfg.Clock().UnixNano())))[:12])
	if device == "" {
		if !h.buildersLocked() {
			h.mu.Unlock()
			return nil, ErrNoWorker
		}
		h.builds = append(h.builds, c)
		close(h.wake)
		h.wake = make(chan struct{})
	} else {
		w := h.devices[device]
		if w == nil {
			h.mu.Unlock()
			return nil, ErrNoWorker
		}
		_, gpu, _ := strings.Cut(device, "/")
		job.Device, c.name = gpu, w.name
		w.mail[gpu] = append(w.mail[gpu], c)
		close(w.wake)
		w.wake = make(chan struct{})
	}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.dropQueuedLocked(c)
		h.mu.Unlock()
		// A chunk on its way as Do returns goes nowhere: the caller's
		// writer (a page's response) is done with.
		c.outMu.Lock()
		c.out = io.Discard
		c.outMu.Unlock()
	}()
	select {
	case r := <-c.done:
		return r, nil
	case <-c.left:
		h.mu.Lock()
		w, name, why := c.w, c.name, c.why
		if w != nil {
			name = w.name
		}
		h.mu.Unlock()
		if w == nil && device == "" {
			return nil, ErrNoWorker // the last build worker left before taking it
		}
		return nil, &StoppedError{Worker: name, Why: why}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *Hub) buildersLocked() bool {
	for _, w := range h.workers {
		if w.role == RoleBuild {
			return true
		}
	}
	return false
}

// dropQueuedLocked takes a call that no worker took out of its mailbox.
func (h *Hub) dropQueuedLocked(c *call) {
	if c.w != nil {
		delete(c.w.taken, c.job.ID)
		return
	}
	rm := func(l []*call) []*call {
		for i, o := range l {
			if o == c {
				return append(l[:i:i], l[i+1:]...)
			}
		}
		return l
	}
	h.builds = rm(h.builds)
	for _, w := range h.workers {
		for g, l := range w.mail {
			w.mail[g] = rm(l)
		}
	}
}

// leaveLocked lets a worker go: its GPUs leave the queue, its runs,
// taken or not, are stopped.
func (h *Hub) leaveLocked(w *worker, why string) {
	if h.workers[w.name] != w {
		return
	}
	delete(h.workers, w.name)
	var devs []string
	for _, g := range w.gpus {
		d := Device(w.name, g)
		delete(h.devices, d)
		devs = append(devs, d)
	}
	for _, l := range w.mail {
		for _, c := range l {
			c.why = why
			close(c.left)
		}
	}
	for _, c := range w.taken {
		c.why = why
		close(c.left)
	}
	w.mail, w.taken = map[string][]*call{}, map[string]*call{}
	close(w.gone)
	if w.role == RoleBuild && !h.buildersLocked() {
		for _, c := range h.builds {
			close(c.left)
		}
		h.builds = nil
	}
	if len(devs) > 0 {
		go h.cfg.Leave(devs)
	}
}

// Expire lets go every worker silent for longer than the lease.
func (h *Hub) Expire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.cfg.Clock()
	for _, w := range h.workers {
		if now.Sub(w.last) > h.cfg.Lease {
			h.leaveLocked(w, "stopped answering")
		}
	}
}

// Start expires silent workers until ctx ends.
func (h *Hub) Start(ctx context.Context) {
	go func() {
		t := time.NewTicker(h.cfg.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.Expire()
			}
		}
	}()
}

// worker is the worker a request comes from, by its bearer secret.
func (h *Hub) who(r *http.Request) (*worker, string, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return nil, "", false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	name, ok := h.admit[Hash([]byte(tok))]
	if !ok {
		return nil, "", false
	}
	w := h.workers[name]
	if w != nil {
		w.last = h.cfg.Clock()
	}
	return w, name, true
}

func (h *Hub) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, Path)
	if !ok || r.Method != http.MethodPost && r.Method != http.MethodGet {
		http.Error(rw, "pilot: not found", http.StatusNotFound)
		return
	}
	w, name, ok := h.who(r)
	if !ok {
		http.Error(rw, "pilot: no valid job secret: this worker's job was not submitted by this server (or the server restarted); the worker stops", http.StatusUnauthorized)
		return
	}
	if rest == "hello" {
		h.hello(rw, r, name)
		return
	}
	if w == nil {
		http.Error(rw, "pilot: say hello first (or the worker was taken for gone: start again)", http.StatusGone)
		return
	}
	what, id, _ := strings.Cut(rest, "/")
	switch {
	case what == "beat" && r.Method == http.MethodPost:
		rw.WriteHeader(http.StatusNoContent) // who() renewed the lease
	case what == "next" && r.Method == http.MethodPost:
		h.next(rw, r, w)
	case what == "blob" && r.Method == http.MethodGet:
		h.blob(rw, w, id)
	case what == "out" && r.Method == http.MethodPost:
		h.output(rw, r, w, id)
	case what == "done" && r.Method == http.MethodPost:
		h.done(rw, r, w, id)
	default:
		http.Error(rw, "pilot: not found", http.StatusNotFound)
	}
}

func (h *Hub) hello(rw http.ResponseWriter, r *http.Request, name string) {
	var m hello
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&m); err != nil || m.Role != RoleGPU && m.Role != RoleBuild {
		http.Error(rw, "pilot: a hello names the role (gpu or build), the host and the GPUs", http.StatusBadRequest)
		return
	}
	if len(m.GPUs) > 64 {
		m.GPUs = m.GPUs[:64]
	}
	seen := map[string]bool{}
	var gpus []string
	for _, g := range m.GPUs {
		if g == "" || strings.ContainsAny(g, "/ \n") || seen[g] || m.Role != RoleGPU {
			continue
		}
		seen[g] = true
		gpus = append(gpus, g)
	}
	w := &worker{name: name, role: m.Role, host: m.Host, gpus: gpus, last: h.cfg.Clock(), mail: map[string][]*call{}, taken: map[string]*call{}, wake: make(chan struct{}), gone: make(chan struct{})}
	h.mu.Lock()
	if old := h.workers[name]; old != nil {
		h.leaveLocked(old, "started again")
	}
	h.workers[name] = w
	var devs []string
	for _, g := range gpus {
		d := Device(name, g)
		h.devices[d] = w
		devs = append(devs, d)
	}
	h.mu.Unlock()
	if len(devs) > 0 {
		h.cfg.Join(devs)
	}
	per := h.cfg.Per
	if m.Role == RoleBuild {
		per = h.cfg.Builds
	}
	writeJSON(rw, welcome{Worker: name, Per: per})
}

// next waits up to the poll time for a job of the asked GPU (or a
// build); 204 when none came.
func (h *Hub) next(rw http.ResponseWriter, r *http.Request, w *worker) {
	var n next
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<12)).Decode(&n); err != nil {
		http.Error(rw, "pilot: next names a device", http.StatusBadRequest)
		return
	}
	timer := time.NewTimer(h.cfg.Poll)
	defer timer.Stop()
	for {
		h.mu.Lock()
		var c *call
		var wake chan struct{}
		if w.role == RoleBuild {
			if len(h.builds) > 0 {
				c, h.builds = h.builds[0], h.builds[1:]
			}
			wake = h.wake
		} else {
			if l := w.mail[n.Device]; len(l) > 0 {
				c, w.mail[n.Device] = l[0], l[1:]
			}
			wake = w.wake
		}
		if c != nil {
			c.w = w
			w.taken[c.job.ID] = c
			job := *c.job
			h.mu.Unlock()
			writeJSON(rw, job)
			return
		}
		h.mu.Unlock()
		select {
		case <-wake:
		case <-w.gone:
			http.Error(rw, "pilot: this worker was let go", http.StatusGone)
			return
		case <-timer.C:
			rw.WriteHeader(http.StatusNoContent)
			return
		case <-r.Context().Done():
			return
		}
	}
}

// taken is the call id that w took, or nil.
func (h *Hub) taken(w *worker, id string) *call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return w.taken[id]
}

// blob serves a file of a job the worker holds, and nothing else: a
// worker sees the files of its own runs only.
func (h *Hub) blob(rw http.ResponseWriter, w *worker, hash string) {
	h.mu.Lock()
	var data []byte
	found := false
	for _, c := range w.taken {
		if d, ok := c.blobs[hash]; ok {
			data, found = d, true
			break
		}
	}
	h.mu.Unlock()
	if !found {
		http.Error(rw, "pilot: no run of this worker has that file", http.StatusNotFound)
		return
	}
	rw.Header().Set("Content-Type", "application/octet-stream")
	rw.Write(data)
}

func (h *Hub) output(rw http.ResponseWriter, r *http.Request, w *worker, id string) {
	c := h.taken(w, id)
	if c == nil {
		writeJSON(rw, outAck{Stop: true})
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(rw, "pilot: "+err.Error(), http.StatusBadRequest)
		return
	}
	c.outMu.Lock()
	if c.outMax > 0 {
		room := max(c.outMax+(64<<10)-c.outN, 0)
		data = data[:min(int64(len(data)), room)]
	}
	c.outN += int64(len(data))
	if len(data) > 0 {
		c.out.Write(data)
	}
	c.outMu.Unlock()
	writeJSON(rw, outAck{Stop: c.ctx.Err() != nil})
}

func (h *Hub) done(rw http.ResponseWriter, r *http.Request, w *worker, id string) {
	c := h.taken(w, id)
	if c == nil {
		rw.WriteHeader(http.StatusNoContent) // stopped meanwhile: no one waits
		return
	}
	var res Result
	if err := json.NewDecoder(io.LimitReader(r.Body, h.cfg.MaxResult)).Decode(&res); err != nil {
		res = Result{Err: fmt.Sprintf("the worker's result could not be read (over %d MiB?): %v", h.cfg.MaxResult>>20, err)}
	}
	h.mu.Lock()
	delete(w.taken, id)
	h.mu.Unlock()
	c.done <- &res
	rw.WriteHeader(http.StatusNoContent)
}

func writeJSON(rw http.ResponseWriter, v any) {
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(v)
}
