package classroom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/runner"
)

// builds shares one build among every task of the same exercise and
// files, the class's copies of an untouched stub included: thirty
// identical files build once (and the toolkit's content-addressed cache
// keeps it across restarts). A build that failed for the tool is built
// again next time.
type builds struct {
	mu    sync.Mutex
	byKey map[string]*buildOnce
	slots chan int // build slots: the sandbox's build users
}

type buildOnce struct {
	once sync.Once
	b    *grade.Built
}

func newBuilds(jobs int) *builds {
	b := &builds{byKey: map[string]*buildOnce{}, slots: make(chan int, max(jobs, 1))}
	for i := range max(jobs, 1) {
		b.slots <- i
	}
	return b
}

func (bs *builds) build(ctx context.Context, tc grade.Toolchain, t *grade.Task) (*grade.Built, error) {
	bs.mu.Lock()
	e := bs.byKey[t.Key()]
	if e == nil {
		e = &buildOnce{}
		bs.byKey[t.Key()] = e
	}
	bs.mu.Unlock()
	var err error
	e.once.Do(func() {
		select {
		case slot := <-bs.slots:
			defer func() { bs.slots <- slot }()
			e.b = tc.Build(ctx, t, slot)
		case <-ctx.Done():
			err = ctx.Err()
		}
	})
	if e.b == nil || e.b.Err != nil || err != nil {
		bs.mu.Lock()
		if bs.byKey[t.Key()] == e {
			delete(bs.byKey, t.Key())
		}
		bs.mu.Unlock()
	}
	if e.b == nil {
		if err == nil {
			err = fmt.Errorf("the build of %s was stopped", t.Exercise.ID)
		}
		return nil, err
	}
	return e.b, nil
}

// grade builds and runs student's copy of exercise x as lessons grade
// does (hidden checks and runs included when hidden), the run waiting
// its turn in the queue. The attempt is not recorded here.
func (c *Class) grade(ctx context.Context, student string, x *course.Exercise, hidden bool) (*gradebook.Attempt, error) {
	tasks, _, err := grade.Tasks(c.course, c.studentsDir, []string{student}, []*course.Exercise{x})
	if err != nil {
		return nil, err
	}
	t := tasks[0]
	if !hidden {
		t.Spec = t.Spec.Public()
	}
	_, settled, err := grade.Plan(c.book, tasks, true)
	if err != nil {
		return nil, err
	}
	if len(settled) > 0 {
		return settled[0].Attempt, nil
	}
	// One build of a student's at a time: the build slots are the
	// class's, and a student checking every exercise at once would
	// take them all while the others' builds wait.
	kind := "check"
	if hidden {
		kind = "submit"
	}
	sp := c.trace.begin(kind, student, time.Time{})
	mine, _ := c.building.LoadOrStore(student, make(chan struct{}, 1))
	select {
	case mine.(chan struct{}) <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	sp.mark(atBuildStart, c.cfg.Clock())
	b, err := c.builds.build(ctx, c.cfg.Toolchain, t)
	<-mine.(chan struct{})
	sp.mark(atBuildEnd, c.cfg.Clock())
	if err != nil {
		return nil, err
	}
	if a := b.Attempt(t); a != nil {
		return a, nil
	}
	var ran *grade.Ran
	var runErr error
	for try := 0; ; try++ {
		sp.mark(atQueued, c.cfg.Clock())
		tk, err := c.queue.Enqueue(student, t.Spec.Timed)
		if err != nil {
			return nil, err
		}
		dev, err := tk.Wait(ctx)
		if err != nil {
			return nil, err
		}
		sp.grant(dev, tk.Slot(), c.cfg.Clock())
		start := c.cfg.Clock()
		tk.Use(dev, func() {
			sp.mark(atSpawned, c.cfg.Clock())
			ran, runErr = c.cfg.Toolchain.Run(ctx, t, b, dev, tk.Slot())
			sp.mark(atExited, c.cfg.Clock())
		})
		tk.Done(c.cfg.Clock().Sub(start))
		if ctx.Err() != nil {
			sp.end(c.cfg.Clock())
			return nil, ctx.Err()
		}
		if !c.again(try, dev, runErr) {
			break
		}
	}
	sp.end(c.cfg.Clock())
	return grade.RunAttempt(t, b, ran, runErr), nil
}

// maxAgain is how many times a run cut off by a GPU node that left is
// queued again before the student is told it stopped.
const maxAgain = 2

// again tells whether a run on dev that ended with err (its try-th)
// goes back in the queue: its GPU node's worker left before it ended
// (the node's Slurm job ended, was cancelled, stopped answering), the
// run changed nothing here (a remote run's files come back only with
// its result), and another GPU can take it. The gone GPU is taken out
// of the queue now, not when the hub's callback gets to it, so that
// the run is not given it again.
func (c *Class) again(try int, dev string, err error) bool {
	var stopped *pilot.StoppedError
	gone := errors.As(err, &stopped) || errors.Is(err, pilot.ErrNoWorker) && pilot.OnNode(dev)
	if !gone || try >= maxAgain {
		return false
	}
	c.queue.DropDevice(dev)
	return c.queue.Open() > 0
}

// left says which GPU node's worker left, and why, for the page.
func left(err error) string {
	var stopped *pilot.StoppedError
	if errors.As(err, &stopped) {
		return fmt.Sprintf("the GPU node's worker %s %s", stopped.Worker, stopped.Why)
	}
	return "the GPU node's worker left"
}

// queued is a cell's runner in the class: each command waits for its
// turn in the queue (the page is told its place), then runs in inner,
// the sandbox, on the GPU the queue gave.
type queued struct {
	c       *Class
	student string
	inner   func(slot int) runner.Runner
}

func (r queued) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	if err := r.c.checkDisk(r.student); err != nil {
		return nil, err
	}
	clock := r.c.cfg.Clock
	sp := r.c.trace.begin("cell", r.student, time.Time{})
	// The cell's builds first, outside the queue (a slot held by nvcc
	// starts no CUDA process), unless the queue would refuse the run.
	if err := r.c.queue.Refuse(r.student); err != nil {
		return nil, err
	}
	r.c.prebuild(ctx, r.student, spec.Dir, spec, sp)
	sp.mark(atQueued, clock())
	tk, err := r.c.queue.Enqueue(r.student, false)
	if err != nil {
		return nil, err
	}
	if p, of := r.c.queue.Place(tk); p > 0 {
		fmt.Fprintf(out, "(queue: place %d of %d, about %s)\n", p, of, r.c.queue.Estimate(p).Round(100*time.Millisecond))
	}
	defer func() { sp.end(clock()) }()
	for try := 0; ; try++ {
		res, dev, err := r.once(ctx, tk, spec, out, sp)
		if ctx.Err() != nil || !r.c.again(try, dev, err) {
			return res, err
		}
		// Nothing of the cut run reached the workspace: the cell runs
		// again whole, its output so far followed by this line.
		fmt.Fprintf(out, "\n(%s: the cell runs again on another GPU)\n", left(err))
		if tk, err = r.c.queue.Enqueue(r.student, false); err != nil {
			return nil, err
		}
	}
}

