package verify

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/ui"
)

// mutantTarget is one exercise whose solution is mutated.
type mutantTarget struct {
	x    *course.Exercise
	spec *checker.Spec
	src  *author.Source
	// files are the solution's build files; the mutant replaces the first.
	files []exercise.File
	// recorded are the solution's runs and what it printed on each.
	recorded []author.RecordedRun
	// others are the exercise's other files, for the loops around the
	// regions' functions.
	others [][]byte
	// data is the solution file's contents, built as a mutant is (in
	// the job's folder, under the exercise's name for it), so that its
	// program can be compared with theirs byte for byte.
	data []byte
	// program is the key of the solution's program (programKey): a
	// mutant whose program has it is the solution.
	program string
	// built is closed once the solution's build is done (program set
	// when it built).
	built chan struct{}
	err   error
	// failed is set once the solution is known not to pass: its
	// mutants' runs, judged for nothing, are not made.
	failed atomic.Bool
	// recordedOnce hands the replay mutant to the batch once, when the
	// solution's runs are recorded (or when there will be none in the
	// batch); replay is the replay mutant judged in the batch (nil: none,
	// it is made after it).
	recordedOnce sync.Once
	replay       *mutantOutcome
	// mutants are the solution's mutants made with its recorded runs
	// (the replay's, on its build slot in the batch; nil: not made yet),
	// so that the report does not make them again after the batch.
	mutants []author.Mutant
}

// final are t's mutants made with its recorded runs, made once.
func (t *mutantTarget) final() []author.Mutant {
	if t.mutants == nil {
		t.mutants = author.Mutants(t.src, t.recorded, t.others...)
	}
	return t.mutants
}

// mutantOutcome is what came of one mutant; told once its item is.
type mutantOutcome struct {
	o    *author.Outcome
	told bool
	// same is the mutant whose program this one's is, byte for byte:
	// judged by that one's run.
	same *mutantOutcome
}

// accepted is the outcome of a mutant that t's spec accepts as equivalent
// (equivalent_mutants) with the change it makes (its diff), neither built
// nor run: its reason is the author's word, and such a mutant, which
// passes every check, made the longest runs of a batch (every run whole,
// each sanitizer's too: stream-pools' accepted offset reset ran
// initcheck's "3 rounds"). nil for any other, and for an entry without
// its change: that one is built and run, and judged with its reason. A
// mutant's name is a place (operator@line), so an edit above it gives
// the name to another change: where the entry's change is not the
// mutant's, the outcome says so and is not judged (round 26: an entry of
// a name alone accepted whatever change came to be made there, unrun).
// Removing the entry judges it again.
func accepted(t *mutantTarget, mt author.Mutant) *mutantOutcome {
	for _, e := range t.spec.EquivalentMutants {
		if e.Mutant != mt.ID || strings.TrimSpace(e.Diff) == "" {
			continue
		}
		if !slices.Equal(checker.DiffLines(e.Diff), checker.DiffLines(mt.Diff)) {
			return &mutantOutcome{o: &author.Outcome{Exercise: t.x.ID, Mutant: mt,
				Err: fmt.Errorf("equivalent_mutants accepts %s with a change it no longer makes (the solution changed above it): it now makes\n%s: judge that change again, and mend the entry's diff or remove the entry", mt.ID, strings.TrimRight(mt.Diff, "\n"))}, told: true}
		}
		return &mutantOutcome{o: &author.Outcome{Exercise: t.x.ID, Mutant: mt, Equivalent: e.Reason, Accepted: true}, told: true}
	}
	return nil
}

// mutantJudge makes the items that build and judge mutants.
type mutantJudge struct {
	root   string
	course *course.Course
	tk     *exercise.Toolkit
	choice grade.Choice
	// programs are the mutants that ran, by exercise and programKey.
	programs map[string]*mutantOutcome
	order    runOrder
	// started counts the programs the mutants' runs started, again the
	// mutants whose run was made again alone on the machine (under mu).
	started, again int
}

// runOrder learns, as the mutants are judged, which run kills the
// mutants of each operator in each exercise, and has each mutant make
// first the run that killed the most of its operator's so far (then of
// its exercise's, then the spec's order: the public run first). Only the
// order changes: a mutant that passes a run goes on to the next, and a
// survivor has made them all.
type runOrder struct {
	mu    sync.Mutex
	kills map[string]map[string]int // by exercise and operator ("" all), the kills of each run
}

