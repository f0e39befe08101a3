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
	// Notebook is the [notebook] table.
	Notebook ManifestNotebook `toml:"notebook"`
}

// ManifestNotebook is the [notebook] table: where the first cell of a
// notebook of lessons export --ipynb gets lessons and the course, so
// that its check cells run the real lessons check on the notebook's
// machine (Colab's GPU). Without it, the notebooks check only what
// output alone decides.
type ManifestNotebook struct {
	// Binary is the URL of a lessons binary for Linux on x86-64 (a
	// release's asset, https://...), which the first cell downloads.
	// Colab has no Go: this is the way to choose there.
	Binary string `toml:"binary"`
	// GoInstall is a module path at a version
	// (github.com/cudalessons/lessons/cmd/lessons@v1.4.0) that the first
	// cell builds with go install, after installing Go where there is
	// none; instead of binary.
	GoInstall string `toml:"go_install"`
	// Repository is the URL of the course's git repository, which the
	// first cell clones (https://github.com/me/course).
	Repository string `toml:"repository"`
	// Ref is the branch or tag of the repository to clone; its default
	// branch when not given.
	Ref string `toml:"ref"`
	// Dir is the course's folder inside the repository, when its
	// course.toml is not at the repository's root.
	Dir string `toml:"dir"`
	// Root is the folder of the notebook's machine that lessons and the
	// course go in (default /content/lessons, under Colab's working
	// folder; /kaggle/working/lessons on Kaggle).
	Root string `toml:"root"`
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
	if err := DecodeTOML(file, data, &m, "the keys are title, [[lesson]] file/title, and [[exercise]] id/lesson/student/solution/hint/hints, and [grade.slurm] partition/build_partition/account/qos/time/items_per_task/builds_per_task/throttle/gres/sbatch_args, and [class] server, and [notebook] binary/go_install/repository/ref/dir/root"); err != nil {
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
