package notebook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/runner"
)

// argvNVCC is an nvcc that notes its arguments and writes an empty
// program.
const argvNVCC = `#!/bin/sh
echo "nvcc $*" >> "$LOG/argv"
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; esac; shift; done
printf '#!/bin/sh\necho ran\n' > "$out"; chmod +x "$out"
`

// TestNVCC4JupyterNotebook runs the shape of nvcc4jupyter's own course
// notebook (01-intro-to-cuda-cpp.ipynb): its pip and %load_ext cells are
// skipped, saying why (there is nothing to install: lessons runs the
// cells, and a pip without a network would stop the run there), a
// header saved to the group "shared" is on every later build's include
// path, and a source saved there is built into every program, as the
// extension does.
func TestNVCC4JupyterNotebook(t *testing.T) {
	src := `{"nbformat": 4, "nbformat_minor": 4, "metadata": {"kernelspec": {"name": "python3", "language": "python"}}, "cells": [
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "!pip install nvcc4jupyter"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%load_ext nvcc4jupyter"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda_group_save --group shared --name \"utils.h\"\n#define CHECK(x) x\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda_group_save -g shared -n helper.cu\nint helper() { return 1; }\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda\n#include \"utils.h\"\nint main() {}\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda_group_save -g vec -n main.cu\nint main() {}\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda_group_run -g vec"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda_group_run -g shared"}]}`
	l, err := lesson.ParseIpynb("intro.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	bin, log := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(argvNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Runner: runner.Exec{}, Wrapper: bin, Vars: []string{"LOG=" + log}, NoPython: "no Python here"}
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, env, Options{Workspace: t.TempDir()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if n := Count(outcomes); n.OK != 6 || n.Skipped != 2 || n.Failed+n.NotRun != 0 {
		t.Fatalf("%+v:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "(skipped: lessons runs nvcc4jupyter's %%cuda cells itself: nothing to install or load)") {
		t.Errorf("the setup cells are not said to be skipped:\n%s", out.String())
	}
	argv, _ := os.ReadFile(filepath.Join(log, "argv"))
	want := "nvcc -I.nvcc4jupyter/group/shared -I.nvcc4jupyter/cell5 .nvcc4jupyter/cell5/single.cu .nvcc4jupyter/group/shared/helper.cu -o .nvcc4jupyter/cell5/cuda_exec.out\n" +
		"nvcc -I.nvcc4jupyter/group/shared -I.nvcc4jupyter/group/vec .nvcc4jupyter/group/vec/main.cu .nvcc4jupyter/group/shared/helper.cu -o .nvcc4jupyter/group/vec/cuda_exec.out\n" +
		"nvcc -I.nvcc4jupyter/group/shared .nvcc4jupyter/group/shared/helper.cu -o .nvcc4jupyter/group/shared/cuda_exec.out\n"
	if string(argv) != want {
		t.Errorf("builds:\n%s\nwant:\n%s", argv, want)
	}
}

// TestNVCCPluginV2Notebook runs the shape of a notebook of nvcc4jupyter's
// version 2 (nvcc_plugin's v2, on Colab from 2019 to 2023), which import
// refused whole for its --compile: %%cuda --name keeps the cell as a file
// of the folder src (where its course's !nvcc ./src/x.cu finds it),
// built and run alone where it says --compile (with
// any value, "false" too, as argparse's bool has it), and %%cuda_run
// builds src's sources together.
func TestNVCCPluginV2Notebook(t *testing.T) {
	src := `{"nbformat": 4, "nbformat_minor": 4, "metadata": {"kernelspec": {"name": "python3", "language": "python"}}, "cells": [
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%load_ext nvcc_plugin"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda --name scale.h\n__global__ void scale(float *x);\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda -n main.cu --compile false\n#include \"scale.h\"\nint main() {}\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda --name=other.cu\nint other() { return 0; }\n"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "!nvcc ./src/main.cu -o main"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda_run\n# any text"},
{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%cuda --name blocks.cuda\nint main() {}\n"}]}`
	l, err := lesson.ParseIpynb("v2.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	bin, log, ws := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(argvNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Runner: runner.Exec{}, Wrapper: bin, Vars: []string{"LOG=" + log}, NoPython: "no Python here"}
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, env, Options{Workspace: ws}, &out)
	if err != nil {
		t.Fatal(err)
	}
	// the name that is not .cu or .h fails its cell alone, as the
	// extension did (rahultoppur/CUDA's Module_2 has one)
	if n := Count(outcomes); n.OK != 5 || n.Skipped != 1 || n.Failed != 1 || n.NotRun != 0 {
		t.Fatalf("%+v:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "only names that end with .cu or .h") {
		t.Errorf("the refused name is not said:\n%s", out.String())
	}
	argv, _ := os.ReadFile(filepath.Join(log, "argv"))
	want := "nvcc -Isrc src/main.cu -o src/cuda_exec.out\n" +
		"nvcc ./src/main.cu -o main\n" +
		"nvcc -Isrc src/main.cu src/other.cu -o src/cuda_exec.out\n"
	if string(argv) != want {
		t.Errorf("builds:\n%s\nwant:\n%s", argv, want)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "src/scale.h")); err != nil || !strings.Contains(string(b), "scale") {
		t.Errorf("the header is not in src: %v", err)
	}
}

// TestOtherKernelsCellsAreNotRun: the code cells of a Julia notebook are
// listed and counted as not run, never left out of the run in silence;
// its %%writefile cell runs.
func TestOtherKernelsCellsAreNotRun(t *testing.T) {
	l, err := lesson.ParseFile("../lesson/testdata/ipynb/julia-kernel.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	for _, compile := range []bool{false, true} {
		var out bytes.Buffer
		outcomes, err := Run(context.Background(), l, Env{Runner: runner.Exec{}}, Options{Workspace: t.TempDir(), CompileOnly: compile}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if got := Summary(outcomes); got != "1 ok, 0 failed, 0 skipped, 2 not run (a julia cell)" {
			t.Errorf("compile only %v: %s:\n%s", compile, got, out.String())
		}
		if !strings.Contains(out.String(), "[-] a julia cell at line 22\n– not run: a julia cell: lessons runs Python notebooks' cells\n") {
			t.Errorf("compile only %v: the Julia cell is not named:\n%s", compile, out.String())
		}
	}
}

// A markdown lesson whose code blocks are all examples to read (another
// course's README) says so, rather than a bare "0 cells".
func TestNothingToRunSaysWhy(t *testing.T) {
	l, err := lesson.Parse("README.md", []byte("# HIP\n\n```cpp\nhipMalloc(&p, n);\n```\n\n```\n$ make\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, Env{Runner: runner.Exec{}}, Options{Workspace: t.TempDir()}, &out)
	if err != nil || len(outcomes) != 0 {
		t.Fatal(outcomes, err)
	}
	if want := "README.md has no cells to run: its 2 code blocks are examples to read\n(a fence runs when it says so: ```sh run, ```cuda file=x.cu run, ```python run)\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("%q", out.String())
	}
}
