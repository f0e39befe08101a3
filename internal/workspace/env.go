package workspace

import (
	"context"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
)

// Env is what notebook.Run needs to run cells in workspace ws on machine
// m, nvcc in cells included: it makes ws's nvcc wrapper, whose variables
// tell it to build with comp through m's cache, and finds how Python
// cells run (a kernel, or python3). Verify's lessons and the page's cells
// run with it; lessons run with it too when its lesson has Python cells.
func Env(m *machine.Machine, comp buildcache.Compiler, ws string) (notebook.Env, error) {
	env, err := nvccEnv(m, comp, ws)
	if err != nil {
		return env, err
	}
	return notebook.WithPython(context.Background(), env), nil
}

// nvccEnv is Env without Python: a lesson with no Python cell does not
// ask python3 its version, a process of its own (with a virtualenv of
// torch and CuPy, tens of ms on every lessons run).
func nvccEnv(m *machine.Machine, comp buildcache.Compiler, ws string) (notebook.Env, error) {
	if err := MakeWrapper(ws); err != nil {
		return notebook.Env{}, err
	}
	return notebook.Env{
		Runner: runner.Exec{}, Wrapper: WrapperDir(ws),
		Vars: append([]string{
			"LESSONS_REAL_NVCC=" + comp.Path, "LESSONS_NVCC_VERSION=" + comp.Version,
			"LESSONS_ARCH=" + comp.Arch, "LESSONS_CACHE=" + m.Cache.Dir,
		}, m.RunEnv()...),
	}, nil
}

// ClassEnv is a lesson workspace's notebook environment in a class (the
// class server's, a pilot's node): the nvcc wrapper in the workspace,
// building with comp, and vars (the GPU's hardware queues, the class's
// shared cache). Each student's cells keep their own cache.
func ClassEnv(comp buildcache.Compiler, vars []string) func(ws string) (notebook.Env, error) {
	return func(ws string) (notebook.Env, error) {
		if err := MakeWrapper(ws); err != nil {
			return notebook.Env{}, err
		}
		return notebook.Env{Runner: runner.Exec{}, Wrapper: WrapperDir(ws), Vars: append([]string{
			"LESSONS_REAL_NVCC=" + comp.Path, "LESSONS_NVCC_VERSION=" + comp.Version, "LESSONS_ARCH=" + comp.Arch,
		}, vars...)}, nil
	}
}
