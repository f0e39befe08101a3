package exercise

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// standInPython is a python3 that runs the script's "# sh: " lines as a
// shell script, after saying how it was started: enough to see what the
// pipeline hands the interpreter without Python's packages or a GPU.
const standInPython = `#!/bin/sh
echo "interpreter: $# args, script $(basename "$1"), args ${2:-none} ${3:-}"
echo "preload: ${LD_PRELOAD:+set}"
script="$1"; shift
sed -n 's|^# sh: ||p' "$script" > "${TMPDIR:-/tmp}/standin.$$.sh"
cd "$(dirname "$script")" 2>/dev/null || true
sh "${TMPDIR:-/tmp}/standin.$$.sh" "$@"; rc=$?
rm -f "${TMPDIR:-/tmp}/standin.$$.sh"
exit $rc
`

func withPython(t *testing.T, tk *Toolkit, dir string) {
	t.Helper()
	py := filepath.Join(dir, "python3")
	if err := os.WriteFile(py, []byte(standInPython), 0o755); err != nil {
		t.Fatal(err)
	}
	tk.Python = py
}

// A .py exercise is not built (nvcc is never asked) and runs as the
// interpreter given the script and the spec's arguments, with the
// statistics library preloaded, judged by the same checks.
func TestPythonExerciseRunsTheScript(t *testing.T) {
	tk := toolkit(t)
	withPython(t, tk, t.TempDir())
	t.Setenv("FAKE_NVCC_FAIL", "1") // a build of the script would fail
	s := spec(t, "args = [\"7\"]\n[[check]]\nexit = 0\n[[check]]\ncontains = \"script pool.py, args 7\"\n[[check]]\ncontains = \"preload: set\"\n[[check]]\ncontains = \"7 rounds\"\n")
	j := job(t, s, "pool.py", "import cupy\n# sh: echo \"$1 rounds\"\n")
	b, err := Build(context.Background(), tk, Plain{}, j, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed != nil || b.Prog != j.Files[0].Path {
		t.Fatalf("a script is its own program, unbuilt: %+v", b)
	}
	os.Unsetenv("FAKE_NVCC_FAIL")
	// The library itself is built with nvcc (a fake one here).
	v, err := Run(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("results %+v, output %q", v.Results, v.Output)
	}
}

// A failing script fails its checks as a failing program does.
func TestPythonExerciseFails(t *testing.T) {
	tk := toolkit(t)
	withPython(t, tk, t.TempDir())
	s := spec(t, "[[check]]\nexit = 0\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "pool.py", "# sh: echo Traceback >&2; exit 1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() || v.Results[0].Got != "exit status 1" || !strings.Contains(v.Output, "Traceback") {
		t.Errorf("results %+v, output %q", v.Results, v.Output)
	}
}

// The spec's other files lie beside the script, for its imports.
func TestPythonExerciseFilesBeside(t *testing.T) {
	tk := toolkit(t)
	withPython(t, tk, t.TempDir())
	s := spec(t, "files = [\"helper.py\"]\n[[check]]\ncontains = \"helper here\"\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "pool.py", "# sh: grep -q given helper.py && echo helper here\n", "helper.py", "# given\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("results %+v, output %q", v.Results, v.Output)
	}
}

// Without python3 a Python exercise's run is an error that says so, not a
// failed check.
func TestPythonExerciseWithoutPython(t *testing.T) {
	tk := toolkit(t)
	t.Setenv("PATH", t.TempDir())
	_, err := Check(context.Background(), tk, Plain{}, job(t, spec(t, "[[check]]\nexit = 0\n"), "pool.py", "print(1)\n"), nil)
	if !errors.Is(err, ErrNoPython) {
		t.Errorf("err %v, want ErrNoPython", err)
	}
}

// In the grading sandbox the script runs in the run's own folder with
// the exercise's other files beside it, the library preloaded.
func TestPythonExerciseInSandbox(t *testing.T) {
	tk, s, base := sandboxToolkit(t, fakeNVCC)
	withPython(t, tk, filepath.Join(base, "cuda", "bin"))
	sp := spec(t, "files = [\"helper.py\"]\n[[check]]\nexit = 0\n[[check]]\ncontains = \"helper here\"\n[[check]]\ncontains = \"preload: set\"\n")
	j := job(t, sp, "pool.py", "# sh: grep -q given helper.py && echo helper here\n", "helper.py", "# given\n")
	j.Hash = "abc"
	v, err := Check(context.Background(), tk, s, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("results %+v, output %q", v.Results, v.Output)
	}
}

// A Python exercise's interpreter is where the grader found it, most
// often a virtual environment or conda's folder outside the system's
// (/usr): the sandbox lets the run read it, its packages beside it.
// Before, the run could not start python3 there, and a class's every
// run of a Python exercise failed as the student's.
func TestPythonExerciseInSandboxFromAVenv(t *testing.T) {
	tk, s, base := sandboxToolkit(t, fakeNVCC)
	venv := filepath.Join(base, "venv", "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	withPython(t, tk, venv)
	if err := os.WriteFile(filepath.Join(base, "venv", "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A python3 in a folder that is no Python installation (a home's
	// bin/) does not open its folder to the run.
	if got := pythonRoots(filepath.Join(base, "cuda", "bin", "python3")); len(got) != 0 {
		t.Errorf("roots of a python3 outside an installation: %q", got)
	}
	sp := spec(t, "[[check]]\nexit = 0\n[[check]]\ncontains = \"ran\"\n")
	j := job(t, sp, "pool.py", "# sh: echo ran\n")
	j.Hash = "abd"
	v, err := Check(context.Background(), tk, s, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("results %+v, output %q", v.Results, v.Output)
	}
}
