package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/slurm"
)

// Request is a grade through Slurm as lessons grade --slurm asks it:
// submitted, waited for, confirmed on Ctrl-C and collected here; the
// command layer only prints and asks.
type Request struct {
	Course      *course.Course
	Submissions string   // the class's folder
	Book        string   // the gradebook as named (the messages name it so)
	Only        []string // the exercises, none for all
	// Options are the flags' Slurm options; Changed says which flags were
	// given, over the course's [grade.slurm].
	Options        slurm.Options
	Changed        func(flag string) bool
	PerGPU, Queues int
	Dir, Exe       string // the job folder ("": the gradebook's + .slurm) and the nodes' lessons
	Exec           slurm.Exec
	Regrade        bool
	NoPreflight    bool
	DryRun, Detach bool
	Poll           time.Duration
	// Note is told, a line at a time, what the grade does.
	Note func(string)
	// Confirm asks a yes/no question of the person at the terminal
	// (whether to cancel the jobs on Ctrl-C); nil is no.
	Confirm func(question string) bool
}

// Outcome is how a grade through Slurm ended without an error.
type Outcome struct {
	// Plan is the dry run's split and job scripts.
	Plan string
	// Detached names the folder the results gather in, once submitted.
	Detached string
	// Book is the gradebook when every round is merged; close it.
	Book *gradebook.Book
}

// Drive grades r's class through Slurm: the dry run, or the submission
// then (unless detached) the rounds followed until each is merged. An
// interrupted ctx asks r.Confirm whether to cancel the jobs.
func Drive(ctx context.Context, r Request) (*Outcome, error) {
	cl, err := grade.LoadClass(r.Course, r.Submissions, r.Book, r.Only)
	if err != nil {
		return nil, err
	}
	if err := machine.CheckQueues(r.Queues); err != nil {
		return nil, err
	}
	// The course's [grade.slurm], with the flags given on top.
	opts := cl.Course.Slurm.Override(r.Options, r.Changed)
	if err := opts.Check(); err != nil {
		return nil, failure.Usagef("grade --slurm: %v (flags, or [grade.slurm] in course.toml)", err)
	}
	opts = opts.Defaults()
	// --per-gpu and --gpu-queues mean on each task's GPU what they mean
	// on a local one (0: chosen from what the task runs).
	opts.PerGPU, opts.Queues = r.PerGPU, r.Queues
	jobDir, err := JobDir(r.Dir, cl.BookPath)
	if err != nil {
		return nil, err
	}
	g := &Grade{Class: cl, Dir: jobDir, Exe: r.Exe, Options: opts, Exec: r.Exec, Regrade: r.Regrade, NoPreflight: r.NoPreflight, Note: r.Note}
	d, err := g.Driver()
	if err != nil {
		return nil, err
	}
	if r.DryRun {
		book, err := gradebook.OpenIfThere(cl.BookPath)
		if err != nil {
			return nil, err
		}
		defer book.Close()
		plan, err := g.DryRun(d, book)
		return &Outcome{Plan: plan}, err
	}
	book, err := cl.OpenBook()
	if err != nil {
		return nil, err
	}
	if d, err = g.Submit(context.WithoutCancel(ctx), d, book); err != nil || d == nil {
		if err != nil {
			book.Close()
			return nil, err
		}
		return &Outcome{Book: book}, nil
	}
	if r.Detach {
		book.Close()
		return &Outcome{Detached: d.Results()}, nil
	}
	return follow(ctx, r, d, book)
}

// CollectInto is lessons grade collect: what the tasks submitted from the
// job folder (r.Dir, or beside r.Book) have graded merged into the
// gradebook, once, or with wait until every round is closed. The
// outcome's Book is nil while tasks are still going.
func CollectInto(ctx context.Context, r Request, wait bool) (*Outcome, error) {
	bookPath, _ := filepath.Abs(r.Book)
	jobDir, err := JobDir(r.Dir, bookPath)
	if err != nil {
		return nil, err
	}
	d, ok, err := Reopen(jobDir, r.Exec)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, failure.Usagef("nothing was submitted from %s: grade with lessons grade SUBMISSIONS --slurm first (or name the folder with --slurm-dir)", jobDir)
	}
	book, err := gradebook.OpenExisting(bookPath)
	if err != nil {
		return nil, err
	}
	if wait && len(d.Open()) > 0 {
		return follow(ctx, r, d, book)
	}
	finished, err := Collect(context.WithoutCancel(ctx), d, book, r.Note)
	if err != nil || !finished {
		book.Close()
		return &Outcome{}, err
	}
	return &Outcome{Book: book}, nil
}

// follow follows the rounds until each is closed, merging as results
// come. Interrupted, it asks whether to cancel the tasks or leave them
// running.
func follow(ctx context.Context, r Request, d *Driver, book *gradebook.Book) (*Outcome, error) {
	_, err := Wait(ctx, d, book, r.Poll, r.Note)
	switch {
	case ctx.Err() != nil:
		book.Close()
		return nil, interrupted(r, d)
	case err != nil:
		book.Close()
		return nil, fmt.Errorf("%w; the tasks go on: lessons grade collect --gradebook %s merges what they grade", err, r.Book)
	}
	return &Outcome{Book: book}, nil
}

func interrupted(r Request, d *Driver) error {
	leave := fmt.Errorf("stopped waiting; the tasks go on: lessons grade collect --gradebook %s merges what they grade", r.Book)
	if r.Confirm == nil || !r.Confirm("\nCancel the Slurm jobs (scancel)?") {
		return leave
	}
	if err := d.Cancel(context.Background()); err != nil {
		return err
	}
	return fmt.Errorf("cancelled; what was graded is merged or waits in %s: run the same command again to go on", d.Dir)
}

// JobDir is the job folder: dir, or beside the gradebook at bookPath.
func JobDir(dir, bookPath string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	return bookPath + ".slurm", nil
}

// Finish is what a merged gradebook says at the end: an error when some
// could not be graded.
func Finish(sheet *gradebook.Sheet) error {
	if errs := sheet.Count(gradebook.Error); errs > 0 {
		return fmt.Errorf("%d could not be graded (see the table); run the same command again to retry them", errs)
	}
	return nil
}
