package notebook

import (
	"bytes"
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

// pyVarsNotebook has a Python cell set what its ! and %%cuda cells use,
// as real notebooks do (nvcc4jupyter's OpenCV notebook builds with
// %%cuda --compiler-args "$COMPILER_ARGS").
const pyVarsNotebook = `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "import os\nname = 'vec'\nARGS = '-DN=7'\nos.environ['GREETING'] = 'hi from python'\nos.makedirs('sub', exist_ok=True)"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "!nvcc $ARGS -o {name} {name}.cu\n!echo $GREETING\n!mkdir -p {a,b} && ls -d a b"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda -c \"$ARGS\"\nint main() {}\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%cd sub"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "!pwd"}]}`

// TestBangCellsTakePythonValues: a ! cell and an nvcc4jupyter magic line
// after Python cells get the notebook's {expr} and $name, the variables
// its Python put in os.environ, and the folder %cd went to, as in
// Jupyter, in the Jupyter kernel and through the driver alike; bash's
// own {a,b} stays bash's.
func TestBangCellsTakePythonValues(t *testing.T) {
	l, err := lesson.ParseIpynb("vars.ipynb", []byte(pyVarsNotebook))
	if err != nil {
		t.Fatal(err)
	}
	ways := map[string]func(ctx context.Context, dir string, vars []string) (PythonSession, error){}
	if interp, err := python.Find(context.Background()); err == nil {
		ways["driver"] = func(ctx context.Context, dir string, vars []string) (PythonSession, error) {
			return python.Start(ctx, interp, dir, vars)
		}
	}
	if spec, err := jupyter.FindSpec("python3"); err == nil {
		ways["kernel"] = func(ctx context.Context, dir string, vars []string) (PythonSession, error) {
			return jupyter.Start(ctx, spec, dir, vars)
		}
	}
	if len(ways) == 0 {
		t.Skip("no Python here")
	}
	for way, start := range ways {
		t.Run(way, func(t *testing.T) {
			bin, log := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(argvNVCC), 0o755); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			env := Env{Runner: runner.Exec{}, Wrapper: bin, Vars: []string{"LOG=" + log}, StartPython: start}
			var out bytes.Buffer
			outcomes, err := Run(context.Background(), l, env, Options{Workspace: ws, KeepGoing: true}, &out)
			if err != nil {
				t.Fatal(err)
			}
			if n := Count(outcomes); n.OK != 5 {
				t.Fatalf("%+v:\n%s", n, out.String())
			}
			argv, _ := os.ReadFile(filepath.Join(log, "argv"))
			if !strings.HasPrefix(string(argv), "nvcc -DN=7 -o vec vec.cu\nnvcc -DN=7 -I.nvcc4jupyter/cell3 ") {
				t.Errorf("builds:\n%s", argv)
			}
			for _, want := range []string{"(with the notebook's Python values: nvcc -DN=7 -o vec vec.cu)\n", "hi from python\n", "a\nb\n", filepath.Join(ws, "sub") + "\n✓"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the run lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
