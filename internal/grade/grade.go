// Package grade grades a class: every student's file for every exercise,
// built on all cores (identical files once), run on the GPUs (a queue per
// device), judged with the exercise's checks, and recorded in the
// gradebook as soon as each is done. A grade run that stops half way
// resumes where it stopped: what was graded on an unchanged file and spec
// is skipped.
package grade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
)

// MaxSource is the largest file a student may hand in for an exercise.
const MaxSource = 1 << 20

// Task is one student's file for one exercise.
type Task struct {
	Student    string
	Exercise   *course.Exercise
	Spec       *checker.Spec
	SpecHash   string
	Source     []byte // nil when the student handed in nothing
	SourceName string // the file's name, as the exercise names it
	SourceHash string
	// Problem is why the file cannot be graded ("a link, not a file"): it
	// gets a failing grade with that reason.
	Problem string
	// Files are the spec's other files: the student's copies where they
	// handed them in, else the exercise's own. SourceHash covers them.
	Files []File
}

// File is one more file of a multi-file exercise.
type File struct {
	Name string // as the spec names it
	Data []byte
}

// Key is what decides a build: the exercise (its flags) and the file.
func (t *Task) Key() string { return t.Exercise.ID + "@" + t.SourceHash[:16] }

// Built is a build's outcome, shared by every task with the same Key.
type Built struct {
	Prog   string           // the program, when it built
	Failed []checker.Result // the failed "compiles" check, when it did not
	Took   time.Duration
	Err    error // the tool failed (not the student's code)
}

// Ran is a run's outcome.
type Ran struct {
	Results []checker.Result
	Output  string
	Took    time.Duration
}

// Toolchain builds and runs tasks; tests give a fake one. slot tells
// concurrent builds (and runs) apart, each using a user and a folder of
// its own.
type Toolchain interface {
	Build(ctx context.Context, t *Task, slot int) *Built
	Run(ctx context.Context, t *Task, b *Built, device string, slot int) (*Ran, error)
}

// Options steer a grade run.
type Options struct {
	Jobs      int      // builds at once
	Devices   []string // the GPUs, as CUDA_VISIBLE_DEVICES names them
	PerDevice int      // runs at once on each GPU
	Regrade   bool     // grade again what is already graded
	// Done is called after each task is recorded (or skipped), from one
	// goroutine at a time.
	Done func(a *gradebook.Attempt, skipped bool)
	// Trace, when set, records each build and run.
	Trace *Trace
}

// Summary counts what a grade run did.
type Summary struct {
	Tasks, Skipped, Builds  int
	Passed, Failed, Missing int
	Errors                  int
	Took                    time.Duration
}

