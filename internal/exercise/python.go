package exercise

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
)

// A Python exercise's main file is a .py script: nothing is built, and
// each run is python3 running it with the statistics library preloaded
// into the interpreter, so that the CUDA calls of the libraries it loads
// (CuPy, PyTorch) are counted and judged as a built program's are.

// isPython reports whether j's main file is a Python script.
func isPython(j *Job) bool {
	return len(j.Files) > 0 && strings.EqualFold(filepath.Ext(j.Files[0].Name), ".py")
}

// ErrNoPython is the error of a run of a Python exercise on a machine
// with no python3 on the PATH.
var ErrNoPython = errors.New("no python3 on the PATH: a Python exercise runs as python3 FILE.py (install Python 3 with the exercise's packages, e.g. CuPy or PyTorch)")

// python is the interpreter a Python exercise runs with: tk.Python when
// set, else python3 from the PATH, its real path (a shim of a version
// manager is a script, and the interpreter is what the grader inspects).
func (tk *Toolkit) python() (string, error) {
	if tk.Python != "" {
		return tk.Python, nil
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", ErrNoPython
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// pythonProg is where a build place holds the main script of j: its own
// path for a lone file built where it is (Plain), else its name in the
// place's folder.
func pythonProg(p *buildPlace, j *Job) string {
	if len(p.sources) == 1 && filepath.IsAbs(p.sources[0]) {
		return p.sources[0]
	}
	return filepath.Join(p.dir, j.Files[0].Name)
}