// once runs the cell once, on the GPU the queue gives tk.
func (r queued) once(ctx context.Context, tk *queue.Ticket, spec runner.Spec, out io.Writer, sp *span) (*runner.Result, string, error) {
	clock := r.c.cfg.Clock
	dev, err := tk.Wait(ctx)
	if err != nil {
		return nil, "", err
	}
	sp.grant(dev, tk.Slot(), clock())
	start := clock()
	defer func() { tk.Done(clock().Sub(start)) }()
	spec.Env = append(append([]string(nil), spec.Env...), "CUDA_VISIBLE_DEVICES="+dev)
	tmp := ""
	if sp != nil {
		tmp = envValue(spec.Env, "TMPDIR")
		if tmp != "" {
			spec.Env = append(spec.Env, "LESSONS_TRACE_NVCC="+filepath.Join(tmp, nvccNote))
		}
		out = firstWriter{w: out, s: sp, clock: clock}
		started := spec.Started
		spec.Started = func(pid int) {
			sp.mark(atSpawned, clock())
			if started != nil {
				started(pid)
			}
		}
	}
	r.c.touch(r.student, "run")
	res, err := r.inner(tk.Slot()).Run(ctx, spec, out)
	sp.mark(atExited, clock())
	if tmp != "" {
		sp.readNvccNote(tmp)
	}
	return res, dev, err
}

// envValue is name's value in env ("" when unset).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// DiskError is a cell refused because its student's folder holds more
// than the class allows: a cell writes up to the sandbox's file size in
// each of as many files as its time allows, and the class's disk is
// everyone's.
type DiskError struct{ Used, Limit, Files, FileLimit int64 }

func (e *DiskError) Error() string {
	if e.FileLimit > 0 && e.Files > e.FileLimit {
		return fmt.Sprintf("class: your folder holds %d files, over this class's limit of %d a student: Restart a lesson's page to empty its workspace (your exercise files are kept), then run again",
			e.Files, e.FileLimit)
	}
	return fmt.Sprintf("class: your files take %d MiB, over this class's limit of %d MiB a student: Restart a lesson's page to empty its workspace (your exercise files are kept), then run again",
		e.Used>>20, e.Limit>>20)
}

// filesPerStudent is how many files a student's folder may hold for a
// cell to start, when the class says no other number: its copies, ten
// lessons' workspaces and their cells' builds are a few hundred; a cell
// that makes files until the disk has no inode left fails every
// classmate's build and run.
const filesPerStudent = 20000

// checkDisk refuses a run while the student's folder is over the limits:
// its bytes (DiskPerStudent) or its files (FilesPerStudent).
func (c *Class) checkDisk(student string) error {
	if c.cfg.DiskPerStudent <= 0 && c.cfg.FilesPerStudent < 0 {
		return nil
	}
	fileLimit := int64(c.cfg.FilesPerStudent)
	if fileLimit == 0 {
		fileLimit = filesPerStudent
	}
	dir, err := c.studentDir(student)
	if err != nil {
		return err
	}
	var used, files int64
	over := func() bool {
		return c.cfg.DiskPerStudent > 0 && used > c.cfg.DiskPerStudent || fileLimit > 0 && files > fileLimit
	}
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder of the run's user that went: count the rest
		}
		files++
		if info, err := d.Info(); err == nil {
			used += info.Size()
		}
		if over() {
			return filepath.SkipAll
		}
		return nil
	})
	if over() {
		return &DiskError{Used: used, Limit: c.cfg.DiskPerStudent, Files: files, FileLimit: fileLimit}
	}
	return nil
}