// kill is exercise.Kill making the runs in the order learnt so far for
// operator op of exercise x, and learning from where it stopped.
func (r *runOrder) kill(x, op string) grade.Judge {
	return func(ctx context.Context, tk *exercise.Toolkit, rn exercise.Runner, j *exercise.Job, prog, device string, slot int) (*exercise.Verdict, error) {
		jj := *j
		jj.RunOrder = r.runs(x, op, j.Spec.Runs())
		v, err := exercise.Kill(ctx, tk, rn, &jj, prog, device, slot)
		if err == nil && v.Killed {
			r.mu.Lock()
			if r.kills == nil {
				r.kills = map[string]map[string]int{}
			}
			for _, k := range []string{x + " " + op, x} {
				if r.kills[k] == nil {
					r.kills[k] = map[string]int{}
				}
				r.kills[k][v.KilledOn]++
			}
			r.mu.Unlock()
		}
		return v, err
	}
}

// runs are the spec's runs, those that killed most of op's mutants in
// x first, then those that killed most of x's.
func (r *runOrder) runs(x, op string, runs []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	byOp, byX := r.kills[x+" "+op], r.kills[x]
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b string) int {
		if d := byOp[b] - byOp[a]; d != 0 {
			return d
		}
		return byX[b] - byX[a]
	})
	return out
}

// item builds mo's mutant of t's solution and, unless its program is the
// solution's or another mutant's byte for byte, judges it as a student's
// file until its first failed check (exercise.Kill). mu guards mo and
// the programs.
func (j *mutantJudge) item(t *mutantTarget, mo *mutantOutcome, mu *sync.Mutex) *grade.Item {
	o, mt := mo.o, mo.o.Mutant
	files := append([]exercise.File{{Name: t.files[0].Name, Data: mt.Data}}, t.files[1:]...)
	job := &exercise.Job{ID: t.x.ID + " " + mt.ID, Spec: t.spec, Files: files, Env: j.choice.Env(t.spec.Timed),
		Dir: filepath.Join(j.root, t.x.ID, strings.NewReplacer("@", "-", "/", "-", ":", "-").Replace(mt.ID)), Root: j.course.Root}
	w := grade.JobWork("mutant "+job.ID, j.tk, exercise.Plain{}, job, j.order.kill(t.x.ID, mt.Op))
	build := w.Build
	w.Build = func(ctx context.Context, slot int) *grade.Built {
		b := build(ctx, slot)
		if b.Err != nil || b.Failed != nil {
			return b
		}
		select {
		case <-t.built:
		case <-ctx.Done():
			return b
		}
		key, err := programKey(b.Prog)
		if err != nil {
			return b // compared with nothing: run
		}
		mu.Lock()
		defer mu.Unlock()
		switch first := j.programs[t.x.ID+" "+key]; {
		case key == t.program:
			b.NoRun = "its program is the solution's"
			o.Identical = true
		case first != nil:
			mo.same = first
			o.SameAs = first.o.Mutant.ID
			b.NoRun = "its program is " + first.o.Mutant.ID + "'s"
		default:
			j.programs[t.x.ID+" "+key] = mo
		}
		return b
	}
	run := w.Run
	w.Run = func(ctx context.Context, b *grade.Built, device string, slot int) (*grade.Ran, error) {
		if t.failed.Load() {
			return &grade.Ran{}, nil // the solution fails: no mutant of it is judged
		}
		return run(ctx, b, device, slot)
	}
	return grade.NewItem(w, func(oc grade.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		mo.told = true
		switch {
		case oc.Err() != nil:
			o.Err = oc.Err()
		case oc.Built.Failed != nil:
			o.KilledBy = "compiles"
		case oc.Built.NoRun != "":
			// Judged as the program it is, once every run has ended.
		default:
			j.started += oc.Ran.Started
			if oc.Again != "" {
				j.again++
			}
			for _, r := range oc.Ran.Results {
				switch {
				case r.Pass:
					o.Passed = append(o.Passed, r.Name)
				case o.KilledBy == "":
					o.KilledBy = r.Name
				}
			}
		}
	})
}

