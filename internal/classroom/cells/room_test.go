package cells

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/tracer"
)

// testRoom is a room of one GPU ("0") with one run slot, its cells run
// by the plain runner, changed by opts.
func testRoom(t *testing.T, opts ...func(*Config)) *Room {
	t.Helper()
	cfg := Config{
		Queue: queue.New([]string{"0"}, 1, time.Now),
		Env: func(ws string) (notebook.Env, error) {
			return notebook.Env{Vars: []string{"PATH=/usr/bin:/bin", "HOME=/root"}}, nil
		},
		Cells:     func(string, int) runner.Runner { return runner.Exec{} },
		BuildsDir: t.TempDir(), Jobs: 1, MaxOutput: 1 << 20,
	}
	for _, o := range opts {
		o(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run runs script as a cell of ann's in a fresh workspace of the room.
func run(t *testing.T, r *Room, dir, script string, out *bytes.Buffer) (*runner.Result, notebook.Env, error) {
	t.Helper()
	ws := t.TempDir()
	env, err := r.Env("ann", dir, ws)
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.Runner.Run(context.Background(), runner.Spec{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Env: env.Vars, Timeout: time.Minute, MaxOutput: 1 << 20}, out)
	return res, env, err
}

// A student's cell runs through the queue on the GPU it gave, from an
// environment of the workspace's own: its cache, its temporary folder
// and its home there, the server's own environment left out.
func TestCellRunsThroughTheQueue(t *testing.T) {
	t.Setenv("SERVER_ONLY_SECRET", "s3cret")
	r := testRoom(t)
	if !r.LastRun("ann").IsZero() {
		t.Fatal("a run before any")
	}
	var out bytes.Buffer
	res, env, err := run(t, r, t.TempDir(), `echo "gpu=$CUDA_VISIBLE_DEVICES home=$HOME"; echo "tmp=$TMPDIR"; echo "cache=$LESSONS_CACHE"; echo "secret=$SERVER_ONLY_SECRET"`, &out)
	if err != nil || !res.OK() {
		t.Fatalf("%v %+v", err, res)
	}
	got := out.String()
	for _, want := range []string{"gpu=0 home=/", "/.tmp\n", "/.lessons-cache\n", "secret=\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the cell printed %q, without %q", got, want)
		}
	}
	if strings.Contains(got, "home=/root") || len(env.Base) == 0 {
		t.Errorf("the class's HOME or no base environment: %q, %d", got, len(env.Base))
	}
	if r.LastRun("ann").IsZero() || !r.LastRun("bob").IsZero() {
		t.Error("the run is not noted as ann's")
	}
	// Without python3, each Python cell says why it is not run.
	if env.StartPython != nil || !strings.Contains(env.PythonWay, "not run: the class server has no python3") {
		t.Errorf("python: %q", env.PythonWay)
	}
}

// A cell waiting behind another is told its place, and runs once the
// slot is given back.
func TestCellToldItsPlace(t *testing.T) {
	r := testRoom(t)
	held, err := r.cfg.Queue.Enqueue("bob", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := held.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	told := make(chan struct{})
	w := &signalWriter{first: told}
	done := make(chan error)
	go func() {
		ws := t.TempDir()
		env, err := r.Env("ann", t.TempDir(), ws)
		if err == nil {
			_, err = env.Runner.Run(context.Background(), runner.Spec{Argv: []string{"/bin/sh", "-c", "echo ran"}, Dir: ws, Env: env.Vars, Timeout: time.Minute, MaxOutput: 1 << 20}, w)
		}
		done <- err
	}()
	<-told
	held.Done(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := w.String(); !strings.HasPrefix(got, "(queue: place 1 of 1, about ") || !strings.HasSuffix(got, "ran\n") {
		t.Errorf("the page got %q", got)
	}
}

type signalWriter struct {
	mu    sync.Mutex
	b     bytes.Buffer
	first chan struct{}
}

func (s *signalWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() == 0 {
		defer close(s.first)
	}
	return s.b.Write(p)
}

func (s *signalWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A student whose folder is over the class's bytes or files is refused
// a cell, told how to make room, and the refusal is a DiskError (the
// page's 429).
func TestDiskCaps(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big"), make([]byte, 4096), 0o600)
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, "f"+string(rune('a'+i))), nil, 0o600)
	}
	for _, c := range []struct {
		bytes int64
		files int
		want  string
	}{
		{1024, -1, "MiB, over this class's limit"},
		{0, 3, "files, over this class's limit of 3"},
	} {
		r := testRoom(t, func(cfg *Config) { cfg.DiskPerStudent, cfg.FilesPerStudent = c.bytes, c.files })
		_, _, err := run(t, r, dir, "echo no", &bytes.Buffer{})
		var disk *DiskError
		if !errors.As(err, &disk) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Restart a lesson's page") {
			t.Errorf("%d bytes, %d files: %v", c.bytes, c.files, err)
		}
	}
	// Under both caps, the cell runs.
	r := testRoom(t, func(cfg *Config) { cfg.DiskPerStudent, cfg.FilesPerStudent = 1<<20, 100 })
	if res, _, err := run(t, r, dir, "true", &bytes.Buffer{}); err != nil || !res.OK() {
		t.Errorf("under the caps: %v", err)
	}
}

