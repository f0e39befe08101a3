package author

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
)

// Commands are lessons' commands, as a lesson may tell students to run
// them (cli's test keeps this list equal to the commands it has).
var Commands = []string{"cache", "check", "completion", "doctor", "export", "generate", "grade", "help", "hint",
	"import", "invite", "lint", "list", "new", "pilot", "run", "sandbox", "serve", "show", "submit", "verify", "watch"}

var (
	// checkRefRE finds "lessons check X" anywhere in a lesson's text,
	// prose included: a command it tells students to run.
	checkRefRE = regexp.MustCompile(`\blessons\s+check\s+([A-Za-z0-9_][A-Za-z0-9_.-]*)`)
	// commandRE finds "lessons WORD [ARG]" run as a command (at the start
	// of a line, after "$ " or "!", or after ; && || | and "("), where a
	// lesson shows one: a shell cell's line, a Python cell's ! line, an
	// inline code span of prose.
	commandRE = regexp.MustCompile(`(?:^\s*(?:\$\s+|!\s*)?|[;&|(]\s*)lessons[ \t]+([a-z][a-z-]*)(?:[ \t]+([^\s;&|)` + "`" + `]+))?`)
	spanRE    = regexp.MustCompile("`(lessons [^`\n]+)`")
)

// checkRefs warns about each lesson line that tells students to run a
// command lessons does not have, lessons check (hint, watch) for an
// exercise the course does not have, or lessons run (show) for a lesson
// it does not have: a student would learn it only by trying (an imported
// course's notebooks name the exercises of the course they came from).
func checkRefs(c *course.Course, file string, l *lesson.Lesson) lesson.Errors {
	ids := map[string]bool{}
	for _, x := range c.Exercises {
		ids[x.ID] = true
	}
	var out lesson.Errors
	seen := map[string]bool{}
	warn := func(cell *lesson.Cell, i int, key, msg, fix string) {
		if seen[key] {
			return
		}
		seen[key] = true
		at := cell.Line // a notebook's cell: its first line
		switch {
		case l.Dialect == lesson.Ipynb:
		case cell.Kind == lesson.Markdown:
			at += i
		default: // the text starts below its fence or In [ ]: marker
			at += 1 + i
		}
		out = append(out, &lesson.Error{File: file, Line: at, Msg: msg, Fix: fix})
	}
	exercise := func(cell *lesson.Cell, i int, cmd, arg string) {
		id := strings.TrimRight(arg, ".-")
		if id == "" || ids[id] || strings.HasPrefix(id, "-") {
			return
		}
		fix := "add the exercise to course.toml, or change the lesson's words"
		if len(c.Exercises) == 0 {
			fix = "this course has no exercises: add it to course.toml (lessons generate writes the student file), or change the lesson's words"
		}
		warn(cell, i, "x "+id, fmt.Sprintf("the lesson says to run lessons %s %s, but the course has no exercise %s", cmd, id, id), fix)
	}
	for ci := range l.Cells {
		cell := &l.Cells[ci]
		shell := cell.Kind == lesson.Command || cell.Kind == lesson.Code && (cell.Lang == "sh" || cell.Lang == "bash" || cell.Lang == "console" || cell.Lang == "shell")
		for i, line := range strings.Split(cell.Text, "\n") {
			for _, m := range checkRefRE.FindAllStringSubmatch(line, -1) {
				exercise(cell, i, "check", m[1])
			}
			var shown []string // where the line shows a command
			switch {
			case shell, cell.Kind == lesson.Python && strings.HasPrefix(strings.TrimSpace(line), "!"):
				shown = []string{line}
			case cell.Kind == lesson.Markdown:
				for _, m := range spanRE.FindAllStringSubmatch(line, -1) {
					shown = append(shown, m[1])
				}
			}
			for _, s := range shown {
				for _, m := range commandRE.FindAllStringSubmatch(s, -1) {
					cmd, arg := m[1], m[2]
					switch {
					case !slices.Contains(Commands, cmd):
						warn(cell, i, "c "+cmd, fmt.Sprintf("the lesson says to run lessons %s, but lessons has no command %s", cmd, cmd),
							"lessons help lists its commands: "+strings.Join(Commands, ", "))
					case cmd == "hint" || cmd == "watch":
						exercise(cell, i, cmd, arg)
					case (cmd == "run" || cmd == "show") && arg != "" && !strings.HasPrefix(arg, "-") && !strings.ContainsAny(arg, "/.$<{"):
						if _, err := c.FindEntry(arg); err != nil {
							warn(cell, i, "l "+arg, fmt.Sprintf("the lesson says to run lessons %s %s, but %s", cmd, arg, err),
								"name a lesson of this course (lessons list), or change the lesson's words")
						}
					}
				}
			}
		}
	}
	return out
}
