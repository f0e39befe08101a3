package course

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/slurm"
)

// Course is a loaded, validated course.
type Course struct {
	// Root is the folder that holds course.toml.
	Root      string
	Title     string
	Lessons   []*Entry
	Exercises []*Exercise
	// Slurm are the defaults of lessons grade --slurm.
	Slurm slurm.Options
	// ClassServer is the URL of the class's server with GPUs ([class]
	// server), "" when the course names none.
	ClassServer string
	// Notebook is where an exported notebook gets lessons and the course
	// ([notebook]), nil when the course says nothing.
	Notebook *Notebook
}

// Entry is a lesson of the course, before its document is parsed.
type Entry struct {
	Day   int
	Slug  string
	File  string // from the course root
	Title string // from the manifest; empty when the document's is used
	// Exercises are the exercises of this lesson, in manifest order.
	Exercises []*Exercise
}

// Name is the lesson's file name without extension, e.g. day087-stream-ordered.
func (e *Entry) Name() string { return strings.TrimSuffix(filepath.Base(e.File), filepath.Ext(e.File)) }

// Exercise is an exercise of the course.
type Exercise struct {
	ID       string
	Lesson   *Entry
	Student  string // from the course root
	Solution string // from the course root
	// Hints are the exercise's hints in the order a student sees them.
	Hints []string
}

// Hint is the first of the exercise's hints (what to think about), or "".
func (x *Exercise) Hint() string {
	if len(x.Hints) == 0 {
		return ""
	}
	return x.Hints[0]
}

// Spec is the path of the exercise's checks: its student file with the
// extension .toml.
func (x *Exercise) Spec() string {
	return strings.TrimSuffix(x.Student, filepath.Ext(x.Student)) + ".toml"
}

var fileRE = regexp.MustCompile(`^day(\d{1,4})-([a-z0-9]+(?:-[a-z0-9]+)*)\.(md|markdown|txt|ipynb)$`)

// Find looks for course.toml in dir and its parents.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ManifestName)); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no %s in %s or any folder above it: run lessons inside a course, or pass --course DIR", ManifestName, abs)
		}
	}
}

// Open loads the course a command works on: the one in dir (--course)
// when it is not "", else in $LESSONS_COURSE, else the one whose
// course.toml is in the current folder or above it.
func Open(dir string) (*Course, error) { return OpenWith(dir, Options{}) }

// Options are what Load lets pass.
type Options struct {
	// MissingStudents lets a student file be missing: lessons generate
	// writes it from its solution.
	MissingStudents bool
}

// OpenWith is Open with o. A dir that names the course.toml itself
// stands for the folder that holds it.
func OpenWith(dir string, o Options) (*Course, error) {
	if dir == "" {
		dir = os.Getenv("LESSONS_COURSE")
	}
	if dir == "" {
		found, err := Find(".")
		if err != nil {
			return nil, err
		}
		dir = found
	}
	if filepath.Base(dir) == ManifestName {
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			dir = filepath.Dir(dir)
		}
	}
	return LoadWith(dir, o)
}

// Load reads and validates the course at root. Every problem found is
// reported, each with its file and line.
func Load(root string) (*Course, error) { return LoadWith(root, Options{}) }

