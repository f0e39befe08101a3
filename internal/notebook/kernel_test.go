package notebook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/jupyter"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/runner"
)

// namedKernel installs a kernelspec called name in a JUPYTER_PATH of the
// test's own: python3's ipykernel, with LESSONS_WHICH=name in its
// environment, so that a cell can tell which kernel it ran in.
func namedKernel(t *testing.T, name string) {
	t.Helper()
	base, err := jupyter.FindSpec("python3")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	kdir := filepath.Join(dir, "kernels", name)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	argv := `["` + strings.Join(base.Argv, `", "`) + `"]`
	spec := `{"argv": ` + argv + `, "display_name": "Kernel ` + name + `", "language": "python", "env": {"LESSONS_WHICH": "` + name + `"}}`
	if err := os.WriteFile(filepath.Join(kdir, "kernel.json"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JUPYTER_PATH", dir)
}

func notebookNaming(t *testing.T, kernel string) *lesson.Lesson {
	t.Helper()
	meta := `{}`
	if kernel != "" {
		meta = `{"kernelspec": {"name": "` + kernel + `", "display_name": "K", "language": "python"}}`
	}
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": ` + meta + `, "cells": [
 {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "import os\nprint('in', os.environ.get('LESSONS_WHICH', 'python3'))"}]}`
	l, err := lesson.ParseIpynb("k.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A notebook's Python cells run in the kernel its kernelspec names, by
// whichever way the run was set up for (WithPython, as run, the page and
// verify set it up), and the way says so.
func TestRunUsesTheNotebooksKernel(t *testing.T) {
	namedKernel(t, "lessons-test-named")
	l := notebookNaming(t, "lessons-test-named")
	env := WithPython(context.Background(), Env{Runner: runner.Exec{}})
	if got := ForLesson(context.Background(), env, l).PythonWay; got != "the Jupyter kernel lessons-test-named: Kernel lessons-test-named" {
		t.Errorf("the way: %q", got)
	}
	var out strings.Builder
	oc, err := Run(context.Background(), l, env, Options{Workspace: t.TempDir(), Plain: true}, &out)
	if err != nil || len(oc) != 1 || !oc[0].OK || out.String() != "in lessons-test-named\n" {
		t.Fatalf("%v %+v %q", err, oc, out.String())
	}
}

// A kernel the notebook names but this machine lacks: Python cells run
// as they would for python3, and the way says which was wanted.
func TestRunWithAKernelNotInstalled(t *testing.T) {
	if _, err := jupyter.FindSpec("python3"); err != nil {
		t.Skip(err)
	}
	l := notebookNaming(t, "lessons-test-absent")
	env := ForLesson(context.Background(), WithPython(context.Background(), Env{Runner: runner.Exec{}}), l)
	if !strings.HasSuffix(env.PythonWay, "(the notebook names the kernel lessons-test-absent, not installed here)") {
		t.Errorf("the way: %q", env.PythonWay)
	}
	var out strings.Builder
	oc, err := Run(context.Background(), l, env, Options{Workspace: t.TempDir(), Plain: true}, &out)
	if err != nil || len(oc) != 1 || !oc[0].OK || out.String() != "in python3\n" {
		t.Fatalf("%v %+v %q", err, oc, out.String())
	}
	// A notebook that names none is python3's.
	if got := ForLesson(context.Background(), env, notebookNaming(t, "")).PythonWay; !strings.HasPrefix(got, "the Jupyter kernel python3") {
		t.Errorf("no kernelspec: %q", got)
	}
}

// run --cell N of a Python cell runs the Python cells above it first, in
// the same session, for their state (as Jupyter's Run All Above), and
// says how each went; their output is left out, and the commands above
// are not run.
func TestCellRunsThePythonAbove(t *testing.T) {
	interp, err := python.Find(context.Background())
	if err != nil {
		t.Skip(err)
	}
	env := Env{Runner: runner.Exec{}, StartPython: func(ctx context.Context, dir string, vars []string) (PythonSession, error) {
		return python.Start(ctx, interp, dir, vars)
	}}
	l, err := lesson.Parse("p.md", []byte("# P\n\n```python run\nx = 41\nprint('above')\n```\n\n```sh run\necho shell > ran\n```\n\n"+
		"```python run\ny = undefined\n```\n\n```python run\nprint(x + 1)\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	var out strings.Builder
	oc, err := Run(context.Background(), l, env, Options{Workspace: ws, Cell: 4}, &out)
	if err != nil || len(oc) != 1 || !oc[0].OK {
		t.Fatalf("%v %+v\n%s", err, oc, out.String())
	}
	got := out.String()
	for _, want := range []string{"(the Python cells above ran first, for their state: [1] ok, [3] failed: NameError: name 'undefined' is not defined)\n", "\n42\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "above\n") {
		t.Errorf("the output of a cell above is shown:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the shell cell above ran")
	}
}
