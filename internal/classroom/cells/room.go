package cells

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/tracer"
)

// Config is what the room runs cells with.
type Config struct {
	// Queue is the class's one fair queue over the GPUs' run slots.
	Queue *queue.Queue
	// Env is a lesson workspace's notebook environment (the nvcc
	// wrapper, the cache); its Runner is replaced by the room's.
	Env func(ws string) (notebook.Env, error)
	// Cells is the runner of a cell's command on a run slot: the sandbox.
	Cells func(ws string, slot int) runner.Runner
	// Python is the python3 that students' Python cells run with (nil:
	// they are not run, each saying NoPython's why).
	Python    *python.Interpreter
	NoPython  string
	MaxOutput int64
	// SharedCache, when set, is where the room builds the cells' plain
	// nvcc steps before they queue (prebuild.go), with Compiler, in
	// folders under BuildsDir, Jobs at once.
	SharedCache *buildcache.Cache
	Compiler    buildcache.Compiler
	BuildsDir   string
	Jobs        int
	// DiskPerStudent and FilesPerStudent cap a student's folder for a
	// cell to start (0 bytes: no cap; 0 files: FilesPerStudent's
	// default; below 0: no cap).
	DiskPerStudent  int64
	FilesPerStudent int
	Clock           func() time.Time
	// Trace, when set, gets a span of each run's phases (NewTrace).
	Trace *tracer.Tracer
}

// Room runs a class's cells.
type Room struct {
	cfg    Config
	builds *cellBuilds
	// building holds each student's one build at a time, their checks'
	// included (Hold).
	building sync.Map

	mu      sync.Mutex
	lastRun map[string]time.Time
}

// New is the room of cfg, its build folder made when it has a shared
// cache.
func New(cfg Config) (*Room, error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	r := &Room{cfg: cfg, lastRun: map[string]time.Time{}}
	if cfg.SharedCache != nil {
		var err error
		if r.builds, err = newCellBuilds(cfg.SharedCache, cfg.Compiler, cfg.BuildsDir, cfg.Jobs, cfg.Queue.Slots()); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Env is the environment of student's cells in the lesson workspace ws
// (in dir, their folder): the class's, its runner the queue and the
// sandbox, its Python cells each a run of their own.
func (r *Room) Env(student, dir, ws string) (notebook.Env, error) {
	env, err := r.cfg.Env(ws)
	if err != nil {
		return env, err
	}
	// The cells' own builds are cached in the workspace: the toolkit's
	// cache is outside what a sandboxed cell may write, and a student's
	// entry there would be another's binary. (The class's shared cache,
	// which the server alone writes, is looked in first: prebuild.go.)
	env.Vars = WithVar(env.Vars, "LESSONS_CACHE", filepath.Join(ws, ".lessons-cache"))
	// nvcc's and the program's temporary files: the one folder a cell
	// may write.
	tmp, err := safefs.DirAgain(ws, ".tmp")
	if err != nil {
		return env, err
	}
	env.Vars = WithVar(WithVar(env.Vars, "TMPDIR", tmp), "HOME", ws)
	// A cell starts from an environment built for it, never the
	// server's (an LMS token, a key it was started with).
	env.Base = runner.HostEnv(nil)
	env.Runner = queued{r: r, student: student, dir: dir, inner: func(slot int) runner.Runner { return r.cfg.Cells(ws, slot) }}
	r.pythonEnv(&env)
	return env, nil
}

// LastRun is when student's last cell began to run (zero: none yet).
func (r *Room) LastRun(student string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRun[student]
}

func (r *Room) ran(student string) {
	r.mu.Lock()
	r.lastRun[student] = r.cfg.Clock()
	r.mu.Unlock()
}

// Hold waits until student has no other build under way (a cell's or a
// check's: the build slots are the class's, and a student building
// every exercise at once would take them all while the others' builds
// wait), and holds their one; release gives it back.
func (r *Room) Hold(ctx context.Context, student string) (release func(), err error) {
	mine, _ := r.building.LoadOrStore(student, make(chan struct{}, 1))
	ch := mine.(chan struct{})
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxAgain is how many times a run cut off by a GPU node that left is
// queued again before the student is told it stopped.
const maxAgain = 2

// Again tells whether a run on dev that ended with err (its try-th)
// goes back in the queue: its GPU node's worker left before it ended
// (the node's Slurm job ended, was cancelled, stopped answering), the
// run changed nothing here (a remote run's files come back only with
// its result), and another GPU can take it. The gone GPU is taken out
// of the queue now, not when the hub's callback gets to it, so that
// the run is not given it again.
func (r *Room) Again(try int, dev string, err error) bool {
	var stopped *pilot.StoppedError
	gone := errors.As(err, &stopped) || errors.Is(err, pilot.ErrNoWorker) && pilot.OnNode(dev)
	if !gone || try >= maxAgain {
		return false
	}
	r.cfg.Queue.DropDevice(dev)
	return r.cfg.Queue.Open() > 0
}

// left says which GPU node's worker left, and why, for the page.
func left(err error) string {
	var stopped *pilot.StoppedError
	if errors.As(err, &stopped) {
		return fmt.Sprintf("the GPU node's worker %s %s", stopped.Worker, stopped.Why)
	}
	return "the GPU node's worker left"
}

// WithVar is vars with name set to value, in place of what it was.
func WithVar(vars []string, name, value string) []string {
	out := make([]string, 0, len(vars)+1)
	for _, v := range vars {
		if !strings.HasPrefix(v, name+"=") {
			out = append(out, v)
		}
	}
	return append(out, name+"="+value)
}
