package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Exported is one notebook export --ipynb wrote, and what it changed of
// the lesson's own notebook, in words (none: it is the lesson's file,
// byte for byte).
type Exported struct {
	Path    string
	Changes []string
}

// Notebooks writes every lesson of c as a notebook in dir that runs top
// to bottom in Jupyter and Colab, each lesson's exercises after it, and
// returns the files written (lessons export --ipynb). A lesson that is
// an nbformat 4 notebook is written as it is, byte for byte (its
// outputs, ids and every tool's metadata kept), its exercises' cells
// added at its end; any other is written from the model, with a first
// cell that shows nvcc and the GPU.
func Notebooks(c *course.Course, dir string) ([]Exported, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var wrote []Exported
	errs, err := parseAll(c, func(_ int, e *course.Entry, l *lesson.Lesson) error {
		nb, kept := lesson.NewAppendix(l)
		install := ""
		if c.Notebook != nil && len(e.Exercises) > 0 {
			install = InstallCell(c.Notebook)
		}
		var changes []string
		if !kept {
			nb = lesson.NewNotebook(l, lesson.IpynbOptions{Setup: true, Install: install})
			changes = rewritten(l)
		} else if install != "" {
			// The lesson's own cells are kept as they are: the
			// install goes first of the cells added.
			nb.Code(install, map[string]any{"generated": "install"})
			changes = append(changes, "added a cell that installs lessons and the course before its exercises")
		}
		for _, x := range e.Exercises {
			before := nb.Len()
			if err := exerciseCells(c, x, nb); err != nil {
				return fmt.Errorf("export %s: exercise %s: %w", e.File, x.ID, err)
			}
			if kept {
				changes = append(changes, fmt.Sprintf("added %d cells at its end for exercise %s", nb.Len()-before, x.ID))
			}
		}
		var b []byte
		var err error
		if kept {
			b, err = nb.AppendTo(l.Source)
		} else {
			b, err = nb.Bytes()
		}
		if err != nil {
			return fmt.Errorf("export %s: %w", e.File, err)
		}
		name := filepath.Join(dir, e.Name()+".ipynb")
		if err := refuseLesson(c, name); err != nil {
			return err
		}
		if err := safefs.WriteFile(dir, filepath.Base(name), b, 0o644); err != nil {
			return err
		}
		wrote = append(wrote, Exported{Path: name, Changes: changes})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return wrote, errs.Err()
}

// Said is what export --ipynb says of the notebooks it wrote to dir:
// what it changed of each, and how many it wrote.
func Said(wrote []Exported, dir string) string {
	var b strings.Builder
	for _, w := range wrote {
		for _, ch := range w.Changes {
			fmt.Fprintf(&b, "%s: %s\n", w.Path, ch)
		}
	}
	fmt.Fprintf(&b, "wrote %d notebooks to %s (open them in Jupyter, or upload one to Colab)\n", len(wrote), dir)
	return b.String()
}

// rewritten says what a notebook written from the model changes of a
// lesson that was a notebook (nbformat 3, or one holding an earlier
// export's cells); nothing for a markdown lesson, which it converts.
func rewritten(l *lesson.Lesson) []string {
	if l.Dialect != lesson.Ipynb {
		return nil
	}
	ch := []string{"written anew as nbformat 4.5 (it was nbformat 3, or held an earlier export's cells, which are left out)",
		"a first cell added that shows nvcc and the GPU"}
	outs := 0
	for _, c := range l.Cells {
		outs += len(c.Outputs)
	}
	if outs > 0 {
		ch = append(ch, fmt.Sprintf("%d recorded outputs left out", outs))
	}
	return ch
}

// exerciseCells adds an exercise: what to do, its files as %%writefile
// cells, a cell that builds and runs it, and a cell that checks its
// output where the spec's checks are all about output and exit status;
// checks of statistics or sanitizers need lessons, and a line says so.
func exerciseCells(c *course.Course, x *course.Exercise, nb *lesson.NotebookWriter) error {
	spec, err := checker.LoadSpec(c.Path(x.Spec()))
	if err != nil {
		return err
	}
	// A notebook is handed to students: hidden checks stay out of it.
	spec = spec.Public()
	student := path.Base(x.Student)
	intro := fmt.Sprintf("## Exercise: %s\n\nComplete the TODOs of `%s` in the cell below, then run it and the cells after it.", x.ID, student)
	if x.Hint() != "" {
		intro += "\n\nHint: " + x.Hint()
	}
	gen := map[string]any{"generated": "exercise"}
	nb.Markdown(intro, gen)
	files := append([]string{student}, spec.Files...)
	// Each is written on a %%writefile or ! line, where IPython runs what
	// braces hold as Python: a course is someone else's.
	for _, v := range append(append(append([]string{}, files...), spec.Flags...), spec.Args...) {
		if strings.ContainsAny(v, "{}") {
			return fmt.Errorf("%q holds a brace, which a notebook's %%%%writefile or ! line runs as Python: rename the file, or write the spec's flags and args without { and }", v)
		}
	}
	var texts [][]byte
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(c.Path(x.Student)), filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		texts = append(texts, data)
	}
	if c.Notebook != nil {
		checkedCells(c.Notebook, x, files, texts, func(code bool, src string) {
			if code {
				nb.Code(src, gen)
			} else {
				nb.Markdown(src, gen)
			}
		})
		return nil
	}
	var sources []string
	for i, f := range files {
		nb.Code("%%writefile "+f+"\n"+strings.TrimSuffix(string(texts[i]), "\n"), gen)
		switch strings.ToLower(path.Ext(f)) {
		case ".cu", ".cpp", ".cc", ".c":
			sources = append(sources, f)
		}
	}
	args := strings.Join(spec.Args, " ")
	// A Python exercise is run, not built: no build step.
	prog, build := "python3 "+student, ""
	if !strings.EqualFold(path.Ext(student), ".py") {
		bin := strings.ReplaceAll(x.ID, "-", "_")
		prog = "./" + bin
		build = strings.Join(strings.Fields(fmt.Sprintf("nvcc -arch=native -o %s %s %s", bin, strings.Join(sources, " "), strings.Join(spec.Flags, " "))), " ")
	}
	if check := checkCell(spec, prog, args); check != "" {
		if build != "" {
			nb.Code("!"+build, gen)
		}
		nb.Code(check, gen)
		return nil
	}
	run := prog
	if build != "" {
		run = build + " && " + prog
	}
	nb.Code("!"+strings.TrimSpace(run+" "+args), gen)
	nb.Markdown(fmt.Sprintf("The checks of `%s` look at what the program allocates and frees, which takes the course's tools: in a checkout of the course, run `lessons check %s`.", x.ID, x.ID), gen)
	return nil
}

// checkCell is Python that runs the program (prog: ./bin, or python3
// FILE.py) and applies the spec's
// checks, when each is one Python can apply (output and exit status);
// otherwise "".
func checkCell(spec *checker.Spec, prog, args string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	if !spec.OutputOnly() {
		return ""
	}
	var b strings.Builder
	b.WriteString("# The exercise's checks (from its spec), on the program's output.\nimport re, subprocess\n")
	fmt.Fprintf(&b, "run = subprocess.run(%s, shell=True, capture_output=True, text=True)\nout = run.stdout + run.stderr\nprint(out)\nfailed = []\n", q(strings.TrimSpace(prog+" "+args)))
	for _, ch := range spec.Checks {
		name := q(ch.Name)
		switch {
		case ch.Contains != "":
			fmt.Fprintf(&b, "if %s not in out: failed.append(%s)\n", q(ch.Contains), name)
		case ch.NotContains != "":
			fmt.Fprintf(&b, "if %s in out: failed.append(%s)\n", q(ch.NotContains), name)
		case ch.Regex != "":
			fmt.Fprintf(&b, "if not re.search(%s, out, re.M): failed.append(%s)\n", q(ch.Regex), name)
		case ch.Exit != nil:
			fmt.Fprintf(&b, "if run.returncode != %d: failed.append(%s)\n", *ch.Exit, name)
		default:
			return ""
		}
	}
	fmt.Fprintf(&b, "print(\"failed: \" + \", \".join(failed) if failed else \"all %d checks pass\")", len(spec.Checks))
	return b.String()
}

// refuseLesson refuses to write name over one of the course's own lesson
// files (export --ipynb lessons, in a course of notebooks), which would
// replace what the author wrote with its export.
func refuseLesson(c *course.Course, name string) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return err
	}
	for _, e := range c.Lessons {
		if p, err := filepath.Abs(c.Path(e.File)); err == nil && p == abs {
			return fmt.Errorf("export --ipynb: %s is the course's lesson %s; export to another folder", name, e.File)
		}
	}
	return nil
}
