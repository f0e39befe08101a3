package classroom

import (
	"context"
	"fmt"
	"sync"

	"github.com/cudalessons/lessons/internal/classroom/cells"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
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
	sp := c.cells.Begin(kind, student)
	release, err := c.cells.Hold(ctx, student)
	if err != nil {
		return nil, err
	}
	sp.Mark(cells.BuildStart, c.cfg.Clock())
	b, err := c.builds.build(ctx, c.cfg.Toolchain, t)
	release()
	sp.Mark(cells.BuildEnd, c.cfg.Clock())
	if err != nil {
		return nil, err
	}
	if a := b.Attempt(t); a != nil {
		return a, nil
	}
	var ran *grade.Ran
	var runErr error
	for try := 0; ; try++ {
		sp.Mark(cells.Queued, c.cfg.Clock())
		tk, err := c.queue.Enqueue(student, t.Spec.Timed)
		if err != nil {
			return nil, err
		}
		dev, err := tk.Wait(ctx)
		if err != nil {
			return nil, err
		}
		sp.Grant(dev, tk.Slot(), c.cfg.Clock())
		start := c.cfg.Clock()
		func() {
			defer tk.Take(dev)()
			sp.Mark(cells.Spawned, c.cfg.Clock())
			ran, runErr = c.cfg.Toolchain.Run(ctx, t, b, dev, tk.Slot())
			sp.Mark(cells.Exited, c.cfg.Clock())
		}()
		tk.Done(c.cfg.Clock().Sub(start))
		if ctx.Err() != nil {
			sp.End(c.cfg.Clock())
			return nil, ctx.Err()
		}
		if !c.cells.Again(try, dev, runErr) {
			break
		}
	}
	sp.End(c.cfg.Clock())
	return grade.RunAttempt(t, b, ran, runErr), nil
}
