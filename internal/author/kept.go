package author

import (
	"fmt"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
)

// unkept are lint's warnings about text of a lesson the model does not
// keep, so that nothing is left out in silence: front matter, which no
// page, terminal or run shows.
func unkept(file string, l *lesson.Lesson) lesson.Errors {
	fm := l.FrontMatter
	if fm == nil {
		return nil
	}
	var keys []string
	for _, line := range strings.Split(fm.Text, "\n") {
		if k, _, ok := strings.Cut(line, ":"); ok && k != "" && !strings.ContainsAny(k[:1], " \t#-") {
			keys = append(keys, k)
		}
	}
	return lesson.Errors{{File: file, Line: fm.Line,
		Msg: fmt.Sprintf("its front matter (%d lines: %s) is not shown by show, run, the site or serve", strings.Count(fm.Text, "\n"), strings.Join(keys, ", ")),
		Fix: "leave it if it is for another tool; if it is prose, put a blank line or text before the first --- (a rule) or write the rule as ***"}}
}
