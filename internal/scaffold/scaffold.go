// Package scaffold starts what an author writes: a new course that lints
// and builds (a lesson, an exercise with its solution's markers, its spec
// and hints), and a new exercise in a course (its solution, its spec and
// its [[exercise]] entry). The students' files are then generated from the
// solutions, as lessons generate writes them.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/safefs"
)

//go:embed course exercise
var files embed.FS

// Error is why a course or an exercise was not made, with what to do.
type Error struct {
	Op, Path, Why, Fix string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s; %s", e.Op, e.Path, e.Why, e.Fix)
}

// Course writes a new course into dir, which must not exist or be empty,
// titled title (from the folder's name when ""). It returns the files
// written, from dir. The student's file is not among them: it is
// generated from the solution (author.Generate).
func Course(dir, title string) ([]string, error) {
	if err := emptyOrNew(dir); err != nil {
		return nil, err
	}
	if title == "" {
		title = course.TitleFromFolder(dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &Error{Op: "new course", Path: dir, Why: err.Error(), Fix: "choose a folder you can write"}
	}
	var written []string
	err := fs.WalkDir(files, "course", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "course/")
		if strings.HasSuffix(rel, ".tmpl") {
			rel = strings.TrimSuffix(rel, ".tmpl")
			if data, err = fill(p, data, map[string]string{"Title": tomlString(title)}); err != nil {
				return err
			}
		}
		if err := safefs.WriteFile(dir, rel, data, 0o644); err != nil {
			return &Error{Op: "new course", Path: filepath.Join(dir, rel), Why: err.Error(), Fix: "choose a folder you can write"}
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}

// emptyOrNew refuses a folder that holds anything: a new course never
// writes over someone's files.
func emptyOrNew(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &Error{Op: "new course", Path: dir, Why: err.Error(), Fix: "name a new folder, or an empty one"}
	case len(ents) > 0:
		return &Error{Op: "new course", Path: dir, Why: fmt.Sprintf("the folder is not empty (it holds %s)", ents[0].Name()), Fix: "name a new folder, or an empty one"}
	}
	return nil
}

// idRE is what a new exercise's id may be: it names its files too.
var idRE = regexp.MustCompile(`^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$`)

// Exercise is a new exercise: where its files go.
type Exercise struct {
	ID, Lesson              string
	Student, Solution, Spec string // from the course root
	Manifest                string // course.toml's path
	Written                 []string
}

// AddExercise adds the exercise id to the course c, under the lesson
// named by lesson (day, dayNNN or slug; the course's last lesson when
// ""): its solution with markers, its spec, and its [[exercise]] entry at
// the end of course.toml. It writes over nothing; the student's file is
// then generated from the solution.
func AddExercise(c *course.Course, id, lesson string) (*Exercise, error) {
	if !idRE.MatchString(id) {
		return nil, &Error{Op: "new exercise", Path: id, Why: "not an exercise id", Fix: "use lower-case letters, digits and - or _ between them, e.g. vector-add"}
	}
	if x, _ := c.Exercise(id); x != nil {
		return nil, &Error{Op: "new exercise", Path: id, Why: "the course already has an exercise of that id (its solution is " + x.Solution + ")", Fix: "choose another id"}
	}
	if len(c.Lessons) == 0 {
		return nil, &Error{Op: "new exercise", Path: id, Why: "the course has no lesson to put it under", Fix: "add a [[lesson]] to course.toml first"}
	}
	e := c.Lessons[len(c.Lessons)-1]
	if lesson != "" {
		var err error
		if e, err = c.FindEntry(lesson); err != nil {
			return nil, &Error{Op: "new exercise", Path: id, Why: err.Error(), Fix: "pass --lesson with a day, dayNNN or slug of the course"}
		}
	}
	day := fmt.Sprintf("day%03d", e.Day)
	base := strings.ReplaceAll(id, "-", "_")
	x := &Exercise{
		ID: id, Lesson: day,
		Student:  path.Join("exercises", day, base+".cu"),
		Solution: path.Join("solutions", day, base+".cu"),
		Spec:     path.Join("exercises", day, base+".toml"),
		Manifest: c.Path(course.ManifestName),
	}
	for _, p := range []string{x.Student, x.Solution, x.Spec} {
		if _, err := safefs.Stat(c.Root, p); !errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Op: "new exercise", Path: p, Why: "the file is already there", Fix: "choose another id, or move the file away"}
		}
	}
	vars := map[string]string{"ID": id, "Lesson": day, "Student": x.Student, "Solution": x.Solution}
	entry, err := template1("exercise/entry.toml.tmpl", vars)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct{ tmpl, to string }{{"exercise/solution.cu.tmpl", x.Solution}, {"exercise/spec.toml.tmpl", x.Spec}} {
		data, err := template1(f.tmpl, vars)
		if err == nil {
			err = safefs.WriteFile(c.Root, f.to, data, 0o644)
		}
		if err != nil {
			return nil, &Error{Op: "new exercise", Path: f.to, Why: err.Error(), Fix: "check that the course's folder can be written"}
		}
		x.Written = append(x.Written, f.to)
	}
	manifest, err := os.ReadFile(x.Manifest)
	if err == nil {
		if len(manifest) > 0 && !bytes.HasSuffix(manifest, []byte("\n")) {
			manifest = append(manifest, '\n')
		}
		err = safefs.WriteFile(c.Root, course.ManifestName, append(manifest, entry...), 0o644)
	}
	if err != nil {
		return nil, &Error{Op: "new exercise", Path: x.Manifest, Why: err.Error(), Fix: "add the [[exercise]] entry by hand:\n" + string(entry)}
	}
	x.Written = append(x.Written, course.ManifestName)
	return x, nil
}

func template1(name string, vars map[string]string) ([]byte, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return fill(name, data, vars)
}

func fill(name string, data []byte, vars map[string]string) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(string(data))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, vars); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// tomlString escapes s for a TOML basic string.
// control characters, which a basic string cannot hold, become spaces.
func tomlString(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// Made is what New made: the files written (from the course's root),
// the students' files generated, and what the author does next.
type Made struct {
	Written []string
	Files   []author.File
	Next    string
}

// New makes the course dir titled title when id is "", else adds the
// exercise id under lesson to the course in courseDir (course.Open's
// folder); then it generates the students' files, as lessons generate
// does: a new exercise's student file does not exist yet.
func New(dir, title, courseDir, id, lesson string) (*Made, error) {
	m := &Made{Next: fmt.Sprintf("Next: cd %s; lessons lint; lessons show 1; lessons verify (--compile-only without a GPU)", dir)}
	root := dir
	if id == "" {
		var err error
		if m.Written, err = Course(dir, title); err != nil {
			return nil, err
		}
	} else {
		c, err := course.OpenWith(courseDir, course.Options{MissingStudents: true})
		if err != nil {
			return nil, err
		}
		x, err := AddExercise(c, id, lesson)
		if err != nil {
			return nil, err
		}
		root, m.Written = c.Root, x.Written
		m.Next = fmt.Sprintf("Next: write the exercise in %s between its markers and its checks in %s; then lessons generate, lessons verify %s", x.Solution, x.Spec, x.ID)
	}
	c, err := course.LoadWith(root, course.Options{MissingStudents: true})
	if err != nil {
		return nil, err
	}
	m.Files, err = author.Generate(c, author.Options{})
	return m, err
}
