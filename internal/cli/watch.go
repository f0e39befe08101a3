package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/ui"
	"github.com/cudalessons/lessons/internal/watch"
)

// WatchOptions are the inputs of lessons watch.
type WatchOptions struct {
	IO *IOStreams
	g  *globals
	// Exercise is the one to start with; "" for the first not passed.
	Exercise   string
	Poll, Wait bool
	Debounce   time.Duration
}

func newWatch(ios *IOStreams, g *globals, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: ios, g: g}
	cmd := &cobra.Command{
		Use:   "watch [EXERCISE]",
		Short: "Re-check the exercise on every save",
		Long: `Watch an exercise's file and check it on every save, from any editor (in
place, through a temporary file and a rename, or delete and create). A burst
of saves gives one verdict; a check still running when you save again is
stopped and started over. When the exercise passes, watch moves to the next
one (--wait: on a key), and ends when every exercise is passed.

Keys: h hint, v the exercise's lesson (re-rendered when its markdown is
saved), n next exercise, r re-run, l list, q quit (and Ctrl-C). When
stdin is not a terminal, type the key and Enter.`,
		Example: "  lessons watch\n  lessons watch async-pipeline --wait\n  lessons watch --poll          # on file systems that send no events",
		Args:    atMostOneExercise("watch"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Exercise = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return watchRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Poll, "poll", false, "poll the files instead of using file system events")
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "after a pass, wait for n before the next exercise")
	cmd.Flags().DurationVar(&opts.Debounce, "debounce", 200*time.Millisecond, "how long a burst of saves lasts (a check starts 30 ms after the first save; saves within this of each other check once more at the end)")
	return cmd
}

func watchRun(opts *WatchOptions) error {
	ios, start, poll := opts.IO, opts.Exercise, opts.Poll
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	if len(c.Exercises) == 0 {
		return fmt.Errorf("%s has no exercises to watch", c.Title)
	}
	byID := map[string]*course.Exercise{}
	for _, x := range c.Exercises {
		byID[x.ID] = x
	}
	if _, err := loadProgress(c); err != nil {
		return err
	}
	// Read again at each use: a pass changes it. A file spoilt since
	// counts as empty here, and a pass will not write over it.
	progress := func() *Progress {
		if p, err := loadProgress(c); err == nil {
			return p
		}
		return &Progress{Passed: map[string]time.Time{}}
	}
	next := func(after string) (string, bool) { return nextUnpassed(c, progress(), after) }
	if start == "" {
		id, ok := next("")
		if !ok {
			fmt.Fprintf(ios.Out, "Every exercise of %s is passed. Watch one again with lessons watch ID.\n", c.Title)
			return nil
		}
		start = id
	} else if _, err := c.Exercise(start); err != nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	m, tk, err := checkMachine(ctx, "watch")
	if err != nil {
		return err
	}
	keys, restore := readKeys(ios)
	defer restore()
	s := &watch.Session{
		Check: func(ctx context.Context, id string) (bool, error) {
			x := byID[id]
			return checkOne(ctx, ios, c, m, tk, x, c.Path(x.Student), false, true)
		},
		Next:  next,
		Files: func(id string) []string { return exercise.WatchedFiles(c, byID[id]) },
		Watch: func(files []string) (watch.Watcher, error) { return watch.New(files, poll, 100*time.Millisecond) },
		Hint: func(id string) {
			p, err := loadProgress(c)
			if err != nil {
				fmt.Fprintln(ios.ErrOut, err)
				return
			}
			if shown, more := p.RevealHint(byID[id]); len(shown) > 0 {
				p.Save(c)
				fmt.Fprint(ios.Out, hintText(byID[id], shown, more))
			}
		},
		List: func(id string) {
			passed := progress().Passed
			for _, x := range c.Exercises {
				mark := " "
				if _, ok := passed[x.ID]; ok {
					mark = "✓"
				}
				cur := ""
				if x.ID == id {
					cur = "  ← watching"
				}
				fmt.Fprintf(ios.Out, "  %s %-20s day %d  %s%s\n", mark, x.ID, x.Lesson.Day, x.Student, cur)
			}
		},
		Header: func(id string) {
			if ios.IsTTY() {
				fmt.Fprint(ios.Out, ui.ClearScreen)
			}
			passed := len(progress().Passed)
			fmt.Fprintf(ios.Out, "%s  %s %d/%d exercises\n", c.Title, ui.Bar(passed, len(c.Exercises), 20), passed, len(c.Exercises))
			fmt.Fprintf(ios.Out, "Watching %s: save to check. h hint · v lesson · n next · r re-run · l list · q quit\n\n", byID[id].Student)
		},
		LessonFiles: func(id string) []string {
			if e := byID[id].Lesson; e != nil {
				return []string{c.Path(e.File)}
			}
			return nil
		},
		Lesson: func(id string) {
			e := byID[id].Lesson
			if e == nil {
				fmt.Fprintf(ios.Out, "%s has no lesson.\n", id)
				return
			}
			if ios.IsTTY() {
				fmt.Fprint(ios.Out, ui.ClearScreen)
			}
			l, err := c.Parse(e)
			if err != nil {
				fmt.Fprintf(ios.Out, "%v\n(fix the lesson and save it again; the last good version is not kept on screen)\n", err)
				return
			}
			t, err := render.NewTerm(render.TermOptions{Width: min(ios.Width(), 120), Color: ios.Color(), TrueColor: ios.TrueColor()})
			if err == nil {
				err = t.Render(ios.Out, l)
			}
			if err != nil {
				fmt.Fprintf(ios.Out, "lessons: %v\n", err)
			}
			fmt.Fprintf(ios.Out, "\nDay %d, on screen while you read: saving %s shows it again. Save your exercise (or r) to check it.\n", e.Day, e.File)
		},
		Keys:     keys,
		Out:      ios.Out,
		Debounce: opts.Debounce,
		Wait:     opts.Wait,
	}
	err = s.Run(ctx, start)
	if ctx.Err() != nil {
		return nil // Ctrl-C: a normal way to leave
	}
	return err
}

// readKeys delivers key presses: single keys from a terminal (in cbreak
// mode: no echo, no line buffering, Ctrl-C still a signal), otherwise the
// first letter of each line. The channel closes at the end of input.
func readKeys(ios *IOStreams) (<-chan byte, func()) {
	keys := make(chan byte)
	restore := func() {}
	f, isFile := ios.In.(*os.File)
	if isFile {
		if old, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			raw := *old
			raw.Lflag &^= unix.ICANON | unix.ECHO
			raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
			if unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, &raw) == nil {
				restore = func() { _ = unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, old) }
				go func() {
					defer close(keys)
					b := make([]byte, 1)
					for {
						if n, err := f.Read(b); err != nil || n == 0 {
							return
						}
						keys <- b[0]
					}
				}()
				return keys, restore
			}
		}
	}
	go func() {
		defer close(keys)
		sc := bufio.NewScanner(ios.In)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				keys <- line[0]
			}
		}
	}()
	return keys, restore
}
