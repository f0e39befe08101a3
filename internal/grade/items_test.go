package grade

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
)

// NewItem runs an item's program only when it built, tells done once of
// what came of it (the build's failure, the tool's, or the run), and
// tells nothing of an item stopped half way.
func TestNewItem(t *testing.T) {
	compiles := []checker.Result{{Name: "compiles", Got: "compile error at a.cu:3"}}
	var mu sync.Mutex
	got := map[string]Outcome{}
	ran := map[string]bool{}
	item := func(name string, b *Built, runErr error) *Item {
		return NewItem(Work{Name: name,
			Build: func(context.Context, int) *Built { return b },
			Run: func(_ context.Context, b *Built, device string, _ int) (*Ran, error) {
				mu.Lock()
				ran[name] = true
				mu.Unlock()
				if runErr != nil {
					return nil, runErr
				}
				return &Ran{Results: []checker.Result{{Name: "exits", Pass: true, Got: b.Prog + " on " + device}}, Took: time.Millisecond}, nil
			}}, func(o Outcome) {
			mu.Lock()
			defer mu.Unlock()
			if _, twice := got[name]; twice {
				t.Errorf("%s: told twice", name)
			}
			got[name] = o
		})
	}
	tool := errors.New("nvcc: not found")
	items := []*Item{
		item("ok", &Built{Prog: "ok"}, nil),
		item("broken", &Built{Failed: compiles}, nil),
		item("tool", &Built{Err: tool}, nil),
		item("runner", &Built{Prog: "r"}, errors.New("no GPU")),
		item("known", &Built{Prog: "k", NoRun: "its program is the solution's"}, nil),
	}
	Schedule(context.Background(), items, Slots{Jobs: 2, Devices: []string{"3"}, PerDevice: 2})
	if o := got["ok"]; o.Err() != nil || len(o.Results()) != 1 || o.Results()[0].Got != "ok on 3" {
		t.Errorf("ok: %+v", o)
	}
	if o := got["broken"]; o.Err() != nil || o.Ran != nil || o.Results()[0].Got != "compile error at a.cu:3" || ran["broken"] {
		t.Errorf("broken: %+v (ran %v)", o, ran["broken"])
	}
	if o := got["tool"]; o.Err() != tool || ran["tool"] {
		t.Errorf("tool: %+v", o)
	}
	if o, told := got["known"]; !told || o.Err() != nil || o.Ran != nil || o.Built.Prog != "k" || ran["known"] {
		t.Errorf("a program known without a run: told %v, %+v (ran %v)", told, o, ran["known"])
	}
	if o := got["runner"]; o.Err() == nil || o.Err().Error() != "no GPU" || o.Ran != nil {
		t.Errorf("runner: %+v", o)
	}

	// Stopped between its build and its run: nothing is told.
	ctx, cancel := context.WithCancel(context.Background())
	told := false
	it := NewItem(Work{
		Build: func(context.Context, int) *Built { cancel(); return &Built{Prog: "p"} },
		Run:   func(context.Context, *Built, string, int) (*Ran, error) { return &Ran{}, nil },
	}, func(Outcome) { told = true })
	Schedule(ctx, []*Item{it}, Slots{})
	if told {
		t.Error("an item stopped half way was judged")
	}

	// An item that only builds has no run, and no one need be told.
	built := false
	it = NewItem(Work{Build: func(context.Context, int) *Built { built = true; return &Built{Prog: "p"} }}, nil)
	if it.Run != nil {
		t.Error("a build-only item has a run")
	}
	Schedule(context.Background(), []*Item{it}, Slots{})
	if !built {
		t.Error("the build-only item was not built")
	}
}
