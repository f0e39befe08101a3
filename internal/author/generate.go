package author

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/ui"
)

// SumFile is the record, at the course's root, of what lessons generate
// last wrote to each student file: a student file whose content is not
// that is one someone edited by hand.
const SumFile = "generated.sum"

// State is what generating one exercise's student file did or would do.
type State int

const (
	// UpToDate: the student file is what its solution generates.
	UpToDate State = iota
	// Written: the file was (or, on a dry run, would be) written.
	Written
	// Edited: the file differs from what lessons generate last wrote,
	// so it was edited by hand and is left alone (without --force).
	Edited
	// Unknown: the file exists, differs, and lessons generate never
	// wrote it; it is left alone (without --force).
	Unknown
	// Unmarked: the solution has no markers; the student file is kept
	// by hand.
	Unmarked
	// Patched (with Options.WrongPatches): the wrong answer or
	// alternative Why, a whole program, was (or would be) rewritten as
	// the patch Student against Solution.
	Patched
	// KeptWhole: the whole program Student could not be rewritten as a
	// patch, for the reason Why.
	KeptWhole
)

// File is one student file and what generating it did.
type File struct {
	Exercise string
	Solution string // from the course root
	Student  string // from the course root
	State    State
	// Why says, for Edited and Unknown, what was found.
	Why string
}

// Options are how Generate runs.
type Options struct {
	// DryRun writes nothing: the states say what a run would do.
	DryRun bool
	// Force overwrites hand-edited student files.
	Force bool
	// WrongPatches rewrites every wrong answer and correct alternative
	// kept as a whole program as a patch against its solution (ToPatch).
	WrongPatches bool
}

// Generate writes each exercise's student file from its solution, when
// the solution has markers and the file is not what it generates. Each
// file is written whole or not at all (a temporary file renamed over
// it); a file edited by hand since it was generated is left alone unless
// opts.Force. Errors in markers are returned with file and line, and
// nothing is written then.
func Generate(c *course.Course, opts Options) ([]File, error) {
	sums, err := readSums(c.Path(SumFile))
	if err != nil {
		return nil, err
	}
	type job struct {
		f    File
		want []byte
	}
	var jobs []job
	var errs lesson.Errors
	for _, x := range c.Exercises {
		data, err := safefs.ReadFile(c.Root, x.Solution)
		if err != nil {
			return nil, fmt.Errorf("generate %s: %w", x.ID, err)
		}
		f := File{Exercise: x.ID, Solution: x.Solution, Student: x.Student}
		if !HasMarkers(data) {
			if _, err := safefs.Stat(c.Root, x.Student); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("generate %s: the student file does not exist, and %s has no // BEGIN SOLUTION to write it from: mark the regions the student completes, or write %s by hand", x.Student, x.Solution, x.Student)
			}
			f.State = Unmarked
			jobs = append(jobs, job{f: f})
			continue
		}
		src, err := Parse(c.Path(x.Solution), data)
		if err != nil {
			errs = append(errs, lesson.AsErrors(err)...)
			continue
		}
		jobs = append(jobs, job{f: f, want: src.Student()})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	var out []File
	changed := false
	for _, j := range jobs {
		f := j.f
		if f.State == Unmarked {
			out = append(out, f)
			continue
		}
		have, err := safefs.ReadFile(c.Root, f.Student)
		missing := errors.Is(err, fs.ErrNotExist)
		if err != nil && !missing {
			return out, fmt.Errorf("generate %s: %w", f.Student, err)
		}
		want := sum(j.want)
		switch {
		case !missing && bytes.Equal(have, j.want):
			f.State = UpToDate
		case missing || sums[f.Student] == sum(have) || opts.Force:
			f.State = Written
		case sums[f.Student] == "":
			f.State, f.Why = Unknown, fmt.Sprintf("%s has no line for it, so lessons generate did not write what is there", SumFile)
		default:
			f.State, f.Why = Edited, fmt.Sprintf("its content is not what lessons generate last wrote from %s (%s)", f.Solution, SumFile)
		}
		if f.State == Written && !opts.DryRun {
			if err := writeIn(c.Root, f.Student, j.want); err != nil {
				return out, fmt.Errorf("generate %s: %w", f.Student, err)
			}
		}
		if (f.State == Written || f.State == UpToDate) && sums[f.Student] != want {
			sums[f.Student] = want
			changed = true
		}
		out = append(out, f)
	}
	if changed && !opts.DryRun {
		if err := writeSums(c.Path(SumFile), sums); err != nil {
			return out, err
		}
	}
	if opts.WrongPatches {
		patched, err := patchAnswers(c, opts.DryRun)
		return append(out, patched...), err
	}
	return out, nil
}

