package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	err     error
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
// what it prints, then every mutant of its solution regions is built and
// judged like a student's file, by every check hidden or not, on grade's
// scheduler. A mutant that passes every check survives, unless the spec
// accepts it as equivalent. Stopped half way (ctx), it returns ctx's
// error.
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

	// First the solutions, for what they print.
	var items []*grade.Item
	for _, t := range targets {
		files := append([]exercise.File{{Name: t.files[0].Name, Data: t.data}}, t.files[1:]...)
		job := &exercise.Job{ID: t.x.ID, Spec: t.spec, Files: files, Dir: filepath.Join(root, t.x.ID, "solution"), Root: c.Root, Env: choice.Env(t.spec.Timed)}
		items = append(items, grade.NewItem(grade.JobWork("solution "+t.x.ID, tk, exercise.Plain{}, job, exercise.RunAll), func(o grade.Outcome) {
			switch {
			case o.Err() != nil:
				t.err = o.Err()
			case o.Built.Failed != nil:
				t.err = fmt.Errorf("the solution does not compile: %s", o.Built.Failed[0].Got)
			case !checker.Passed(o.Ran.Results):
				t.err = fmt.Errorf("the solution fails %s: run lessons verify", FirstFailure(o.Ran.Results))
			default:
				t.recorded = author.Recorded(t.spec, o.Ran.Outputs)
				// Read after its runs: a program that rewrote itself
				// would differ from every mutant, and cost only runs.
				t.program, _ = programKey(o.Built.Prog)
			}
		}))
	}
	grade.Schedule(ctx, items, slots)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	// Then every mutant of every solution that passed.
	report := &author.Report{}
	var mu sync.Mutex
	// A timed exercise's runs have the GPU to themselves: each waits
	// until every other run on it has ended, and the others wait for it.
	// Built and run first, they run one after the other while the
	// untimed mutants build on every core, and the GPU is emptied for
	// them once, not once for each among the others.
	var timedItems, untimedItems []*grade.Item
	// Each mutant's outcome, in the order made; told once its item is.
	type mutantOutcome struct {
		o    *author.Outcome
		told bool
		// same is the mutant whose program this one's is, byte for
		// byte: judged by that one's run.
		same *mutantOutcome
	}
	var outcomes []*mutantOutcome
	programs := map[string]*mutantOutcome{} // by exercise and programKey
	count := 0
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
		mutants := author.Mutants(t.src, t.recorded, t.others...)
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
			count++
			o := &author.Outcome{Exercise: t.x.ID, Mutant: mt, Equivalent: equivalent[mt.ID]}
			mo := &mutantOutcome{o: o}
			outcomes = append(outcomes, mo)
			files := append([]exercise.File{{Name: t.files[0].Name, Data: mt.Data}}, t.files[1:]...)
			job := &exercise.Job{ID: t.x.ID + " " + mt.ID, Spec: t.spec, Files: files, Env: choice.Env(t.spec.Timed),
				Dir: filepath.Join(root, t.x.ID, strings.NewReplacer("@", "-", "/", "-", ":", "-").Replace(mt.ID)), Root: c.Root}
			w := grade.JobWork("mutant "+job.ID, tk, exercise.Plain{}, job, exercise.Kill)
			build := w.Build
			w.Build = func(ctx context.Context, slot int) *grade.Built {
				b := build(ctx, slot)
				if b.Err != nil || b.Failed != nil {
					return b
				}
				key, err := programKey(b.Prog)
				if err != nil {
					return b // compared with nothing: run
				}
				switch {
				case key == t.program:
					b.NoRun = "its program is the solution's"
					mu.Lock()
					o.Identical = true
					if o.Equivalent == "" {
						o.Equivalent = author.IdenticalReason
					}
					mu.Unlock()
				default:
					mu.Lock()
					if first := programs[t.x.ID+" "+key]; first != nil {
						mo.same = first
						o.SameAs = first.o.Mutant.ID
						b.NoRun = "its program is " + first.o.Mutant.ID + "'s"
					} else {
						programs[t.x.ID+" "+key] = mo
					}
					mu.Unlock()
				}
				return b
			}
			item := grade.NewItem(w, func(oc grade.Outcome) {
				mu.Lock()
				defer mu.Unlock()
				mo.told = true
				switch {
				case oc.Err() != nil:
					o.Err = oc.Err()
				case oc.Built.Failed != nil:
					o.KilledBy = "compiles"
				case oc.Built.NoRun != "":
					// Judged below, as the program it is.
				default:
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
			if t.spec.Timed {
				timedItems = append(timedItems, item)
			} else {
				untimedItems = append(untimedItems, item)
			}
		}
	}
	items = append(timedItems, untimedItems...)
	opts.Note(fmt.Sprintf("Mutating %s: %s, built on %d cores, run on %d GPU(s), %d at a time on each.",
		ui.Count(len(targets), "solution"), ui.Count(count, "mutant"), max(opts.Jobs, 1), len(devices), choice.PerDevice))
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
		report.Outcomes = append(report.Outcomes, *mo.o)
	}
	report.Took = time.Since(start)
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
			for j, mt := range author.Mutants(t.src, t.recorded, t.others...) {
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
	outs := r.Outcomes
	for i := 1; i < len(outs); i++ {
		for j := i; j > 0 && key(outs[j]) < key(outs[j-1]); j-- {
			outs[j], outs[j-1] = outs[j-1], outs[j]
		}
	}
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
