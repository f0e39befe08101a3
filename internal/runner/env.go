package runner

import (
	"os"
	"strings"
)

// hostVars are the variables of this process that a program it starts
// for someone else (a student's cell, a pilot job) may see: where the
// tools and their libraries are, the locale, the user's name and home,
// and a batch system's own settings. Nothing else passes: a server
// started with an LMS token, a cloud key or a password in its
// environment hands none of it on.
var hostVars = map[string]bool{
	"PATH": true, "LD_LIBRARY_PATH": true, "LIBRARY_PATH": true, "CPATH": true,
	"PYTHONPATH": true, "PYTHONHOME": true, "VIRTUAL_ENV": true, "CONDA_PREFIX": true, "JUPYTER_PATH": true,
	"HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TZ": true, "TERM": true,
	"LANG": true, "LANGUAGE": true,
	"MODULEPATH": true, "MODULESHOME": true, "LOADEDMODULES": true, "_LMFILES_": true,
}

// hostPrefixes are families of variables that pass whole: the locale's,
// CUDA's and NVIDIA's (CUDA_HOME, CUDA_CACHE_PATH), Slurm's and sbatch's
// own, and lessons' settings, but for the secrets among them.
var hostPrefixes = []string{"LC_", "CUDA_", "NVIDIA_", "SLURM_", "SBATCH_", "LESSONS_"}

// secretVar says whether a name is a secret whatever its family.
func secretVar(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "COOKIE", "AUTH"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// HostEnv is an environment built for a program this process starts for
// someone else: the variables of env (this process's when nil) that
// hostVars and hostPrefixes name, and no secret, then extra. Never the
// whole of it.
func HostEnv(env []string, extra ...string) []string {
	if env == nil {
		env = os.Environ()
	}
	var out []string
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || secretVar(name) {
			continue
		}
		keep := hostVars[name]
		for _, p := range hostPrefixes {
			keep = keep || strings.HasPrefix(name, p)
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