// spec is the spec of exercise id among targets.
func spec(targets []*mutantTarget, id string) *checker.Spec {
	for _, t := range targets {
		if t.x.ID == id {
			return t.spec
		}
	}
	return &checker.Spec{}
}

// RunOptions say where the runs of verify --mutants and --wrong go.
type RunOptions struct {
	Toolkit *exercise.Toolkit
	// PerGPU and Queues as the flags give them (0: chosen), Jobs builds at
	// once, on Devices.
	PerGPU, Queues, Jobs int
	Devices              []string
	// Note is told of a solution with no regions to mutate, and of what
	// is about to run.
	Note func(string)
}

// Mutants is lessons verify --mutants: each solution runs once to record
// what it prints while every mutant of its solution regions is built and
// judged beside it like a student's file, by every check hidden or not,
// on grade's scheduler (the replay mutant, made of what the solution
// printed, as soon as it is recorded, in the same batch). A mutant that
// passes every check survives, unless the spec accepts it as equivalent;
// one whose program is the solution's byte for byte is equivalent
// without a run, and mutants whose programs are one are run once. Stopped half way (ctx), it returns ctx's error.
func Mutants(ctx context.Context, c *course.Course, opts RunOptions) (*author.Report, error) {
	start := time.Now()
	root := filepath.Join(c.Root, ".lessons", "mutants")
	go opts.Toolkit.StatsLibrary(ctx)
	var targets []*mutantTarget
	for _, x := range c.Exercises {
		t, note, err := loadMutantTarget(c, x)
		if err != nil {
			return nil, err
		}
		if note != "" {
			opts.Note(note)
		}
		if t == nil {
			continue
		}
		if have := max(len(opts.Devices), 1); t.spec.GPUs > have {
			opts.Note(fmt.Sprintf("lessons: %s: no mutants run: %s", x.ID, &grade.TooFewGPUs{Need: t.spec.GPUs, Have: have}))
			continue
		}
		targets = append(targets, t)
	}
	timed, untimed := 0, 0
	for _, t := range targets {
		if t.spec.Timed {
			timed++
		} else {
			untimed++
		}
	}
	choice := grade.Choose(opts.PerGPU, opts.Queues, untimed*20, timed*20, "the timed")
	devices := opts.Devices
	// As grade does: on a machine of several GPUs, no more runs at once
	// than its driver serves (grade.Choice.Spread).
	slots := choice.SlotsOn(devices, opts.Jobs, opts.PerGPU != 0)
	tk := opts.Toolkit

	// The solutions run once each, for what they print, and their
	// mutants are built and run beside them: only the replay mutant
	// (what the solution printed, printed again) waits for the
	// solution's runs, and a mutant's program is compared with the
	// solution's as soon as both are built.
	report := &author.Report{}
	var mu sync.Mutex
	j := &mutantJudge{root: root, course: c, tk: tk, choice: choice, programs: map[string]*mutantOutcome{}}
	var solutions []*grade.Item
	// A timed exercise's runs have the GPU to themselves: each waits
	// until every other run on it has ended, and the others wait for it.
	// Built and run first, they run one after the other while the
	// untimed mutants build on every core, and the GPU is emptied for
	// them once, not once for each among the others.
	// The untimed go in the order of their exercises' time limits, the
	// longest first: a mutant that never ends holds its run slot until
	// its limit, better beside the others than after them.
	var timedItems []*grade.Item
	untimedOf := map[*mutantTarget][]*grade.Item{}
	feed := &replayFeed{ready: make(chan func() *grade.Item, len(targets))}
	early := map[*mutantTarget]map[string]*mutantOutcome{}
	// Every mutant but those made from what the solution printed (the
	// runs' arguments are the spec's, their output not yet known), of
	// each solution at once: no build starts before they are made.
	first := make([][]author.Mutant, len(targets))
	var made sync.WaitGroup
	for i, t := range targets {
		made.Go(func() { first[i] = author.Mutants(t.src, author.Recorded(t.spec, nil), t.others...) })
	}
	made.Wait()
	count := 0
	for i, t := range targets {
		t.built = make(chan struct{})
		files := append([]exercise.File{{Name: t.files[0].Name, Data: t.data}}, t.files[1:]...)
		job := &exercise.Job{ID: t.x.ID, Spec: t.spec, Files: files, Dir: filepath.Join(root, t.x.ID, "solution"), Root: c.Root, Env: choice.Env(t.spec.Timed)}
		w := grade.JobWork("solution "+t.x.ID, tk, exercise.Plain{}, job, exercise.RunAll)
		build := w.Build
		w.Build = func(ctx context.Context, slot int) *grade.Built {
			defer close(t.built)
			b := build(ctx, slot)
			if b.Err == nil && b.Failed == nil {
				t.program, _ = programKey(b.Prog)
			}
			return b
		}
		// The replay mutant is built as soon as the solution's runs are
		// recorded, before any mutant not yet built; of a solution that
		// fails, none; of one whose run is made again alone (after every
		// other run), after the batch.
		replay := func(runs []author.RecordedRun) {
			t.recordedOnce.Do(func() {
				feed.ready <- func() *grade.Item {
					if runs == nil {
						return nil
					}
					return j.replayItem(t, runs, &mu)
				}
			})
		}
		sol := grade.NewItem(w, func(o grade.Outcome) {
			defer func() {
				t.failed.Store(t.err != nil)
				if t.err != nil {
					replay(nil)
				} else {
					replay(t.recorded)
				}
			}()
			switch {
			case o.Err() != nil:
				t.err = o.Err()
			case o.Built.Failed != nil:
				t.err = fmt.Errorf("the solution does not compile: %s", o.Built.Failed[0].Got)
			case !checker.Passed(o.Ran.Results):
				t.err = fmt.Errorf("the solution fails %s: run lessons verify", FirstFailure(o.Ran.Results))
			default:
				t.recorded = author.Recorded(t.spec, o.Ran.Outputs)
			}
		})
		// Recorded after every other run: its replay after the batch.
		onAgain(sol, func() { replay(nil) })
		solutions = append(solutions, sol)
		early[t] = map[string]*mutantOutcome{}
		for _, mt := range first[i] {
			count++
			if mt.Op == "replay" {
				continue
			}
			if mo := accepted(t, mt); mo != nil {
				early[t][mt.ID] = mo
				continue
			}
			mo := &mutantOutcome{o: &author.Outcome{Exercise: t.x.ID, Mutant: mt}}
			early[t][mt.ID] = mo
			if t.spec.Timed {
				timedItems = append(timedItems, j.item(t, mo, &mu))
			} else {
				untimedOf[t] = append(untimedOf[t], j.item(t, mo, &mu))
			}
		}
	}
	byLimit := slices.Clone(targets)
	slices.SortStableFunc(byLimit, func(a, b *mutantTarget) int { return cmp.Compare(b.spec.TimeLimit(), a.spec.TimeLimit()) })
	var untimedItems []*grade.Item
	for _, t := range byLimit {
		untimedItems = append(untimedItems, untimedOf[t]...)
	}
	opts.Note(fmt.Sprintf("Mutating %s: %s, built on %d cores, run on %d GPU(s), %d at a time on each.",
		ui.Count(len(targets), "solution"), ui.Count(count, "mutant"), max(opts.Jobs, 1), len(devices), choice.PerDevice))
	feed.rest = append(append(solutions, timedItems...), untimedItems...)
	grade.Schedule(ctx, feed.items(len(feed.rest)+len(targets)), slots)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	// Then any mutant the batch did not judge: made otherwise once what
	// the solution printed was known, or the replay mutant of a solution
	// whose run was made again alone (recorded only after every other
	// run); of each solution that passed.
	var outcomes []*mutantOutcome
	var items []*grade.Item
	for _, t := range targets {
		report.Order = append(report.Order, t.x.ID)
		if t.err != nil {
			report.Outcomes = append(report.Outcomes, author.Outcome{Exercise: t.x.ID, Mutant: author.Mutant{ID: "(solution)"}, Err: t.err})
			continue
		}
		equivalent := map[string]string{}
		for _, e := range t.spec.EquivalentMutants {
			equivalent[e.Mutant] = e.Reason
		}
		mutants := t.final()
		seen := map[string]bool{}
		for _, mt := range mutants {
			seen[mt.ID] = true
		}
		for _, e := range t.spec.EquivalentMutants {
			if !seen[e.Mutant] {
				report.Outcomes = append(report.Outcomes, author.Outcome{Exercise: t.x.ID, Mutant: author.Mutant{ID: e.Mutant},
					Err: fmt.Errorf("equivalent_mutants names %s, which is no mutant of %s now: remove it from the spec", e.Mutant, t.x.Solution)})
			}
		}
		for _, mt := range mutants {
			mo := early[t][mt.ID]
			if mt.Op == "replay" && t.replay != nil && t.replay.o.Mutant.ID == mt.ID {
				mo = t.replay
			}
			if mo == nil || string(mo.o.Mutant.Data) != string(mt.Data) {
				if mo = accepted(t, mt); mo == nil {
					mo = &mutantOutcome{o: &author.Outcome{Exercise: t.x.ID, Mutant: mt}}
					items = append(items, j.item(t, mo, &mu))
				}
			}
			outcomes = append(outcomes, mo)
		}
	}
	grade.Schedule(ctx, items, slots)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, mo := range outcomes {
		if !mo.told {
			continue
		}
		if first := mo.same; first != nil {
			if !first.told {
				continue
			}
			// The same program as first's: what its run made of it.
			o := mo.o
			o.KilledBy, o.Passed, o.Err = first.o.KilledBy, first.o.Passed, first.o.Err
		}
		o := *mo.o
		for _, e := range spec(targets, o.Exercise).EquivalentMutants {
			if e.Mutant == o.Mutant.ID {
				o.Equivalent = e.Reason
			}
		}
		if o.Identical && o.Equivalent == "" {
			o.Equivalent = author.IdenticalReason
		}
		report.Outcomes = append(report.Outcomes, o)
	}
	report.Took = time.Since(start)
	report.Started, report.Again = j.started, j.again
	sortOutcomes(report, targets)
	if err := writeKills(filepath.Join(root, "kills.tsv"), report); err != nil {
		return nil, err
	}
	return report, nil
}