// LoadWith is Load with o.
func LoadWith(root string, o Options) (*Course, error) {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	mpath := filepath.Join(root, ManifestName)
	data, err := safefs.ReadRegular(mpath, MaxManifest)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no %s in %s: pass the folder that holds the course's %s", ManifestName, root, ManifestName)
		}
		return nil, err
	}
	m, err := ParseManifest(mpath, data)
	if err != nil {
		return nil, err
	}
	c := &Course{Root: root, Title: m.Title, Slurm: m.Grade.Slurm, ClassServer: m.Class.Server}
	var errs lesson.Errors
	bad := func(table string, i int, key, fix, format string, args ...any) {
		errs = append(errs, &lesson.Error{File: mpath, Line: LineOf(data, table, i, key), Msg: fmt.Sprintf(format, args...), Fix: fix})
	}
	nb, nbBad := checkNotebook(m.Notebook)
	c.Notebook = nb
	errs = append(errs, notebookErrors(mpath, data, nbBad)...)
	if c.Title == "" {
		errs = append(errs, &lesson.Error{File: mpath, Line: 1, Msg: "the course has no title", Fix: `add a line: title = "..."`})
	}
	days := map[int]int{}
	for i, ml := range m.Lessons {
		name := filepath.Base(ml.File)
		match := fileRE.FindStringSubmatch(name)
		switch {
		case ml.File == "":
			bad("lesson", i, "", `add file = "lessons/dayNNN-slug.md"`, "lesson %d names no file", i+1)
			continue
		case match == nil:
			bad("lesson", i, "file", "rename it dayNNN-slug.md (or .ipynb), e.g. day087-stream-ordered.md", "lesson file %s is not named dayNNN-slug.md or dayNNN-slug.ipynb", ml.File)
			continue
		}
		e := &Entry{File: filepath.ToSlash(ml.File), Title: ml.Title, Slug: match[2]}
		e.Day, _ = strconv.Atoi(match[1])
		why, isFile := locate(root, ml.File)
		if why != "" {
			bad("lesson", i, "file", "name a file inside the course's folder, from "+ManifestName, "lesson file %s %s", ml.File, why)
			continue
		}
		if !isFile {
			bad("lesson", i, "file", "create the file, or fix the path (it is relative to "+ManifestName+")", "lesson file %s does not exist", ml.File)
		}
		if j, dup := days[e.Day]; dup {
			bad("lesson", i, "file", "give each lesson its own day", "day %d is already lesson %s", e.Day, c.Lessons[j].File)
		}
		days[e.Day] = len(c.Lessons)
		c.Lessons = append(c.Lessons, e)
	}
	ids := map[string]int{}
	for i, me := range m.Exercises {
		if me.ID == "" {
			bad("exercise", i, "", `add id = "..."`, "exercise %d has no id", i+1)
			continue
		}
		if j, dup := ids[me.ID]; dup {
			bad("exercise", i, "id", "give each exercise its own id", "exercise id %q is used twice (first at line %d)", me.ID, LineOf(data, "exercise", j, "id"))
			continue
		}
		ids[me.ID] = i
		if !idRE.MatchString(me.ID) {
			// The id names the exercise's folder (.lessons/check/ID) and
			// its line in progress.json and the gradebook.
			bad("exercise", i, "id", "use letters, digits, - and _ (e.g. id = \"block-pool\")", "exercise id %q is not a plain name: it is used as a folder's name", me.ID)
			continue
		}
		x := &Exercise{ID: me.ID, Student: filepath.ToSlash(me.Student), Solution: filepath.ToSlash(me.Solution), Hints: me.Hints}
		if me.Hint != "" {
			if len(me.Hints) > 0 {
				bad("exercise", i, "hints", "keep hints (a list, shown one at a time) and remove hint", "exercise %s has both hint and hints", me.ID)
			}
			x.Hints = []string{me.Hint}
		}
		for k, h := range x.Hints {
			if strings.TrimSpace(h) == "" {
				bad("exercise", i, "hints", "remove the empty hint or write it", "exercise %s: hint %d is empty", me.ID, k+1)
			}
		}
		if e, err := c.FindEntry(me.Lesson); err != nil {
			bad("exercise", i, "lesson", "name a lesson of this manifest by day, dayNNN or slug", "exercise %s: %v", me.ID, err)
		} else {
			x.Lesson = e
			e.Exercises = append(e.Exercises, x)
		}
		for _, f := range []struct{ key, path string }{{"student", me.Student}, {"solution", me.Solution}} {
			if f.path == "" {
				bad("exercise", i, "", fmt.Sprintf("add %s = \"...\"", f.key), "exercise %s names no %s file", me.ID, f.key)
				continue
			}
			why, isFile := locate(root, f.path)
			switch {
			case why != "":
				bad("exercise", i, f.key, "name a file inside the course's folder, from "+ManifestName, "exercise %s: %s file %s %s", me.ID, f.key, f.path, why)
			case !isFile && f.key == "student" && o.MissingStudents:
			case !isFile:
				bad("exercise", i, f.key, "create the file, or fix the path (it is relative to "+ManifestName+")", "exercise %s: %s file %s does not exist", me.ID, f.key, f.path)
			}
		}
		c.Exercises = append(c.Exercises, x)
	}
	return c, errs.Err()
}

// idRE is what an exercise id may be: a plain name, never a path.
var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)

// locate says why rel, a path the manifest names, does not stay inside
// the course at root ("" when it does), and whether it is a file there,
// links followed only while they stay in it: a course is someone else's
// repository, and lessons writes student files and reads solutions by
// these names.
func locate(root, rel string) (why string, isFile bool) {
	if err := safefs.Local(rel); err != nil {
		return "is not inside the course: " + err.Error(), false
	}
	st, err := safefs.Stat(root, rel)
	var be *safefs.Error
	if errors.As(err, &be) {
		return "is not inside the course: " + be.Why, false
	}
	return "", err == nil && !st.IsDir()
}

// Path is the absolute path of a file of the course.
func (c *Course) Path(rel string) string { return filepath.Join(c.Root, filepath.FromSlash(rel)) }

// Parse reads and parses a lesson of the course.
func (c *Course) Parse(e *Entry) (*lesson.Lesson, error) {
	l, err := lesson.ParseFile(c.Path(e.File))
	if l != nil {
		l.Path = e.File
		for _, w := range l.Warnings {
			w.File = e.File
		}
		if e.Title != "" {
			l.Title = e.Title
		}
	}
	for _, le := range lesson.AsErrors(err) {
		le.File = e.File
	}
	return l, err
}

var dayRE = regexp.MustCompile(`^(?i:day)?0*(\d{1,4})$`)

