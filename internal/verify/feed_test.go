package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
)

// standIn is an item of a batch that builds and runs nothing, and tells
// log when its build begins and its run ends.
func standIn(name string, log func(string), build, run func()) *grade.Item {
	return &grade.Item{Name: name,
		Build: func(context.Context, int) (bool, string) {
			log("build " + name)
			if build != nil {
				build()
			}
			return true, "built"
		},
		Run: func(context.Context, string, int, bool) (time.Duration, string) {
			if run != nil {
				run()
			}
			log("ran " + name)
			return time.Millisecond, ""
		}}
}

// TestReplayBeforeLastMutant: a replay mutant is built and run as soon
// as its solution's runs are recorded, in the batch of the other
// mutants, before the last of them ends (the last waits for it: had the
// replay waited for the batch's end, it would never come); a solution
// that fails has no replay mutant, and the batch ends all the same. Once
// ready, the replay mutant is the next built, before the mutants not yet
// built.
func TestReplayBeforeLastMutant(t *testing.T) {
	for _, fails := range []bool{false, true} {
		t.Run(fmt.Sprint("fails=", fails), func(t *testing.T) {
			var mu sync.Mutex
			var events []string
			log := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
			feed := &replayFeed{ready: make(chan func() *grade.Item, 1)}
			replayRan := make(chan struct{})
			replay := standIn("replay", log, nil, func() { close(replayRan) })
			sent := make(chan struct{})
			solution := standIn("solution", log, nil, func() {
				defer close(sent)
				feed.ready <- func() *grade.Item {
					if fails {
						return nil
					}
					return replay
				}
			})
			feed.rest = []*grade.Item{solution}
			const n = 6
			for i := range n {
				var built, wait func()
				if i == 1 {
					built = func() { <-sent } // the replay is ready when m1 is built
				}
				if i == n-1 && !fails {
					wait = func() {
						select {
						case <-replayRan:
						case <-time.After(time.Minute): // only a guard against a batch that never ends
							t.Error("the last mutant ended with the replay mutant not run")
						}
					}
				}
				feed.rest = append(feed.rest, standIn(fmt.Sprint("m", i), log, built, wait))
			}
			grade.Schedule(context.Background(), feed.items(len(feed.rest)+1), grade.Slots{Jobs: 1, PerDevice: 2})
			at := func(e string) int { return slices.Index(events, e) }
			for i := range n {
				if at(fmt.Sprint("ran m", i)) < 0 {
					t.Errorf("m%d was not run: %q", i, events)
				}
			}
			if fails {
				if at("build replay") >= 0 {
					t.Errorf("a failing solution's replay mutant was built: %q", events)
				}
				return
			}
			if at("ran replay") < 0 || at("ran replay") > at(fmt.Sprint("ran m", n-1)) || at("build replay") < at("ran solution") || at("build replay") > at("build m2") {
				t.Errorf("the replay mutant was not built next once its solution ran, and run before the last mutant ended: %q", events)
			}
		})
	}
}

// TestReplayOfSolutionRunAgain: a solution whose run is made again alone
// (recorded only after every other run of the batch) has no replay
// mutant in the batch, and the batch ends (the replay is made after it).
func TestReplayOfSolutionRunAgain(t *testing.T) {
	feed := &replayFeed{ready: make(chan func() *grade.Item, 1)}
	var once sync.Once
	replay := func(it *grade.Item) {
		once.Do(func() { feed.ready <- func() *grade.Item { return it } })
	}
	var runs []bool // alone, for each run of the solution
	solution := &grade.Item{Name: "solution",
		Build: func(context.Context, int) (bool, string) { return true, "built" },
		Run: func(_ context.Context, _ string, _ int, alone bool) (time.Duration, string) {
			runs = append(runs, alone)
			if !alone {
				return time.Millisecond, "stopped while waiting in the GPU's driver"
			}
			replay(standIn("replay", func(string) {}, nil, func() { t.Error("the replay ran in the batch") }))
			return time.Millisecond, ""
		}}
	onAgain(solution, func() { replay(nil) })
	feed.rest = []*grade.Item{solution, standIn("m0", func(string) {}, nil, nil)}
	grade.Schedule(context.Background(), feed.items(len(feed.rest)+1), grade.Slots{Jobs: 2, PerDevice: 2})
	if !slices.Equal(runs, []bool{false, true}) {
		t.Errorf("the solution's runs (alone): %v", runs)
	}
}

// TestReplayFeedStops: a build slot waiting for a replay mutant that
// will not come stops with the batch.
func TestReplayFeedStops(t *testing.T) {
	feed := &replayFeed{ready: make(chan func() *grade.Item, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if it := feed.next(ctx); it != nil {
		t.Errorf("next of a stopped batch: %v", it.Name)
	}
}

// TestMutantOutcomesSorted: the report has the outcomes in course order, each
// exercise's in the order its mutants were made (its errors before
// them), whatever order they finished in; the mutants made in the batch
// are not made again for it.
func TestMutantOutcomesSorted(t *testing.T) {
	mk := func(ids ...string) []author.Mutant {
		var out []author.Mutant
		for _, id := range ids {
			out = append(out, author.Mutant{ID: id})
		}
		return out
	}
	a := &mutantTarget{x: &course.Exercise{ID: "a"}, mutants: mk("host-wait@3", "off-by-one@2", "replay")}
	b := &mutantTarget{x: &course.Exercise{ID: "b"}, err: errors.New("fails")}
	c := &mutantTarget{x: &course.Exercise{ID: "c"}, mutants: mk("delete-call@9", "replay")}
	o := func(x, id string) author.Outcome { return author.Outcome{Exercise: x, Mutant: author.Mutant{ID: id}} }
	r := &author.Report{Outcomes: []author.Outcome{o("c", "replay"), o("a", "replay"), o("b", "(solution)"), o("c", "delete-call@9"),
		o("a", "off-by-one@2"), o("c", "gone@1"), o("a", "host-wait@3")}}
	sortOutcomes(r, []*mutantTarget{a, b, c})
	var got []string
	for _, x := range r.Outcomes {
		got = append(got, x.Exercise+" "+x.Mutant.ID)
	}
	want := []string{"a host-wait@3", "a off-by-one@2", "a replay", "b (solution)", "c gone@1", "c delete-call@9", "c replay"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted:\n%q\nwant\n%q", got, want)
	}
}
