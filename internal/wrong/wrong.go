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

// UnseenPrefix starts the first line of a mistake no check can see, kept
// in solutions/dayNNN/unseen/<exercise-id>/: `// unseen: WHY` says why
// neither the record, a sanitizer nor any harness tells it from a
// solution. It is read and applied as a wrong answer is (so it never goes
// stale), listed by verify --wrong, and never judged.
const UnseenPrefix = "// unseen:"

// Dir is the folder of exercise x's wrong answers, beside its solution:
// solutions/dayNNN/wrong/<exercise-id>/; with right, that of its correct
// alternatives, which must pass: solutions/dayNNN/right/<exercise-id>/.
func Dir(c *course.Course, x *course.Exercise, right bool) string {
	return c.Path(dirRel(x, kindOf(right, false)))
}

// kindOf is the folder of an answer: wrong, right or unseen.
func kindOf(right, unseen bool) string {
	switch {
	case unseen:
		return "unseen"
	case right:
		return "right"
	}
	return "wrong"
}

func dirRel(x *course.Exercise, kind string) string {
	return path.Join(path.Dir(x.Solution), kind, x.ID)
}

// Answer is one file of an exercise's wrong answers or alternatives.
type Answer struct {
	Exercise *course.Exercise
	Right    bool
	// Unseen: a mistake no check can see (solutions/dayNNN/unseen/),
	// listed and never judged.
	Unseen bool
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
// then its unseen mistakes, each folder in the order of its names;
// folders and hidden files are not answers. Two answers of one stem in a
// folder (x.cu beside x.patch) are an error: they would be judged in one
// place.
func List(c *course.Course, x *course.Exercise) ([]Answer, error) {
	var out []Answer
	for _, kind := range [][2]bool{{false, false}, {true, false}, {false, true}} {
		right, unseen := kind[0], kind[1]
		entries, err := os.ReadDir(c.Path(dirRel(x, kindOf(right, unseen))))
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
			a := Answer{Exercise: x, Right: right, Unseen: unseen, Name: e.Name(), Path: path.Join(dirRel(x, kindOf(right, unseen)), e.Name())}
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
	// Expect is a wrong answer's text, "" for a correct alternative and
	// an unseen mistake.
	Expect string
	// Unseen is why no check sees an unseen mistake.
	Unseen string
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
	switch {
	case a.Unseen:
		if p.Unseen, err = ParseUnseen(a.Path, data); err != nil {
			return nil, err
		}
	case !a.Right:
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
	return firstLine(file, data, ExpectPrefix, "a wrong answer's first line is %q followed by a piece of the failure it must show, not %q",
		"write the piece of the failure message a student should read")
}

// ParseUnseen reads why no check sees an unseen mistake from its first
// line.
func ParseUnseen(file string, data []byte) (string, error) {
	return firstLine(file, data, UnseenPrefix, "an unseen mistake's first line is %q followed by why no check can see it, not %q",
		"say why neither the record, a sanitizer nor a harness tells it from the solution")
}

// firstLine is the text after prefix on data's first line; an error at
// file's line 1 when the line does not start with prefix (bad, with the
// prefix and the line) or holds nothing after it (then what to write).
func firstLine(file string, data []byte, prefix, bad, write string) (string, error) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	s := strings.TrimSpace(string(line))
	if !strings.HasPrefix(s, prefix) {
		return "", &diag.Error{File: file, Line: 1, Msg: fmt.Sprintf(bad, prefix+" TEXT", s)}
	}
	want := strings.TrimSpace(strings.TrimPrefix(s, prefix))
	if want == "" {
		return "", &diag.Error{File: file, Line: 1, Msg: fmt.Sprintf("%s names no text: %s", prefix, write)}
	}
	return want, nil
}