// Stale are the exercises whose student file is not what their solution
// generates, each with what to do, for lint and verify.
func Stale(c *course.Course) ([]string, error) {
	fs, err := Generate(c, Options{DryRun: true, Force: true})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range fs {
		if f.State == Written {
			out = append(out, fmt.Sprintf("%s is out of date with %s: run lessons generate", f.Student, f.Solution))
		}
	}
	return out, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readSums(file string) (map[string]string, error) {
	sums := map[string]string{}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return sums, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		h, path, ok := strings.Cut(l, "  ")
		if !ok || len(h) != 64 {
			return nil, fmt.Errorf("%s:%d: not a line of sha256 and path; remove the file and run lessons generate --force", file, n)
		}
		path = strings.TrimSpace(path)
		if err := safefs.Local(path); err != nil {
			return nil, fmt.Errorf("%s:%d: %s is not a file of the course: %v; remove the line", file, n, path, err)
		}
		sums[path] = h
	}
	return sums, nil
}

func writeSums(file string, sums map[string]string) error {
	var paths []string
	for p := range sums {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	b.WriteString("# What lessons generate last wrote to each student file (sha256).\n# A student file that differs was edited by hand; lessons generate leaves it alone without --force.\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "%s  %s\n", sums[p], p)
	}
	return writeIn(filepath.Dir(file), filepath.Base(file), b.Bytes())
}

// writeIn writes data to name beneath root whole or not at all, keeping
// the mode of the file it replaces. A name, or a link on its way, that
// leads out of the course is refused: a course can name a student file
// "../../.bashrc" and record its sum in generated.sum.
func writeIn(root, name string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := safefs.Stat(root, name); err == nil {
		mode = st.Mode().Perm()
	}
	return safefs.WriteFile(root, name, data, mode)
}

// WriteGenerated tells what Generate did with each file: what it wrote
// (or, with dryRun, what is out of date) and kept to out, what it
// refused to overwrite and why to errOut, then a line that counts them.
// It returns whether the run failed: a file refused, or one out of date
// in a dry run.
func WriteGenerated(out, errOut io.Writer, files []File, dryRun bool) (failed bool) {
	refused, written, current, exercises, patched := 0, 0, 0, 0, 0
	for _, f := range files {
		if f.State != Patched && f.State != KeptWhole {
			exercises++
		}
		switch f.State {
		case UpToDate:
			current++
		case Written:
			written++
			if dryRun {
				fmt.Fprintf(out, "out of date  %s (from %s)\n", f.Student, f.Solution)
			} else {
				fmt.Fprintf(out, "wrote        %s (from %s)\n", f.Student, f.Solution)
			}
		case Edited, Unknown:
			refused++
			fmt.Fprintf(errOut, "lessons: generate %s: not overwritten: %s; move the change into %s, or pass --force to overwrite it\n", f.Student, f.Why, f.Solution)
		case Unmarked:
			fmt.Fprintf(out, "kept by hand %s (%s has no // BEGIN SOLUTION)\n", f.Student, f.Solution)
		case Patched:
			patched++
			fmt.Fprintf(out, "patch        %s (was %s, against %s)\n", f.Student, path.Base(f.Why), f.Solution)
		case KeptWhole:
			fmt.Fprintf(out, "kept whole   %s: %s\n", f.Student, f.Why)
		}
	}
	fmt.Fprintf(out, "%s, %d %s, %d up to date", ui.Count(exercises, "exercise"), written, map[bool]string{true: "out of date", false: "written"}[dryRun], current)
	if patched > 0 {
		fmt.Fprintf(out, "; %s (wrong or right) %s as patches", ui.Count(patched, "answer"), map[bool]string{true: "can be kept", false: "now kept"}[dryRun])
	}
	fmt.Fprintln(out)
	return refused > 0 || (dryRun && written > 0)
}

// CheckGenerated fails when a student file is not what its solution's
// markers generate: the course would ship an exercise its author did not
// mean.
func CheckGenerated(c *course.Course) error {
	stale, err := Stale(c)
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		return fmt.Errorf("%s", strings.Join(stale, "\nlessons: "))
	}
	return nil
}
