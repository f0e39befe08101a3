package author

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
)

// Notebooks written for Colab lean on what only Colab has; an imported
// course's author learns it from lint rather than from a student's run.
var (
	// an import at a cell's top level: one indented is under a try or
	// an if that asks whether this is Colab
	colabImportRE = regexp.MustCompile(`^(?:from\s+google\.colab\b|import\s+google\.colab\b)`)
	colabPathRE   = regexp.MustCompile(`(?:^|[\s'"=(:])(/content(?:/[^\s'")]*)?)`)
)

// portability warns about the cells of a lesson that will not run where
// lessons runs them: a cell of another kernel, which lessons does not
// run (verify fails on it), Python that imports google.colab, and a path
// under /content, Colab's folder, which no other machine has.
func portability(file string, l *lesson.Lesson) lesson.Errors {
	var out lesson.Errors
	notRun, first, why := 0, 0, ""
	for i := range l.Cells {
		c := &l.Cells[i]
		if c.Kind == lesson.Code && c.From != nil && c.Note != "" {
			if notRun == 0 {
				first, why = c.Line, c.Note
			}
			notRun++
			continue
		}
		if !c.Runnable() {
			continue
		}
		for j, line := range strings.Split(c.Text, "\n") {
			at := c.Line
			if l.Dialect != lesson.Ipynb {
				at += 1 + j
			}
			if c.Kind == lesson.Python && colabImportRE.MatchString(line) {
				out = append(out, &lesson.Error{File: file, Line: at, Msg: fmt.Sprintf("cell [%d] imports google.colab, which only Colab has: it fails under lessons run and in Jupyter elsewhere", c.Number),
					Fix: "guard it (try: import google.colab ... except ImportError), or leave it out"})
				break
			}
			if c.Kind == lesson.File {
				continue
			}
			if m := colabPathRE.FindStringSubmatch(line); m != nil {
				out = append(out, &lesson.Error{File: file, Line: at, Msg: fmt.Sprintf("cell [%d] names %s, a folder only Colab has", c.Number, m[1]),
					Fix: "name the file relative to the notebook's folder (lessons runs a lesson in its workspace)"})
				break
			}
		}
	}
	if notRun > 0 {
		what, _, _ := strings.Cut(why, ":")
		out = append(out, &lesson.Error{File: file, Line: first, Msg: fmt.Sprintf("%d code cells are not run by lessons (%s): lessons run lists them as not run, and verify fails on them", notRun, what),
			Fix: "lessons runs the code cells of Python notebooks; write the others as %%writefile and ! cells, or keep them as examples to read in a markdown lesson"})
	}
	return out
}

// sameSlugs warns about lessons of one slug: lessons show SLUG cannot
// tell which is meant.
func sameSlugs(c *course.Course) lesson.Errors {
	var out lesson.Errors
	seen := map[string]*course.Entry{}
	for _, e := range c.Lessons {
		if prev, ok := seen[e.Slug]; ok {
			out = append(out, &lesson.Error{File: course.ManifestName, Line: 1, Msg: fmt.Sprintf("lessons %s and %s have one slug, %s: lessons show %s cannot tell which is meant", prev.Name(), e.Name(), e.Slug, e.Slug),
				Fix: "rename one file (lessons/dayNNN-SLUG), and its entry in course.toml"})
			continue
		}
		seen[e.Slug] = e
	}
	return out
}
