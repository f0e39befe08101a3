package cells

import (
	"context"
	"fmt"
	"strings"

	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/python"
)

// pythonEnv sets how a student's Python cells run: as their CUDA cells
// do, each a run of its own through the queue in the sandbox (env's
// Runner), never a kernel kept between cells (a process that outlived
// its run would hold no slot of the queue and answer to no time limit);
// or, with no python3 for the sandbox, not at all, each cell saying why.
func (r *Room) pythonEnv(env *notebook.Env) {
	if r.cfg.Python == nil {
		why := r.cfg.NoPython
		if why == "" {
			why = "the class server has no python3 for the sandbox"
		}
		env.StartPython, env.NoPython, env.PythonWay = nil, why, "not run: "+why
		return
	}
	run, interp, max := env.Runner, r.cfg.Python, r.cfg.MaxOutput
	v := interp.Version
	if parts := strings.SplitN(v, ".", 3); len(parts) == 3 {
		v = parts[0] + "." + parts[1]
	}
	env.NoPython = ""
	env.PythonWay = fmt.Sprintf("Python %s in the class's sandbox, each cell a run of its own: the Python cells above that ran run again first, for their state; no Jupyter kernel, so IPython's magics are not available", v)
	env.StartPython = func(ctx context.Context, dir string, vars []string) (notebook.PythonSession, error) {
		return &python.Replayed{Interp: interp, Runner: run, Dir: dir, Env: vars, MaxOutput: max}, nil
	}
}
