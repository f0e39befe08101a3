package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/jupyter"
	"github.com/cudalessons/lessons/internal/lesson"
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

// The page runs a notebook's Python cells in the kernel its kernelspec
// names, and says so before the session's first cell.
func TestPageUsesTheNotebooksKernel(t *testing.T) {
	base, err := jupyter.FindSpec("python3")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kdir := filepath.Join(dir, "kernels", "lessons-page-kernel")
	os.MkdirAll(kdir, 0o755)
	argv, _ := json.Marshal(base.Argv)
	spec := `{"argv": ` + string(argv) + `, "display_name": "Page kernel", "language": "python", "env": {"LESSONS_WHICH": "page"}}`
	if err := os.WriteFile(filepath.Join(kdir, "kernel.json"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JUPYTER_PATH", dir)
	c := newCourse(t, map[string]string{"day001-k": ""})
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "lessons-page-kernel", "language": "python"}}, "cells": [
 {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "import os\nprint('in', os.environ.get('LESSONS_WHICH'))"}]}`
	c.srv.nb.Lesson = func(page string) (*lesson.Lesson, string, error) {
		l, err := lesson.ParseIpynb(page+".ipynb", []byte(src))
		return l, c.workspace(page), err
	}
	c.srv.nb.Env = func(ws string) (notebook.Env, error) {
		return notebook.WithPython(context.Background(), notebook.Env{Runner: runner.Exec{}}), nil
	}
	t.Cleanup(func() { c.srv.nb.endSession(c.workspace("day001-k")) })
	evs, out := events(t, c.post("run", map[string]any{"page": "day001-k", "session": "p1", "cell": 1}))
	if end := last(evs); end.Status != "ok" || out != "(the Jupyter kernel lessons-page-kernel: Page kernel)\nin page\n" {
		t.Fatalf("%+v %q", end, out)
	}
}

// A page's ! cell takes the notebook's Python values from the page's
// session, as Jupyter's kernel gives them ({name}, os.environ), where a
// Python cell has run; none is started for it.
func TestPageBangCellTakesPythonValues(t *testing.T) {
	if _, err := python.Find(context.Background()); err != nil {
		t.Skip(err)
	}
	c := newCourse(t, map[string]string{"day001-v": ""})
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": "import os\nname = 'world'\nos.environ['FROM_PY'] = 'set in Python'"},
 {"cell_type": "code", "metadata": {}, "outputs": [], "source": "!echo hello {name}\n!echo $FROM_PY"}]}`
	c.srv.nb.Lesson = func(page string) (*lesson.Lesson, string, error) {
		l, err := lesson.ParseIpynb(page+".ipynb", []byte(src))
		return l, c.workspace(page), err
	}
	c.srv.nb.Env = func(ws string) (notebook.Env, error) {
		return notebook.WithPython(context.Background(), notebook.Env{Runner: runner.Exec{}}), nil
	}
	t.Cleanup(func() { c.srv.nb.endSession(c.workspace("day001-v")) })
	evs, out := events(t, c.post("run", map[string]any{"page": "day001-v", "session": "p1", "cell": 2}))
	if end := last(evs); end.Status != "ok" || out != "hello {name}\n\n" { // no Python values yet: the shell's
		t.Fatalf("before the Python cell: %+v %q", end, out)
	}
	evs, out = events(t, c.post("run", map[string]any{"page": "day001-v", "session": "p1", "cell": 1}))
	if end := last(evs); end.Status != "ok" {
		t.Fatalf("cell 1: %+v %q", end, out)
	}
	evs, out = events(t, c.post("run", map[string]any{"page": "day001-v", "session": "p1", "cell": 2}))
	if end := last(evs); end.Status != "ok" || !strings.HasSuffix(out, "hello world\nset in Python\n") {
		t.Errorf("after it: %+v %q", end, out)
	}
}
