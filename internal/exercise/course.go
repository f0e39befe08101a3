package exercise

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/diag"
	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/safefs"
)

// LoadSpec loads an exercise's checks, from the .toml beside its file,
// and makes sure that its files are there and that something compiles.
func LoadSpec(c *course.Course, x *course.Exercise) (*checker.Spec, error) {
	// The spec, the secret spec and the files the spec names are the
	// course's: a link among them that leads out of it is refused, not
	// read (a header linked to ~/.ssh would be compiled, and quoted in
	// the compiler's errors).
	for _, f := range []string{x.Spec(), author.SecretFile(x)} {
		if err := outside(c, f); err != nil {
			return nil, err
		}
	}
	spec, err := checker.LoadSpec(c.Path(x.Spec()))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("exercise %s has no checks: write %s beside its file", x.ID, x.Spec())
	}
	if err != nil {
		return nil, err
	}
	// The secret spec beside the solution (hidden runs and checks) is
	// there for grade and verify; check and watch judge spec.Public().
	if err := author.AddSecret(c, x, spec); err != nil {
		return nil, err
	}
	dir := filepath.Dir(c.Path(x.Student))
	var errs diag.Errors
	for _, f := range spec.Files {
		if err := outside(c, path.Join(path.Dir(x.Student), filepath.ToSlash(f))); err != nil {
			errs = append(errs, &diag.Error{File: spec.File, Line: spec.FilesLine, Msg: fmt.Sprintf("%s names %s: %v", x.ID, f, err),
				Fix: "put the file itself beside " + filepath.Base(x.Student)})
			continue
		}
		if !isFile(filepath.Join(dir, f)) {
			errs = append(errs, &diag.Error{File: spec.File, Line: spec.FilesLine,
				Msg: fmt.Sprintf("%s names %s, which is not in %s", x.ID, f, filepath.Dir(x.Student)),
				Fix: "put the file beside " + filepath.Base(x.Student) + " or take it out of files"})
		}
	}
	// A Python exercise's script is run as it is, not compiled.
	if len(spec.Sources(filepath.Base(x.Student))) == 0 && !strings.EqualFold(filepath.Ext(x.Student), ".py") {
		errs = append(errs, &diag.Error{File: spec.File, Line: max(spec.FilesLine, 1),
			Msg: fmt.Sprintf("%s has nothing to compile: %s is not a .cu, .cpp or .c file (nor a .py script) and files names none", x.ID, filepath.Base(x.Student)),
			Fix: "name the .cu file that holds main() in files"})
	}
	return spec, errs.Err()
}

// outside says why rel, a file of course c, leads out of it; nil when it
// does not, or is not there.
func outside(c *course.Course, rel string) error {
	var be *safefs.Error
	if _, err := safefs.Stat(c.Root, rel); errors.As(err, &be) {
		return be
	}
	return nil
}

// NewJob is the job of checking main (the student's file, or a file in
// its place) against exercise x of course c, in the exercise's workspace
// (.lessons/check/ID): its spec, and its other files from main's folder,
// else the exercise's. A spec that cannot be read is a *failure.Tool: the
// exercise cannot be checked.
func NewJob(c *course.Course, x *course.Exercise, main string) (*Job, error) {
	spec, err := LoadSpec(c, x)
	if err != nil {
		return nil, &failure.Tool{Err: err}
	}
	return &Job{
		ID: x.ID, Spec: spec, Dir: filepath.Join(c.Root, ".lessons", "check", x.ID), Root: c.Root,
		Files: Files(x, spec, main, filepath.Dir(main), filepath.Dir(c.Path(x.Student))),
	}, nil
}

// Files are the files of a build of exercise x: main (the student's file,
// a solution, or a file named by check --file) under the name of the
// exercise's file, then each of the spec's files, read from the first of
// dirs that holds it; a fixed file always from the last of dirs (the
// exercise's folder).
func Files(x *course.Exercise, spec *checker.Spec, main string, dirs ...string) []File {
	files := []File{{Name: filepath.Base(x.Student), Path: main}}
	for _, f := range spec.Files {
		name := filepath.Clean(f)
		p := filepath.Join(dirs[len(dirs)-1], name)
		if spec.IsFixed(f) {
			files = append(files, File{Name: name, Path: p})
			continue
		}
		for _, d := range dirs {
			if isFile(filepath.Join(d, name)) {
				p = filepath.Join(d, name)
				break
			}
		}
		files = append(files, File{Name: name, Path: p})
	}
	return files
}
