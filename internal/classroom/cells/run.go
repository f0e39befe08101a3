package cells

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/runner"
)

// queued is a cell's runner in the class: each command waits for its
// turn in the queue (the page is told its place), then runs in inner,
// the sandbox, on the GPU the queue gave.
type queued struct {
	r       *Room
	student string
	dir     string // the student's folder
	inner   func(slot int) runner.Runner
}

func (q queued) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	if err := q.r.checkDisk(q.dir); err != nil {
		return nil, err
	}
	clock := q.r.cfg.Clock
	sp := q.r.Begin("cell", q.student)
	// The cell's builds first, outside the queue (a slot held by nvcc
	// starts no CUDA process), unless the queue would refuse the run.
	if err := q.r.cfg.Queue.Refuse(q.student); err != nil {
		return nil, err
	}
	q.r.prebuild(ctx, q.student, spec.Dir, spec, sp)
	sp.Mark(Queued, clock())
	tk, err := q.r.cfg.Queue.Enqueue(q.student, false)
	if err != nil {
		return nil, err
	}
	if p, of := q.r.cfg.Queue.Place(tk); p > 0 {
		fmt.Fprintf(out, "(queue: place %d of %d, about %s)\n", p, of, q.r.cfg.Queue.Estimate(p).Round(100*time.Millisecond))
	}
	defer func() { sp.End(clock()) }()
	for try := 0; ; try++ {
		res, dev, err := q.once(ctx, tk, spec, out, sp)
		if ctx.Err() != nil || !q.r.Again(try, dev, err) {
			return res, err
		}
		// Nothing of the cut run reached the workspace: the cell runs
		// again whole, its output so far followed by this line.
		fmt.Fprintf(out, "\n(%s: the cell runs again on another GPU)\n", left(err))
		if tk, err = q.r.cfg.Queue.Enqueue(q.student, false); err != nil {
			return nil, err
		}
	}
}

// once runs the cell once, on the GPU the queue gives tk.
func (q queued) once(ctx context.Context, tk *queue.Ticket, spec runner.Spec, out io.Writer, sp *Span) (*runner.Result, string, error) {
	clock := q.r.cfg.Clock
	dev, err := tk.Wait(ctx)
	if err != nil {
		return nil, "", err
	}
	sp.Grant(dev, tk.Slot(), clock())
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
			sp.Mark(Spawned, clock())
			if started != nil {
				started(pid)
			}
		}
	}
	q.r.ran(q.student)
	res, err := q.inner(tk.Slot()).Run(ctx, spec, out)
	sp.Mark(Exited, clock())
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

// FilesPerStudent is how many files a student's folder may hold for a
// cell to start, when the class says no other number: its copies, ten
// lessons' workspaces and their cells' builds are a few hundred; a cell
// that makes files until the disk has no inode left fails every
// classmate's build and run.
const FilesPerStudent = 20000

// checkDisk refuses a run while the student's folder dir is over the limits:
// its bytes (DiskPerStudent) or its files (FilesPerStudent).
func (r *Room) checkDisk(dir string) error {
	if r.cfg.DiskPerStudent <= 0 && r.cfg.FilesPerStudent < 0 {
		return nil
	}
	fileLimit := int64(r.cfg.FilesPerStudent)
	if fileLimit == 0 {
		fileLimit = FilesPerStudent
	}
	var used, files int64
	over := func() bool {
		return r.cfg.DiskPerStudent > 0 && used > r.cfg.DiskPerStudent || fileLimit > 0 && files > fileLimit
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
		return &DiskError{Used: used, Limit: r.cfg.DiskPerStudent, Files: files, FileLimit: fileLimit}
	}
	return nil
}
