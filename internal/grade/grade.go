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
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/suspect"
	"github.com/cudalessons/lessons/internal/tracer"
	"github.com/cudalessons/lessons/kernels"
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
	// Findings are what the files name that reaches around the
	// statistics library and the exercise's solution does not use
	// (suspect.Unexplained), in words: the grade is marked for review.
	Findings []string
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
	// NoRun, when set, says why the program that built needs no run:
	// its verdict is known without one (verify --mutants: a mutant
	// whose program is the solution's, or another mutant's, byte for
	// byte). The item is told of its build alone.
	NoRun string
	// shared: a copy for an item whose build another item made.
	shared bool
}

// Ran is a run's outcome.
type Ran struct {
	Results []checker.Result
	Output  string
	// Outputs are what each run printed, by run name ("": the public run).
	Outputs map[string]string
	Took    time.Duration
	// Stalled says why the run was stopped at its time limit while one
	// of its threads waited in the GPU's driver ("" when it was not): the
	// hang may be the machine's, and the item is judged on a run alone.
	Stalled string
	// Trace is the public run's trace, when one was asked for.
	Trace []byte
	// Started counts the programs started (each run and each run under
	// a sanitizer).
	Started int
	// Unwitnessed says why a run's statistics record was not compared
	// with the outside witness's counts ("" when nothing said so:
	// RunAttempt still wants the comparison among the results).
	Unwitnessed string
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
	Machine   int      // runs at once on the machine (Slots.Machine)
	Regrade   bool     // grade again what is already graded
	// Done is called after each task is recorded (or skipped), from one
	// goroutine at a time.
	Done func(a *gradebook.Attempt, skipped bool)
	// Trace, when set, records each build and run.
	Trace *tracer.Tracer
}

// Summary counts what a grade run did.
type Summary struct {
	Tasks, Skipped, Builds  int
	Passed, Failed, Missing int
	Errors                  int
	Took                    time.Duration
	// Where the time went: the builds' time added up on BuildSlots, the
	// runs' (each with its hidden and sanitizer runs) on RunSlots, the
	// programs started (public and hidden runs), and the runs made again
	// alone on the machine.
	BuildWork, RunWork   time.Duration
	BuildSlots, RunSlots int
	Programs, RunsAgain  int
}

// Hash is the sha256 of data, in hex.
func Hash(data ...[]byte) string {
	h := sha256.New()
	for _, d := range data {
		h.Write(d)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SpecHash is what a grade of one exercise is judged by besides the
// submission: its spec, its secret spec and the statistics library (lib,
// the sum of every file of it, kernels.LibrarySum). A change to any of
// them grades the exercise again.
func SpecHash(spec, secret []byte, lib [32]byte) string {
	return Hash(spec, lib[:], secret)
}

// Students are the folders of dir, sorted; hidden ones are left out.
func Students(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		// A student folder that is a link is listed, so that its
		// grade says why it is not followed (Load).
		if (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && !strings.HasPrefix(e.Name(), ".") {
			if hasControls(e.Name()) {
				return nil, failure.Usagef("%s: the student folder %s has a control character in its name (a newline, an escape, a right-to-left override), which would print as lines or sequences of its own in the grade's output: rename it", dir, strconv.Quote(e.Name()))
			}
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no student folders: put each student's files in a folder named after the student (%s/alice/block_pool.cu)", dir, dir)
	}
	return out, nil
}

// hasControls reports whether s holds a control character (C0, DEL or
// C1), one of Unicode's bidirectional controls (they reorder how the
// rest of the line is shown: "Trojan Source"; ui.Printable drops them
// from the table, not from the progress lines), or is not UTF-8.
func hasControls(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return true
		}
	}
	return false
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

// maxSearch bounds FindSubmitted's walk of one student's folder.
const maxSearch = 2000

// FindSubmitted is where a student's file for exercise x is, as
// SubmittedFile says; where neither of its places holds a file, it is the
// one file of that name anywhere else in the student's folder
// (alice/exercises/day068/block_pool.cu as a repository holds it, a
// folder of a course's older layout, src/): a file handed in is never
// graded missing for where it sits. Several of that name is a problem
// that names them, since which one to grade is the student's to say.
// Links are not followed (Load refuses a file reached through one), the
// folders whose names start with a dot (.git) are not looked in, and the
// walk stops after maxSearch entries.
func FindSubmitted(dir, student string, x *course.Exercise) (path, problem string) {
	path = SubmittedFile(dir, student, x)
	if _, err := os.Lstat(path); err == nil {
		return path, ""
	}
	name, root := filepath.Base(path), filepath.Join(dir, student)
	var found []string
	seen := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxSearch {
			return filepath.SkipAll
		}
		switch {
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && d.Name() == name:
			found = append(found, p)
		}
		return nil
	})
	switch len(found) {
	case 0:
		return path, ""
	case 1:
		return found[0], ""
	}
	var rels []string
	for _, f := range found {
		r, _ := filepath.Rel(root, f)
		rels = append(rels, filepath.ToSlash(r))
	}
	want := strings.TrimPrefix(filepath.ToSlash(x.Student), "exercises/")
	return path, fmt.Sprintf("%d files named %s (%s): hand in one, at %s", len(found), name, strings.Join(rels, ", "), want)
}

