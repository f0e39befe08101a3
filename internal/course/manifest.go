// Package course reads a course: its manifest (course.toml), the lessons it
// orders and the exercises it names, and finds a lesson by day, slug or path.
package course

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cudalessons/lessons/diag"
	"github.com/cudalessons/lessons/internal/slurm"
)

// ManifestName is the manifest's file name at a course's root.
const ManifestName = "course.toml"

// MaxManifest is the largest course.toml read: a hundred days' manifest
// is tens of KB.
const MaxManifest = 4 << 20

// Manifest is course.toml as written.
type Manifest struct {
	// Title is the course's title.
	Title string `toml:"title"`
	// Lessons are the [[lesson]] tables, in the course's order.
	Lessons []ManifestLesson `toml:"lesson"`
	// Exercises are the [[exercise]] tables.
	Exercises []ManifestExercise `toml:"exercise"`
	// Grade is the [grade] table.
	Grade ManifestGrade `toml:"grade"`
	// Class is the [class] table.
	Class ManifestClass `toml:"class"`
}

// ManifestClass is the [class] table: where the class runs the course.
type ManifestClass struct {
	// Server is the URL of the class's server with GPUs, which lessons
	// check names to a student on a machine without one.
	Server string `toml:"server"`
}

// ManifestGrade is the [grade] table: defaults of lessons grade.
type ManifestGrade struct {
	Slurm slurm.Options `toml:"slurm"` // where lessons grade --slurm sends its tasks; flags override each
}

// ManifestLesson is one [[lesson]] table.
type ManifestLesson struct {
	// File is the lesson's path from the course root; its name is
	// dayNNN-slug.md, which gives the lesson's day and slug.
	File string `toml:"file"`
	// Title, when given, replaces the title the lesson's document gives itself.
	Title string `toml:"title"`
}

// ManifestExercise is one [[exercise]] table.
type ManifestExercise struct {
	// ID names the exercise (letters, digits, ".", "-", "_").
	ID string `toml:"id"`
	// Lesson is the day, dayNNN or slug of the lesson it belongs to.
	Lesson string `toml:"lesson"`
	// Student is the file students edit, from the course root; its spec
	// is beside it, with the extension .toml.
	Student string `toml:"student"`
	// Solution is the reference completion, with its marked regions.
	Solution string `toml:"solution"`
	// Hint is a single hint (or hints, in levels).
	Hint string `toml:"hint"`
	// Hints are hints in levels, shown one more at a time by lessons
	// hint (what to think about, which API, then the shape); instead of
	// hint.
	Hints []string `toml:"hints"`
}

// ParseManifest decodes a manifest, rejecting keys it does not know. Errors
// name the file and line.
func ParseManifest(file string, data []byte) (*Manifest, error) {
	var m Manifest
	if err := DecodeTOML(file, data, &m, "the keys are title, [[lesson]] file/title, and [[exercise]] id/lesson/student/solution/hint/hints, and [grade.slurm] partition/build_partition/account/qos/time/items_per_task/builds_per_task/throttle/gres/sbatch_args, and [class] server"); err != nil {
		return nil, err
	}
	return &m, nil
}

// DecodeTOML decodes data into v, rejecting unknown keys, with every
// problem at its file and line (diag.DecodeTOML).
func DecodeTOML(file string, data []byte, v any, keys string) error {
	return diag.DecodeTOML(file, data, v, keys)
}

// LineOf finds the line of key in the index-th [[table]] of a TOML file
// (diag.LineOf).
func LineOf(data []byte, table string, index int, key string) int {
	return diag.LineOf(data, table, index, key)
}

// TitleFromFolder is a course title made from the name of the folder it
// came from: "cuda-course_2024" becomes "Cuda course 2024".
func TitleFromFolder(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	words := strings.Fields(strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(filepath.Base(abs)))
	t := strings.Join(words, " ")
	if t == "" || t == string(filepath.Separator) {
		return "Course"
	}
	r, size := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(r)) + t[size:]
}