// Hash is the sha256 of data, in hex.
func Hash(data ...[]byte) string {
	h := sha256.New()
	for _, d := range data {
		h.Write(d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Students are the folders of dir, sorted; hidden ones are left out.
func Students(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no student folders: put each student's files in a folder named after the student (%s/alice/block_pool.cu)", dir, dir)
	}
	return out, nil
}

// SubmittedFile is where a student's file for exercise x is: the path the
// exercise has under exercises/ (day068/block_pool.cu), or its name alone.
func SubmittedFile(dir, student string, x *course.Exercise) string {
	rel := filepath.ToSlash(x.Student)
	rel = strings.TrimPrefix(rel, "exercises/")
	full := filepath.Join(dir, student, filepath.FromSlash(rel))
	if _, err := os.Lstat(full); err == nil {
		return full
	}
	return filepath.Join(dir, student, filepath.Base(rel))
}

// Load reads a student's file for a task. A missing file leaves Source
// nil; a link or a file too large is a Problem, never followed or read.
func Load(t *Task, path string) error {
	t.SourceName = filepath.Base(path)
	st, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case st.Mode()&os.ModeSymlink != 0:
		t.Problem = fmt.Sprintf("%s is a link, not a file: hand in the file itself", t.SourceName)
	case !st.Mode().IsRegular():
		t.Problem = fmt.Sprintf("%s is not a regular file", t.SourceName)
	case st.Size() > MaxSource:
		t.Problem = fmt.Sprintf("%s is %d bytes, over the limit of %d", t.SourceName, st.Size(), MaxSource)
	}
	if t.Problem != "" {
		t.Source = []byte{}
		t.SourceHash = Hash([]byte(t.Problem))
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	t.Source = data
	t.SourceHash = Hash(data)
	return nil
}

// LoadFiles reads the spec's other files of a task whose main file was
// handed in: each from the student's folder (beside their main file) when
// it is there, else from given, the exercise's folder. A link, or a file
// too large, is the task's Problem.
func LoadFiles(t *Task, submitted, given string) error {
	if t.Source == nil || t.Problem != "" || len(t.Spec.Files) == 0 {
		return nil
	}
	h := sha256.New()
	h.Write([]byte(t.SourceHash))
	for _, name := range t.Spec.Files {
		name = filepath.Clean(name)
		var f Task
		if err := Load(&f, filepath.Join(submitted, name)); err != nil {
			return err
		}
		if f.Problem != "" {
			t.Problem = f.Problem
			t.SourceHash = Hash([]byte(t.Problem))
			return nil
		}
		if f.Source == nil {
			data, err := os.ReadFile(filepath.Join(given, name))
			if err != nil {
				return fmt.Errorf("the exercise's own %s: %w", name, err)
			}
			f.Source = data
		}
		t.Files = append(t.Files, File{Name: name, Data: f.Source})
		fmt.Fprintf(h, "\x00%s\x00%d\x00", name, len(f.Source))
		h.Write(f.Source)
	}
	t.SourceHash = hex.EncodeToString(h.Sum(nil))
	return nil
}

// Grade grades every task and records each in book.
func Grade(ctx context.Context, book *gradebook.Book, tasks []*Task, tc Toolchain, opts Options) (*Summary, error) {
	start := time.Now()
	sum := &Summary{Tasks: len(tasks)}
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.PerDevice < 1 {
		opts.PerDevice = 1
	}
	if len(opts.Devices) == 0 {
		opts.Devices = []string{"0"}
	}
	var mu sync.Mutex // guards sum, the book's writes and Done
	var recErr error
	record := func(a *gradebook.Attempt, skipped bool) {
		mu.Lock()
		defer mu.Unlock()
		if skipped {
			sum.Skipped++
		} else {
			if err := book.Record(a); err != nil && recErr == nil {
				recErr = err
			}
			switch a.Status {
			case gradebook.Passed:
				sum.Passed++
			case gradebook.Failed:
				sum.Failed++
			case gradebook.Missing:
				sum.Missing++
			case gradebook.Error:
				sum.Errors++
			}
		}
		if opts.Done != nil {
			opts.Done(a, skipped)
		}
	}

	// What needs grading; the rest is recorded or skipped at once.
	var todo []*Task
	for _, t := range tasks {
		prev, ok, err := book.Latest(t.Student, t.Exercise.ID)
		if err != nil {
			return nil, err
		}
		hash := t.SourceHash
		if t.Source == nil {
			hash = ""
		}
		if ok && !opts.Regrade && prev.SourceHash == hash && prev.SpecHash == t.SpecHash && prev.Status != gradebook.Error {
			record(prev, true)
			continue
		}
		if t.Source == nil {
			record(attempt(t, gradebook.Missing, "no file handed in"), false)
			continue
		}
		if t.Problem != "" {
			a := attempt(t, gradebook.Failed, t.Problem)
			a.Checks = []gradebook.Check{{Name: "a file to grade", Expected: t.SourceName, Got: t.Problem}}
			record(a, false)
			continue
		}
		todo = append(todo, t)
	}

	// Builds on every core; a file handed in by several students is built
	// once.
	type built struct {
		once sync.Once
		b    *Built
	}
	var bmu sync.Mutex
	builds := map[string]*built{}
	buildQ := make(chan *Task)
	type ready struct {
		t *Task
		b *Built
	}
	runQ := make(chan ready, len(todo))
	var bwg sync.WaitGroup
	for slot := 0; slot < opts.Jobs; slot++ {
		bwg.Add(1)
		go func() {
			defer bwg.Done()
			for t := range buildQ {
				bmu.Lock()
				e := builds[t.Key()]
				if e == nil {
					e = &built{}
					builds[t.Key()] = e
				}
				bmu.Unlock()
				if ctx.Err() != nil {
					continue // stopped: nothing half-built is recorded
				}
				e.once.Do(func() {
					began := time.Now()
					e.b = tc.Build(ctx, t, slot)
					opts.Trace.span("build", tracePIDBuilds, slot, t, began, time.Now(), map[string]string{"outcome": buildOutcome(e.b)})
					mu.Lock()
					sum.Builds++
					mu.Unlock()
				})
				switch b := e.b; {
				case ctx.Err() != nil:
				case b.Err != nil:
					a := attempt(t, gradebook.Error, b.Err.Error())
					a.BuildMS = b.Took.Milliseconds()
					record(a, false)
				case b.Failed != nil:
					a := judged(t, b.Failed, "")
					a.BuildMS = b.Took.Milliseconds()
					record(a, false)
				default:
					runQ <- ready{t, b}
				}
			}
		}()
	}
	go func() {
		for _, t := range todo {
			select {
			case buildQ <- t:
			case <-ctx.Done():
			}
		}
		close(buildQ)
		bwg.Wait()
		close(runQ)
	}()

	// Runs: a queue per GPU, PerDevice at a time on each. A timed
	// exercise's run has its GPU to itself: it waits for the runs going on
	// there to end, and the others wait for it.
	var rwg sync.WaitGroup
	slot := 0
	for _, dev := range opts.Devices {
		var gpu GPU
		for k := 0; k < opts.PerDevice; k++ {
			rwg.Add(1)
			go func(dev string, slot int) {
				defer rwg.Done()
				for r := range runQ {
					if ctx.Err() != nil {
						continue // drain: nothing half-judged is recorded
					}
					var ran *Ran
					var err error
					var began, ended time.Time // while the GPU is ours
					gpu.Use(r.t.Spec.Timed, func() {
						began = time.Now()
						ran, err = tc.Run(ctx, r.t, r.b, dev, slot)
						ended = time.Now()
					})
					args := map[string]string{"device": dev}
					if ran != nil {
						args["program_ms"] = fmt.Sprint(ran.Took.Milliseconds())
					}
					opts.Trace.span("run", tracePIDRuns, slot, r.t, began, ended, args)
					if ctx.Err() != nil {
						continue
					}
					var a *gradebook.Attempt
					if err != nil {
						a = attempt(r.t, gradebook.Error, err.Error())
					} else {
						a = judged(r.t, ran.Results, ran.Output)
						a.RunMS = ran.Took.Milliseconds()
					}
					a.BuildMS = r.b.Took.Milliseconds()
					record(a, false)
				}
			}(dev, slot)
			slot++
		}
	}
	rwg.Wait()
	sum.Took = time.Since(start)
	if recErr != nil {
		return sum, fmt.Errorf("gradebook %s: %w", book.Path, recErr)
	}
	return sum, ctx.Err()
}

func buildOutcome(b *Built) string {
	switch {
	case b.Err != nil:
		return "tool failed: " + b.Err.Error()
	case b.Failed != nil:
		return "does not compile"
	}
	return "built"
}

// GPU lets the runs on one GPU share it, except a timed exercise's run,
// which waits for the GPU to itself (and the others wait for it).
type GPU struct{ mu sync.RWMutex }

// Use runs run on the GPU: alone, or beside the other runs.
func (g *GPU) Use(alone bool, run func()) {
	if alone {
		g.mu.Lock()
		defer g.mu.Unlock()
	} else {
		g.mu.RLock()
		defer g.mu.RUnlock()
	}
	run()
}

// maxOutput is how much of a program's output the gradebook keeps.
const maxOutput = 64 << 10

func attempt(t *Task, status, reason string) *gradebook.Attempt {
	a := &gradebook.Attempt{Student: t.Student, Exercise: t.Exercise.ID, Status: status, MaxPoints: t.Spec.Points,
		SpecHash: t.SpecHash, Reason: reason, GradedAt: time.Now().UTC()}
	if t.Source != nil {
		a.SourceHash = t.SourceHash
	}
	return a
}

// judged turns check results into an attempt: passed when every check
// passes, with the points the spec's Score gives (all or nothing, or the
// points of the checks that passed).
func judged(t *Task, res []checker.Result, output string) *gradebook.Attempt {
	status := gradebook.Failed
	if checker.Passed(res) && len(res) > 0 {
		status = gradebook.Passed
	}
	a := attempt(t, status, "")
	if len(output) > maxOutput {
		output = output[:maxOutput] + "\n[cut]\n"
	}
	a.Output = output
	for _, r := range res {
		c := gradebook.Check{Name: r.Name, Passed: r.Pass}
		if r.Check != nil {
			c.Points = r.Check.Points
			c.Hidden = r.Check.Hidden || r.Check.Run != ""
		}
		if r.Skipped {
			c.Got = r.Got // why it could not be made here
		}
		if !r.Pass {
			c.Expected, c.Got = r.Want, r.Got
			if r.Check != nil {
				c.Hint = r.Check.Hint
			}
			if a.Reason == "" {
				a.Reason = r.Name + ": " + r.Got
			}
		}
		a.Checks = append(a.Checks, c)
	}
	a.Points = t.Spec.Score(res)
	return a
}