// A run cut off because its GPU node's worker left goes back in the
// queue, the gone GPU out of it, at most twice; any other failure, or
// no GPU left, does not.
func TestAgain(t *testing.T) {
	q := queue.New([]string{"0", "node1/0"}, 1, time.Now)
	r := testRoom(t, func(c *Config) { c.Queue = q })
	stopped := &pilot.StoppedError{Worker: "node1", Why: "left (its job ended)"}
	if r.Again(0, "0", errors.New("exit 1")) {
		t.Error("a plain failure is run again")
	}
	if r.Again(maxAgain, "node1/0", stopped) {
		t.Error("run again past maxAgain")
	}
	if !r.Again(0, "node1/0", stopped) || q.Open() != 1 {
		t.Errorf("a run whose node left: not again, or its GPU kept (%d open)", q.Open())
	}
	if r.Again(0, "0", pilot.ErrNoWorker) {
		t.Error("no worker for this machine's GPU: run again")
	}
	if got := left(stopped); got != "the GPU node's worker node1 left (its job ended)" {
		t.Errorf("left: %q", got)
	}
	if got := left(pilot.ErrNoWorker); got != "the GPU node's worker left" {
		t.Errorf("left: %q", got)
	}
}

// A student's builds go one at a time: a second Hold waits for the
// first's release, or gives up with its context.
func TestHold(t *testing.T) {
	r := testRoom(t)
	release, err := r.Hold(context.Background(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Hold(ctx, "ann"); !errors.Is(err, context.Canceled) {
		t.Errorf("a second hold while the first is held: %v", err)
	}
	other, err := r.Hold(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	other()
	release()
	again, err := r.Hold(context.Background(), "ann")
	if err != nil {
		t.Errorf("after the release: %v", err)
	} else {
		again()
	}
}

// With python3, a Python cell is a run of its own through the room's
// runner, the cells above run again for their state.
func TestPythonCellsReplayed(t *testing.T) {
	r := testRoom(t, func(c *Config) { c.Python = &python.Interpreter{Path: "/usr/bin/python3", Version: "3.12.3"} })
	env, err := r.Env("ann", t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if env.StartPython == nil || env.NoPython != "" || !strings.HasPrefix(env.PythonWay, "Python 3.12 in the class's sandbox") {
		t.Fatalf("python: %q %q", env.PythonWay, env.NoPython)
	}
	s, err := env.StartPython(context.Background(), t.TempDir(), nil)
	if rp, ok := s.(*python.Replayed); err != nil || !ok || rp.Runner == nil || rp.MaxOutput != 1<<20 {
		t.Errorf("the session: %T %v", s, err)
	}
	r = testRoom(t, func(c *Config) { c.NoPython = "no python3 here" })
	if env, _ := r.Env("ann", t.TempDir(), t.TempDir()); env.NoPython != "no python3 here" {
		t.Errorf("the class's why: %q", env.NoPython)
	}
}

// With a trace, a cell's span has its phases in order on its slot's
// row, the nvcc wrapper's note read in; a run stopped before a slot is
// on a lane of its own.
func TestCellTrace(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now()
	tr := NewTrace(&buf, start)
	r := testRoom(t, func(c *Config) { c.Trace = tr })
	var out bytes.Buffer
	// The cell writes the wrapper's note as the wrapper would.
	note := `t=$(date +%s%N); echo "$t $t hit" > "$LESSONS_TRACE_NVCC"; echo out`
	if res, _, err := run(t, r, t.TempDir(), note, &out); err != nil || !res.OK() {
		t.Fatalf("%v %s", err, out.String())
	}
	sp := r.Begin("check", "bob")
	sp.Mark(Queued, time.Now())
	sp.End(time.Now())
	tr.Close()
	es, err := tracer.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	spans := tracer.Spans(es)
	if len(spans) != 2 {
		t.Fatalf("spans: %+v", es)
	}
	cell, stopped := spans[0], spans[1]
	for i, p := range []string{"queued", "granted", "spawned", "nvccStart", "firstOut", "exited", "done"} {
		if cell.Args[p] == nil {
			t.Errorf("the cell's span has no %s (%d): %+v", p, i, cell.Args)
		}
	}
	if cell.Args["nvccHit"] != true || cell.PID != laneRuns || cell.Cat != "cell" || cell.Args["device"] != "0" {
		t.Errorf("the cell's span: %+v", cell)
	}
	if stopped.PID != laneUnqueued || stopped.Cat != "check" {
		t.Errorf("a run stopped before a slot: %+v", stopped)
	}
	if r := testRoom(t); r.Begin("cell", "ann") != nil {
		t.Error("a span without a trace")
	}
}

// The wrapper's note of its times is read into the span, whatever else
// the cell wrote there.
func TestNvccNote(t *testing.T) {
	dir := t.TempDir()
	tr := NewTrace(&bytes.Buffer{}, time.Now())
	for _, c := range []struct {
		note string
		hit  bool
		ok   bool
	}{
		{"1000 2000 hit\n1 2 miss\n", true, true},
		{"1000 2000 miss\n", false, true},
		{"not a note", false, false},
		{strings.Repeat("9", 10000), false, false},
	} {
		s := (&Room{cfg: Config{Trace: tr}}).Begin("cell", "ann")
		if err := os.WriteFile(filepath.Join(dir, nvccNote), []byte(c.note), 0o600); err != nil {
			t.Fatal(err)
		}
		s.readNvccNote(dir)
		if got := !s.at[nvccStart].IsZero(); got != c.ok || s.nvccHit != c.hit {
			t.Errorf("%.20q: read %v, hit %v", c.note, got, s.nvccHit)
		}
		if c.ok && s.at[nvccEnd].UnixNano() != 2000 {
			t.Errorf("%q: end %v", c.note, s.at[nvccEnd])
		}
		if _, err := os.Stat(filepath.Join(dir, nvccNote)); err == nil {
			t.Errorf("%.20q: the note was left", c.note)
		}
	}
}