// FindEntry finds a lesson by day (87), dayNNN (day087), slug
// (stream-ordered), the file's name (day087-stream-ordered), or a unique
// part of a slug.
func (c *Course) FindEntry(q string) (*Entry, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, fmt.Errorf("no lesson named: give a day, dayNNN or slug")
	}
	if m := dayRE.FindStringSubmatch(q); m != nil {
		d, _ := strconv.Atoi(m[1])
		for _, e := range c.Lessons {
			if e.Day == d {
				return e, nil
			}
		}
		return nil, fmt.Errorf("no lesson for day %d (%s)", d, c.days())
	}
	lq := strings.ToLower(strings.TrimSuffix(q, filepath.Ext(q)))
	var exact, partial []*Entry
	for _, e := range c.Lessons {
		if e.Name() == lq {
			return e, nil
		}
		if e.Slug == lq {
			exact = append(exact, e)
		}
		if strings.Contains(e.Slug, lq) {
			partial = append(partial, e)
		}
	}
	if len(exact) == 1 {
		return exact[0], nil
	}
	if len(exact) > 1 {
		// two days of one slug: the first is no likelier than the other
		partial = exact
	}
	switch len(partial) {
	case 1:
		return partial[0], nil
	case 0:
		return nil, fmt.Errorf("no lesson matches %q (%s)", q, c.days())
	}
	var names []string
	for _, e := range partial {
		names = append(names, e.Name())
	}
	return nil, fmt.Errorf("%q matches %d lessons: %s; say which, by its day (%d) or its whole name", q, len(partial), strings.Join(names, ", "), partial[0].Day)
}

func (c *Course) days() string {
	if len(c.Lessons) == 0 {
		return "the course has no lessons"
	}
	var parts []string
	for _, e := range c.Lessons {
		parts = append(parts, fmt.Sprintf("%d %s", e.Day, e.Slug))
	}
	return "lessons are: " + strings.Join(parts, ", ")
}

// Exercise finds an exercise by id, or by the path of its student file
// (from the current folder, or from the course's root), as a student
// names the file they edit.
func (c *Course) Exercise(id string) (*Exercise, error) {
	if len(c.Exercises) == 0 {
		return nil, fmt.Errorf("%s has no exercises: course.toml names none", c.Title)
	}
	for _, x := range c.Exercises {
		if x.ID == id {
			return x, nil
		}
	}
	if x := c.byStudentFile(id); x != nil {
		return x, nil
	}
	var ids, near []string
	for _, x := range c.Exercises {
		ids = append(ids, x.ID)
		if d := distance(strings.ToLower(id), strings.ToLower(x.ID)); d <= max(1, len(x.ID)/3) {
			near = append(near, x.ID)
		}
	}
	if len(near) > 0 {
		return nil, fmt.Errorf("no exercise %q: did you mean %s? (exercises are: %s)", id, strings.Join(near, " or "), strings.Join(ids, ", "))
	}
	return nil, fmt.Errorf("no exercise %q (exercises are: %s)", id, strings.Join(ids, ", "))
}

// byStudentFile is the exercise whose student file p names, from the
// current folder or from the course's root; nil when none does.
func (c *Course) byStudentFile(p string) *Exercise {
	if !strings.ContainsAny(p, `/\`) && filepath.Ext(p) == "" {
		return nil
	}
	var cands []string
	if abs, err := filepath.Abs(p); err == nil {
		if rel, err := filepath.Rel(c.Root, abs); err == nil {
			cands = append(cands, filepath.ToSlash(rel))
		}
	}
	cands = append(cands, filepath.ToSlash(filepath.Clean(p)))
	for _, x := range c.Exercises {
		for _, r := range cands {
			if r == path.Clean(x.Student) {
				return x
			}
		}
	}
	return nil
}

// distance is the edit distance of a and b (insertions, deletions and
// substitutions of bytes), for "did you mean".
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Neighbours returns the lessons before and after e, or nil at the ends.
func (c *Course) Neighbours(e *Entry) (prev, next *Entry) {
	for i, x := range c.Lessons {
		if x == e {
			if i > 0 {
				prev = c.Lessons[i-1]
			}
			if i+1 < len(c.Lessons) {
				next = c.Lessons[i+1]
			}
		}
	}
	return prev, next
}

// Only is the course narrowed to the named exercises (by id or student
// file, as Exercise finds them) and the lessons that hold them, each
// with only those of its exercises: what lessons verify EXERCISE proves.
// An unknown name is an error that lists the exercises; no name is the
// whole course.
func (c *Course) Only(names ...string) (*Course, error) {
	if len(names) == 0 {
		return c, nil
	}
	want := map[*Exercise]bool{}
	for _, n := range names {
		x, err := c.Exercise(n)
		if err != nil {
			return nil, err
		}
		want[x] = true
	}
	out := *c
	out.Lessons, out.Exercises = nil, nil
	for _, x := range c.Exercises {
		if want[x] {
			out.Exercises = append(out.Exercises, x)
		}
	}
	for _, e := range c.Lessons {
		var xs []*Exercise
		for _, x := range e.Exercises {
			if want[x] {
				xs = append(xs, x)
			}
		}
		if len(xs) > 0 {
			ne := *e
			ne.Exercises = xs
			out.Lessons = append(out.Lessons, &ne)
		}
	}
	return &out, nil
}
