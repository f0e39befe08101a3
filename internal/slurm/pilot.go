package slurm

import (
	"fmt"
	"strings"
)

// Pilot is one of the class server's long-lived worker jobs: a GPU
// node's (all the GPUs it asks for) or a build node's. It connects back
// to the server and takes runs until its time ends; the server submits
// it again. It is an array of one task, so that Tasks reads its state
// as a grade's tasks.
type Pilot struct {
	Name   string // gpu0, build1: the job's name and its log's
	GPUs   int    // GPUs it asks for (gres gpu:N); 0 for a build node
	CPUs   int    // cores it asks for
	Dir    string // logs go in Dir/logs
	Exe    string // the lessons binary, as the nodes see it
	URL    string // the class server, as the nodes reach it
	Secret string // the job's own secret
	Env    []string
}

// SecretFile is where, in its scratch folder, a pilot's worker finds its
// secret: read once and removed. Not its command line (ps shows that to
// every user) nor its environment (/proc keeps the first one for the
// process's life, and the runs' sandbox would inherit it).
const SecretFile = "secret"

// PilotScript is a pilot's batch script. The secret is in it: write it
// where only its owner reads it (Slurm keeps a job's script for the
// job's owner and its administrators).
func PilotScript(p Pilot, o Options) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("#!/bin/bash")
	line("#SBATCH --job-name=lessons-class-%s", p.Name)
	line("#SBATCH --array=0-0")
	line("#SBATCH --output=%s/logs/pilot-%s-%%A.log", p.Dir, p.Name)
	line("#SBATCH --nodes=1")
	line("#SBATCH --ntasks=1")
	line("#SBATCH --cpus-per-task=%d", max(p.CPUs, 1))
	part := o.BuildPartition
	if p.GPUs > 0 {
		part = o.RunPartition
		line("#SBATCH --gres=gpu:%d", p.GPUs)
	}
	if part != "" {
		line("#SBATCH --partition=%s", part)
	}
	if o.Account != "" {
		line("#SBATCH --account=%s", o.Account)
	}
	if o.QOS != "" {
		line("#SBATCH --qos=%s", o.QOS)
	}
	line("#SBATCH --time=%s", o.Time)
	for _, e := range o.Extra {
		line("#SBATCH %s", e)
	}
	line("")
	line("# lessons serve --class: a pilot. It connects back to the class server, takes runs of the class's queue")
	line("# for this node's GPUs (CUDA_VISIBLE_DEVICES as Slurm sets it), or builds, until its time ends.")
	line("set -euo pipefail")
	// Node-local scratch: no shared file system is assumed.
	line(`dir="${SLURM_TMPDIR:-${TMPDIR:-/tmp}}/lessons-pilot-${SLURM_JOB_ID}"`)
	// Traversable, not listable: the cells' users reach their workspaces
	// in it (the worker closes all else; the secret's file is 0600).
	line(`mkdir -p "$dir" && chmod 711 "$dir" && cd "$dir"`)
	line(`trap 'rm -rf "$dir"' EXIT`)
	line(`(umask 077 && printf '%%s' %s >"$dir/%s")`, quote(p.Secret), SecretFile)
	for _, e := range p.Env {
		k, v, _ := strings.Cut(e, "=")
		line("export %s=%s", k, quote(v))
	}
	role := "build"
	if p.GPUs > 0 {
		role = "gpu"
	}
	// Not exec: the trap removes the scratch when the worker ends.
	line(`%s pilot --url %s --role %s --dir "$dir" --secret-file "$dir/%s"`, quote(p.Exe), quote(p.URL), role, SecretFile)
	return b.String()
}
