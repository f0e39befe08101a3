// Package demo writes the demo class of lessons demo: a small course, a
// class of four students whose submissions pass, fail, do not compile and
// are missing, a roster, and a stand-in nvcc whose programs are shell
// scripts, so that an instructor tries grading, the gradebook, feedback,
// an LMS export and the class server on a machine without a GPU.
//
// With LESSONS_GPU=demo, lessons sees a demo GPU; with the stand-in nvcc
// first on the PATH, the demo course's reference solutions pass and the
// students' files get the verdicts their stand-in programs earn. Nothing
// CUDA is built or run: the demo shows the workflow, not a GPU's results.
package demo

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/internal/safefs"
)

//go:embed class
var files embed.FS

// GPU is the value of LESSONS_GPU that names the demo's GPU.
const GPU = "demo"

// Class is a demo class written to a folder.
type Class struct {
	Dir         string // the folder it was written to
	Course      string // the demo course
	Submissions string // a folder per student
	Roster      string // id,name,email
	Book        string // where its gradebook goes
	Feedback    string // where its feedback goes
	ClassDir    string // serve --class's folder
	// Env is what the demo's commands run with: the stand-in nvcc first
	// on the PATH, the demo GPU, a compile cache of its own, and no
	// sandbox user of its own.
	Env []string
}

// Error is why the demo class was not written, with what to do.
type Error struct{ Dir, Why string }

func (e *Error) Error() string {
	return fmt.Sprintf("demo %s: %s; name a new folder, or an empty one", e.Dir, e.Why)
}

// Write writes the demo class into dir, which must be new or empty.
func Write(dir string) (*Class, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Dir: dir, Why: err.Error()}
	}
	if ents, err := os.ReadDir(abs); err == nil && len(ents) > 0 {
		return nil, &Error{Dir: dir, Why: "the folder is not empty (it holds " + ents[0].Name() + ")"}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Dir: dir, Why: err.Error()}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, &Error{Dir: dir, Why: err.Error()}
	}
	err = fs.WalkDir(files, "class", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if strings.HasPrefix(p, "class/cuda/bin/") {
			mode = 0o755
		}
		return safefs.WriteFile(abs, strings.TrimPrefix(p, "class/"), data, mode)
	})
	if err != nil {
		return nil, &Error{Dir: dir, Why: err.Error()}
	}
	c := &Class{
		Dir: abs, Course: filepath.Join(abs, "course"), Submissions: filepath.Join(abs, "submissions"),
		Roster: filepath.Join(abs, "roster.csv"), Book: filepath.Join(abs, "gradebook.db"),
		Feedback: filepath.Join(abs, "feedback"), ClassDir: filepath.Join(abs, "class"),
		Env: []string{
			"PATH=" + filepath.Join(abs, "cuda", "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
			"LESSONS_GPU=" + GPU,
			"LESSONS_CACHE=" + filepath.Join(abs, "cache"),
			// The stand-ins run as the grader's own user: a demo folder
			// under a private home (/root is 0700) is out of a sandbox
			// user's reach, and the demo's programs are its own.
			"LESSONS_SANDBOX_USERS=off",
		},
	}
	var sh strings.Builder
	sh.WriteString("# The demo class's settings: . ./env.sh, then run lessons in course/.\n")
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&sh, "export %s=%s\n", k, shellQuote(v))
	}
	if err := safefs.WriteFile(abs, "env.sh", []byte(sh.String()), 0o644); err != nil {
		return nil, &Error{Dir: dir, Why: err.Error()}
	}
	return c, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Next is what to try after the demo class is graded.
func (c *Class) Next() string {
	return fmt.Sprintf(`
The demo class is in %[1]s. Go on with its settings (the stand-in nvcc, LESSONS_GPU=demo):
  . %[1]s/env.sh; cd %[1]s/course
  lessons grade export --csv - --gradebook ../gradebook.db
  lessons serve --class ../class --roster ../roster.csv    the class server; in another shell:
  lessons invite --class ../class --roster ../roster.csv --url http://127.0.0.1:3000 ana ben
`, c.Dir)
}
