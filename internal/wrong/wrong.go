// Package wrong reads an exercise's wrong answers and correct
// alternatives: the mistakes a student would make, each with the text its
// failure must show, and other ways to the solution, which must pass.
// Each is kept beside the solution, as a whole program or as a patch
// against the solution (patch.go), and stands for one program: the one
// lessons verify --wrong builds and judges in place of the student's
// file.
package wrong

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/diag"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/safefs"
)

// ExpectPrefix starts the first line of a wrong answer (of a whole
// program, or of a patch's header): the comment `// expect: TEXT` names
// a piece of the failure a student should read.
const ExpectPrefix = "// expect:"

// Dir is the folder of exercise x's wrong answers, beside its solution:
// solutions/dayNNN/wrong/<exercise-id>/; with right, that of its correct
// alternatives, which must pass: solutions/dayNNN/right/<exercise-id>/.
func Dir(c *course.Course, x *course.Exercise, right bool) string {
	return c.Path(dirRel(x, right))
}

func dirRel(x *course.Exercise, right bool) string {
	kind := "wrong"
	if right {
		kind = "right"
	}
	return path.Join(path.Dir(x.Solution), kind, x.ID)
}

// Answer is one file of an exercise's wrong answers or alternatives.
type Answer struct {
	Exercise *course.Exercise
	Right    bool
	// Name is the file's name in its folder; Path its path from the
	// course's root, with slashes.
	Name, Path string
}

// IsPatch says whether the answer is kept as a patch against its
// solution rather than as a whole program.
func (a Answer) IsPatch() bool { return strings.HasSuffix(a.Name, PatchExt) }

// Stem is the answer's name without its extension: no_drain for
// no_drain.cu and no_drain.patch alike.
func (a Answer) Stem() string { return strings.TrimSuffix(a.Name, filepath.Ext(a.Name)) }

// List is exercise x's wrong answers, then its correct alternatives,
// each folder in the order of its names; folders and hidden files are
// not answers. Two answers of one stem in a folder (x.cu beside
// x.patch) are an error: they would be judged in one place.
func List(c *course.Course, x *course.Exercise) ([]Answer, error) {
	var out []Answer
	for _, right := range []bool{false, true} {
		entries, err := os.ReadDir(Dir(c, x, right))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the wrong answers of %s: %w", x.ID, err)
		}
		stems := map[string]string{}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			a := Answer{Exercise: x, Right: right, Name: e.Name(), Path: path.Join(dirRel(x, right), e.Name())}
			if other, ok := stems[a.Stem()]; ok {
				return nil, &diag.Error{File: a.Path, Msg: fmt.Sprintf("%s and %s are one answer twice", other, a.Name),
					Fix: "keep one of the two (a patch made from the whole program replaces it)"}
			}
			stems[a.Stem()] = a.Name
			out = append(out, a)
		}
	}
	return out, nil
}

// Program is what an answer stands for.
type Program struct {
	// Expect is a wrong answer's text, "" for a correct alternative.
	Expect string
	// Source is a patch's program: the solution with the patch applied.
	// It is nil for a whole program, which is built where it is.
	Source []byte
}

// Load reads answer a: its expected text and, for a patch, the program
// it makes of the solution. Every name goes through package safefs: an
// answer or a solution reached through a link out of the course is
// refused.
func Load(c *course.Course, a Answer) (*Program, error) {
	data, err := safefs.ReadFile(c.Root, a.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", a.Path, err)
	}
	p := &Program{}
	if !a.Right {
		if p.Expect, err = ParseExpect(a.Path, data); err != nil {
			return nil, err
		}
	}
	if !a.IsPatch() {
		return p, nil
	}
	sol, err := safefs.ReadFile(c.Root, a.Exercise.Solution)
	if err != nil {
		return nil, fmt.Errorf("apply %s: read its solution: %w", a.Path, err)
	}
	p.Source, err = Apply(a.Path, data, a.Exercise.Solution, sol)
	return p, err
}

// ParseExpect reads the expected text from a wrong answer's first line.
func ParseExpect(file string, data []byte) (string, error) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	s := strings.TrimSpace(string(line))
	if !strings.HasPrefix(s, ExpectPrefix) {
		return "", &diag.Error{File: file, Line: 1, Msg: fmt.Sprintf("a wrong answer's first line is %q followed by a piece of the failure it must show, not %q", ExpectPrefix+" TEXT", s)}
	}
	want := strings.TrimSpace(strings.TrimPrefix(s, ExpectPrefix))
	if want == "" {
		return "", &diag.Error{File: file, Line: 1, Msg: fmt.Sprintf("%s names no text: write the piece of the failure message a student should read", ExpectPrefix)}
	}
	return want, nil
}