// sortOutcomes puts the outcomes in course order, each exercise's in the
// order its mutants were made, whatever order they finished in.
func sortOutcomes(r *author.Report, targets []*mutantTarget) {
	rank := map[string]int{}
	for i, t := range targets {
		rank[t.x.ID] = i * 1_000_000
		if t.err == nil {
			for j, mt := range t.final() {
				rank[t.x.ID+" "+mt.ID] = i*1_000_000 + j + 1
			}
		}
	}
	key := func(o author.Outcome) int {
		if k, ok := rank[o.Exercise+" "+o.Mutant.ID]; ok {
			return k
		}
		return rank[o.Exercise]
	}
	slices.SortStableFunc(r.Outcomes, func(a, b author.Outcome) int { return cmp.Compare(key(a), key(b)) })
}

// writeKills keeps which check killed each mutant beside the mutants.
func writeKills(file string, r *author.Report) error {
	var b strings.Builder
	if err := r.WriteKills(&b); err != nil {
		return err
	}
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := safefs.WriteAtomic(file, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w (the mutants' report is above)", file, err)
	}
	return nil
}

// loadMutantTarget reads exercise x's solution, spec and other files for
// its mutants: nil (and a note saying why, or none when its solution is
// not marked) when it has no solution regions.
func loadMutantTarget(c *course.Course, x *course.Exercise) (*mutantTarget, string, error) {
	if !author.Marked(x.Solution) {
		return nil, "", nil
	}
	data, err := os.ReadFile(c.Path(x.Solution))
	if err != nil {
		return nil, "", err
	}
	if !author.HasMarkers(data) {
		return nil, fmt.Sprintf("lessons: %s: %s has no solution regions, so no mutants", x.ID, x.Solution), nil
	}
	src, err := author.Parse(c.Path(x.Solution), data)
	if err != nil {
		return nil, "", err
	}
	spec, err := exercise.LoadSpec(c, x)
	if err != nil {
		return nil, "", err
	}
	files := exercise.Files(x, spec, c.Path(x.Solution), filepath.Dir(c.Path(x.Solution)), filepath.Dir(c.Path(x.Student)))
	var others [][]byte
	for _, f := range files[1:] {
		if data, err := os.ReadFile(f.Path); err == nil {
			others = append(others, data)
		}
	}
	return &mutantTarget{x: x, spec: spec, src: src, files: files, others: others, data: data}, "", nil
}