// Tasks are the tasks of grading students (folders of subs) on
// exercises of course c, with the gradebook's exercises. Every spec is
// read first: a bad one (a *failure.Tool) stops the grade before
// anything runs.
func Tasks(c *course.Course, subs string, students []string, exercises []*course.Exercise) ([]*Task, []gradebook.Exercise, error) {
	var tasks []*Task
	var bookXs []gradebook.Exercise
	for _, x := range exercises {
		spec, err := exercise.LoadSpec(c, x)
		if err != nil {
			return nil, nil, &failure.Tool{Err: err}
		}
		raw, _ := os.ReadFile(c.Path(x.Spec()))
		// The secret spec judges too: a change to it grades again.
		secret, _ := os.ReadFile(c.Path(author.SecretFile(x)))
		specHash := SpecHash(raw, secret, kernels.LibrarySum())
		// The course's order, whichever exercises this grade names: the
		// CSV's columns followed the order they were first graded in.
		bookXs = append(bookXs, gradebook.Exercise{ID: x.ID, Points: spec.Points, Position: slices.Index(c.Exercises, x)})
		known := suspect.Known(author.Reference(c, x, spec)...)
		for _, s := range students {
			t := &Task{Student: s, Exercise: x, Spec: spec, SpecHash: specHash}
			file, problem := FindSubmitted(subs, s, x)
			if err := Load(t, subs, file); err != nil {
				return nil, nil, err
			}
			if problem != "" && t.Problem == "" {
				t.Problem, t.Source, t.SourceName = problem, []byte{}, filepath.Base(file)
				t.SourceHash = Hash([]byte(problem))
			}
			if err := LoadFiles(t, subs, filepath.Dir(file), filepath.Dir(c.Path(x.Student))); err != nil {
				return nil, nil, err
			}
			t.Findings = Suspect(t, known)
			tasks = append(tasks, t)
		}
	}
	return tasks, bookXs, nil
}

