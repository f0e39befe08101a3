package serve

import (
	"context"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/runner"
)

// A page's Python cells share one session, as a notebook's kernel: a
// value set by one run is there for the next; Restart ends the session.
func TestPythonSessionOfAPage(t *testing.T) {
	if _, err := python.Find(context.Background()); err != nil {
		t.Skip(err)
	}
	c := newCourse(t, map[string]string{"day001-a": "# A\n\n```python run\nx = 41\n```\n\n```python run\nprint(x + 1)\n```\n"})
	c.srv.nb.Env = func(ws string) (notebook.Env, error) {
		return notebook.WithPython(context.Background(), notebook.Env{Runner: runner.Exec{}}), nil
	}
	t.Cleanup(func() { c.srv.nb.endSession(c.workspace("day001-a")) })
	evs, out := events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 1}))
	if end := last(evs); end.Status != "ok" || !strings.Contains(out, "Jupyter kernel") {
		t.Fatalf("cell 1: %+v %q", end, out)
	}
	evs, out = events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2}))
	if end := last(evs); end.Status != "ok" || out != "42\n" {
		t.Fatalf("cell 2: %+v %q", end, out)
	}
	res := c.post("restart", map[string]any{"page": "day001-a", "session": "p1"})
	res.Body.Close()
	evs, out = events(t, c.post("run", map[string]any{"page": "day001-a", "session": "p1", "cell": 2}))
	if end := last(evs); end.Status != "failed" || !strings.Contains(out, "NameError") {
		t.Errorf("after Restart: %+v %q", end, out)
	}
}
