package exercise

import (
	"context"
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/runner"
)

// Plain builds and runs as the user, in each job's workspace (Job.Dir):
// for the student's own file (check, watch) and the course's (verify).
type Plain struct{}

var _ Runner = Plain{}

// A lone file is built where it is, so that the compiler's errors name
// it; the files of a multi-file exercise are copied into Dir/src first,
// under the names the exercise gives them.
func (Plain) build(ctx context.Context, tk *Toolkit, j *Job, slot int) (*buildPlace, error) {
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, err
	}
	p := &buildPlace{dir: j.Dir, prog: filepath.Join(j.Dir, "prog"), runner: runner.Exec{}}
	if len(j.Files) == 1 && j.Files[0].Data == nil {
		p.sources = []string{j.Files[0].Path}
		return p, nil
	}
	p.dir = filepath.Join(j.Dir, "src")
	os.RemoveAll(p.dir)
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

// writeFiles writes files into dir under their names, making folders.
func writeFiles(dir string, files []File) error {
	for _, f := range files {
		data, err := f.read()
		if err != nil {
			return err
		}
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