// Load reads a student's file for a task, at path in the class folder
// subs. A missing file leaves Source nil; a file too large, or a link
// anywhere on its way from subs (the file, the student's folder, a
// folder between: day001 -> ../alice would hand in another's work), is
// a Problem, never followed or read.
func Load(t *Task, subs, path string) error {
	t.SourceName = filepath.Base(path)
	rel, err := filepath.Rel(subs, path)
	if err != nil {
		return err
	}
	err = safefs.NoLinks(subs, rel)
	var be *safefs.Error
	var st fs.FileInfo
	if err == nil {
		st, err = os.Lstat(path)
	}
	switch {
	case errors.As(err, &be) && be.At == rel:
		t.Problem = fmt.Sprintf("%s is a link, not a file: hand in the file itself", t.SourceName)
	case errors.As(err, &be):
		t.Problem = fmt.Sprintf("%s is a link, not a folder (for %s): hand in folders and files themselves, never links", filepath.ToSlash(be.At), t.SourceName)
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	case err != nil:
		return err
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
	// Read beneath subs: nothing on the way can have become a link out.
	data, err := safefs.ReadFile(subs, rel)
	if err != nil {
		return err
	}
	t.Source = data
	t.SourceHash = Hash(data)
	return nil
}

// LoadFiles reads the spec's other files of a task whose main file was
// handed in: each from the student's folder (beside their main file) when
// it is there, else from given, the exercise's folder; a fixed file
// always from given. A link on the way from subs, or a file too large, is
// the task's Problem.
func LoadFiles(t *Task, subs, submitted, given string) error {
	if t.Source == nil || t.Problem != "" || len(t.Spec.Files) == 0 {
		return nil
	}
	h := sha256.New()
	h.Write([]byte(t.SourceHash))
	for _, name := range t.Spec.Files {
		fixed := t.Spec.IsFixed(name)
		name = filepath.Clean(name)
		var f Task
		if !fixed {
			if err := Load(&f, subs, filepath.Join(submitted, name)); err != nil {
				return err
			}
		}
		if f.Problem != "" {
			t.Problem = f.Problem
			t.SourceHash = Hash([]byte(t.Problem))
			return nil
		}
		if f.Source == nil {
			data, err := safefs.ReadRegular(filepath.Join(given, name), safefs.MaxRead)
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

// Settled is a task whose grade is known without building it: graded
// before on the same file and spec (Skipped), no file handed in, or a
// file that cannot be graded.
type Settled struct {
	Attempt *gradebook.Attempt
	Skipped bool
}

// Plan splits tasks into those to build and run (todo) and those already
// settled, by the resume rule: a task graded before on the same file and
// spec is skipped unless regrade, except when a tool failed then.
func Plan(book *gradebook.Book, tasks []*Task, regrade bool) (todo []*Task, settled []Settled, err error) {
	for _, t := range tasks {
		prev, ok, err := book.Latest(t.Student, t.Exercise.ID)
		if err != nil {
			return nil, nil, err
		}
		hash := t.SourceHash
		if t.Source == nil {
			hash = ""
		}
		switch {
		case ok && !regrade && prev.SourceHash == hash && prev.SpecHash == t.SpecHash && prev.Status != gradebook.Error:
			settled = append(settled, Settled{prev, true})
		case t.Source == nil:
			settled = append(settled, Settled{Attempt: attempt(t, gradebook.Missing, "no file handed in")})
		case t.Problem != "":
			a := attempt(t, gradebook.Failed, t.Problem)
			a.Checks = []gradebook.Check{{Name: "a file to grade", Expected: t.SourceName, Got: t.Problem}}
			settled = append(settled, Settled{Attempt: a})
		default:
			todo = append(todo, t)
		}
	}
	return todo, settled, nil
}

// Built is the attempt of a task whose build did not give a program to
// run (it does not compile, or the tool failed), or nil.
func (b *Built) Attempt(t *Task) *gradebook.Attempt {
	var a *gradebook.Attempt
	switch {
	case b.Err != nil:
		a = attempt(t, gradebook.Error, b.Err.Error())
	case b.Failed != nil:
		a = judged(t, b.Failed, "")
	default:
		return nil
	}
	a.BuildMS = b.Took.Milliseconds()
	return a
}

// RunAttempt is the attempt of a task built as b and run: ran, or the
// error of a run that a tool (not the program) failed.
func RunAttempt(t *Task, b *Built, ran *Ran, err error) *gradebook.Attempt {
	var a *gradebook.Attempt
	if err != nil {
		a = attempt(t, gradebook.Error, err.Error())
	} else {
		a = judged(t, ran.Results, ran.Output)
		a.RunMS = ran.Took.Milliseconds()
		a.Trace = ran.Trace
		a.Witness = witnessOf(ran)
	}
	a.BuildMS = b.Took.Milliseconds()
	return a
}

// witnessOf is an attempt's Witness: compared when no run said it was
// not and the comparison is among the results (a run judged elsewhere,
// on a pilot's node, says only that), not witnessed otherwise.
func witnessOf(ran *Ran) string {
	if ran.Unwitnessed != "" {
		return "not witnessed: " + ran.Unwitnessed
	}
	for _, r := range ran.Results {
		if strings.HasSuffix(r.Name, checker.WitnessCheckName) {
			return gradebook.Witnessed
		}
	}
	return "not witnessed: no count of its runs was compared"
}

// GradeOne builds and runs one task with tc, on device and slot, and
// returns its attempt, without the gradebook: what an executor of a
// grade elsewhere (a cluster's job) does for each task that Plan left to
// grade. Merge the attempts with book.Record.
func GradeOne(ctx context.Context, tc Toolchain, t *Task, device string, slot int) *gradebook.Attempt {
	b := tc.Build(ctx, t, slot)
	if a := b.Attempt(t); a != nil {
		return a
	}
	ran, err := tc.Run(ctx, t, b, device, slot)
	return RunAttempt(t, b, ran, err)
}

// Sinks are where the items that Items makes report, each from any
// goroutine.
type Sinks struct {
	// Built is told of each build made (not of one another item shared).
	Built func(t *Task, b *Built)
	// Graded gets each graded task's attempt. Without it the items only
	// build (a cluster's build task, into the shared cache).
	Graded func(*gradebook.Attempt)
	// Ran, when set, is told of each judged run, before Graded.
	Ran func(o Outcome)
}

// Items are the scheduler's items of tasks to grade with tc, here and
// on a cluster's node: the tasks of one file (of one exercise) share a
// build, so that no two builds write one build folder at once.
func Items(tasks []*Task, tc Toolchain, sinks Sinks) []*Item {
	type shared struct {
		once sync.Once
		b    *Built
	}
	byKey := map[string]*shared{}
	var out []*Item
	for _, t := range tasks {
		e := byKey[t.Key()]
		if e == nil {
			e = &shared{}
			byKey[t.Key()] = e
		}
		w := Work{
			Name: t.Student + " " + t.Exercise.ID, Timed: t.Spec.Timed, GPUs: t.Spec.GPUs, Group: t.Student,
			Args: map[string]string{"student": t.Student, "exercise": t.Exercise.ID},
			Build: func(ctx context.Context, slot int) *Built {
				made := false
				e.once.Do(func() {
					e.b, made = tc.Build(ctx, t, slot), true
					if sinks.Built != nil {
						sinks.Built(t, e.b)
					}
				})
				if made {
					return e.b
				}
				b := *e.b
				b.shared = true
				return &b
			},
		}
		var done func(Outcome)
		if sinks.Graded != nil {
			w.Run = func(ctx context.Context, b *Built, device string, slot int) (*Ran, error) {
				return tc.Run(ctx, t, b, device, slot)
			}
			done = func(o Outcome) {
				if o.Ran == nil && o.RunErr == nil {
					sinks.Graded(o.Built.Attempt(t))
					return
				}
				if sinks.Ran != nil {
					sinks.Ran(o)
				}
				a := RunAttempt(t, o.Built, o.Ran, o.RunErr)
				if o.Again != "" || o.NotAgain != "" {
					noteAgain(a, o)
				}
				sinks.Graded(a)
			}
		}
		out = append(out, NewItem(w, done))
	}
	return out
}

// Grade grades every task with tc and records each in book: the tasks
// Plan settles at once, the others built and run by Schedule.
func Grade(ctx context.Context, book *gradebook.Book, tasks []*Task, tc Toolchain, opts Options) (*Summary, error) {
	start := time.Now()
	sum := &Summary{Tasks: len(tasks)}
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
	todo, settled, err := Plan(book, tasks, opts.Regrade)
	if err != nil {
		return nil, err
	}
	for _, s := range settled {
		record(s.Attempt, s.Skipped)
	}
	sum.BuildSlots = max(opts.Jobs, 1)
	sum.RunSlots = max(len(opts.Devices), 1) * max(opts.PerDevice, 1)
	if opts.Machine > 0 {
		sum.RunSlots = min(sum.RunSlots, opts.Machine)
	}
	items := Items(todo, tc, Sinks{
		Built: func(_ *Task, b *Built) {
			mu.Lock()
			sum.Builds++
			sum.BuildWork += b.Took
			mu.Unlock()
		},
		Ran: func(o Outcome) {
			mu.Lock()
			defer mu.Unlock()
			sum.RunWork += o.RunTook
			if o.Ran != nil {
				sum.Programs += max(len(o.Ran.Outputs), 1)
			}
			if o.Again != "" {
				sum.RunsAgain++
			}
		},
		Graded: func(a *gradebook.Attempt) { record(a, false) },
	})
	Schedule(ctx, items, Slots{Jobs: opts.Jobs, Devices: opts.Devices, PerDevice: opts.PerDevice, Machine: opts.Machine, Trace: opts.Trace})
	sum.Took = time.Since(start)
	if recErr != nil {
		return sum, fmt.Errorf("gradebook %s: %w", book.Path, recErr)
	}
	return sum, ctx.Err()
}

// noteAgain says on a grade judged on a second run, alone on the
// machine, why it was made (stopped in the driver, or failed only checks
// the load can change); one that stalled in the driver even alone is
// marked for review: the driver, not the program, may be at fault.
func noteAgain(a *gradebook.Attempt, o Outcome) {
	if o.NotAgain != "" {
		a.Note = "stopped while waiting in the GPU's driver beside other runs, and not run again alone: " + o.NotAgain
		if o.Ran != nil && o.Ran.Stalled == "" {
			a.Note = "beside other runs, " + checker.FailedOnLoad(o.Ran.Results) + "; not run again alone: " + o.NotAgain
		}
		a.MarkForReview(a.Note)
		return
	}
	a.Note = "graded on a second run, alone on the machine: the first, beside other runs, " + o.Again
	if o.Ran != nil && o.Ran.Stalled != "" {
		a.MarkForReview("stopped at its time limit while waiting in the GPU's driver, even alone on the machine: look at the machine's driver before trusting this grade")
	}
}

// maxOutput is how much of a program's output the gradebook keeps.
const maxOutput = 64 << 10

func attempt(t *Task, status, reason string) *gradebook.Attempt {
	a := &gradebook.Attempt{Student: t.Student, Exercise: t.Exercise.ID, Status: status, MaxPoints: t.Spec.Points,
		SpecHash: t.SpecHash, Reason: reason, GradedAt: time.Now().UTC()}
	if t.Source != nil {
		a.SourceHash = t.SourceHash
	}
	for _, f := range t.Findings {
		a.MarkForReview(f)
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
		if c.Hidden && r.Review != "" {
			// The review's lines reach the student's feedback, which
			// keeps hidden checks to a count: a hidden run's review
			// named the run (the secret spec's name for its case,
			// "8 buffers of 520 MiB") and what it waited for. The instructor reads
			// the check's own result in the gradebook.
			a.MarkForReview("a hidden check is marked for review: its result is in the gradebook (lessons grade export)")
		} else {
			a.MarkForReview(r.Review)
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
