package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/ui"
	"github.com/cudalessons/lessons/internal/watch"
)

// Watch is lessons watch's session over course c, its screens on t:
// each exercise checked with k and its pass saved, its files watched
// (polled when poll is set), its hints, the list, the header before each
// check and the exercise's lesson. The caller sets Keys, Debounce and Wait.
func Watch(c *course.Course, t Terminal, k Checker, poll bool) *watch.Session {
	byID := map[string]*course.Exercise{}
	for _, x := range c.Exercises {
		byID[x.ID] = x
	}
	out := t.Out
	clear := func() {
		if t.TTY {
			fmt.Fprint(out, ui.ClearScreen)
		}
	}
	return &watch.Session{
		Check: func(ctx context.Context, id string) (bool, error) {
			x := byID[id]
			passed, err := k.Check(ctx, t, c, x, c.Path(x.Student), false, true)
			var silent *failure.Silent
			if errors.As(err, &silent) {
				// Check said why already (an exercise of two GPUs on a
				// machine with one): watch goes on watching, and says
				// no "lessons: exit status 3" after it.
				err = nil
			}
			return passed, err
		},
		Next:  func(after string) (string, bool) { return Progress(c).Next(c, after) },
		Files: func(id string) []string { return exercise.WatchedFiles(c, byID[id]) },
		Watch: func(files []string) (watch.Watcher, error) { return watch.New(files, poll, 100*time.Millisecond) },
		Hint: func(id string) {
			p, err := progress.Load(c)
			if err != nil {
				fmt.Fprintln(t.ErrOut, err)
				return
			}
			if shown, more := p.RevealHint(byID[id]); len(shown) > 0 {
				p.Save(c)
				fmt.Fprint(out, ui.Fit(HintText(byID[id], shown, more, p.Waiting(byID[id])), t.Width))
			}
		},
		List: func(id string) {
			passed := Progress(c).Passed
			for _, x := range c.Exercises {
				mark := " "
				if _, ok := passed[x.ID]; ok {
					mark = "✓"
				}
				cur := ""
				if x.ID == id {
					cur = "  ← watching"
				}
				fmt.Fprintf(out, "  %s %-20s day %d  %s%s\n", mark, x.ID, x.Lesson.Day, x.Student, cur)
			}
		},
		Header: func(id string) {
			clear()
			passed := len(Progress(c).Passed)
			fmt.Fprintf(out, "%s  %s %d/%d exercises\n", c.Title, ui.Bar(passed, len(c.Exercises), 20), passed, len(c.Exercises))
			what := "save to check"
			switch {
			case k.Remote != nil:
				what = "each save is checked on the class's server (not a submission)"
			case k.Offline != nil:
				what = "no GPU here, so each save builds it and counts its TODOs; the checks need a GPU (see Next)"
			}
			fmt.Fprint(out, ui.Fit(fmt.Sprintf("Watching %s: %s. h hint · v lesson · n next · r re-run · l list · q quit\n\n", byID[id].Student, what), t.Width))
		},
		LessonFiles: func(id string) []string {
			if e := byID[id].Lesson; e != nil {
				return []string{c.Path(e.File)}
			}
			return nil
		},
		Lesson: func(id string) { showLesson(c, byID[id], t, clear) },
		Out:    out,
	}
}

// showLesson is watch's v: the lesson of x on screen while it is read.
func showLesson(c *course.Course, x *course.Exercise, t Terminal, clear func()) {
	out, e := t.Out, x.Lesson
	if e == nil {
		fmt.Fprintf(out, "%s has no lesson.\n", x.ID)
		return
	}
	clear()
	l, err := c.Parse(e)
	if err != nil {
		fmt.Fprintf(out, "%v\n(fix the lesson and save it again; the last good version is not kept on screen)\n", err)
		return
	}
	r, err := render.NewTerm(render.TermOptions{Width: min(t.Width, 120), Color: t.Color, TrueColor: t.TrueColor})
	if err == nil {
		err = r.Render(out, l)
	}
	if err != nil {
		fmt.Fprintf(out, "lessons: %v\n", err)
	}
	fmt.Fprintf(out, "\nDay %d, on screen while you read: saving %s shows it again. Save your exercise (or r) to check it.\n", e.Day, e.File)
}
