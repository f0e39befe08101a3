package exercise

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
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
// set, else python3 from the PATH as the binary it really is
// (sys.executable): a version manager's python3 is a script that execs
// the interpreter, and the statistics library's record ends at an exec.
func (tk *Toolkit) python(ctx context.Context) (string, error) {
	if tk.Python != "" {
		return tk.Python, nil
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.py != "" {
		return tk.py, nil
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", ErrNoPython
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "-c", "import sys; print(sys.executable)").Output()
	if real := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(real) {
		p = real
	} else if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	tk.py = p
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
