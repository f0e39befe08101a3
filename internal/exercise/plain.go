package exercise

import (
	"context"
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Plain builds and runs as the user, in each job's workspace (Job.Dir):
// for the student's own file (check, watch) and the course's (verify).
type Plain struct{}

var _ Runner = Plain{}

// A lone file is built where it is, so that the compiler's errors name
// it; the files of a multi-file exercise are copied into Dir/src first,
// under the names the exercise gives them.
func (Plain) build(ctx context.Context, tk *Toolkit, j *Job, slot int) (*buildPlace, error) {
	if err := makeDir(j); err != nil {
		return nil, err
	}
	p := &buildPlace{dir: j.Dir, prog: filepath.Join(j.Dir, "prog"), runner: runner.Exec{}}
	if len(j.Files) == 1 && j.Files[0].Data == nil {
		p.sources = []string{j.Files[0].Path}
		return p, nil
	}
	p.dir = filepath.Join(j.Dir, "src")
	if err := safefs.RemoveAll(j.Dir, "src"); err != nil {
		return nil, err
	}
	if err := writeFiles(p.dir, j.Files); err != nil {
		return nil, err
	}
	p.sources = j.Spec.Sources(j.Files[0].Name)
	return p, nil
}

func (Plain) run(ctx context.Context, tk *Toolkit, j *Job, prog, device string, slot int) (*runPlace, error) {
	env := append(os.Environ(), j.Env...)
	if device != "" {
		env = append(env, "CUDA_VISIBLE_DEVICES="+device)
	}
	return &runPlace{dir: j.Dir, prog: prog, env: env, runner: runner.Exec{}, sanitizer: runner.Exec{}}, nil
}

// makeDir makes the job's folder: beneath its Root, with no link on the
// way, when it has one.
func makeDir(j *Job) error {
	if j.Root == "" {
		return os.MkdirAll(j.Dir, 0o755)
	}
	rel, err := filepath.Rel(j.Root, j.Dir)
	if err != nil {
		return err
	}
	_, err = safefs.Dir(j.Root, rel)
	return err
}

// writeFiles writes files into dir under their names, making folders,
// never through a link out of dir.
func writeFiles(dir string, files []File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		data, err := f.read()
		if err != nil {
			return err
		}
		if err := safefs.WriteFile(dir, f.Name, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
