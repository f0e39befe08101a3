package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/classroom"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/study"
	"github.com/cudalessons/lessons/internal/ui"
)

// WatchOptions are the inputs of lessons watch.
type WatchOptions struct {
	IO                 *iostreams.IOStreams
	g                  *globals
	Exercise           string // the one to start with; "" for the first not passed
	Poll, Wait, Remote bool
	Debounce           time.Duration
}

func newWatch(ios *iostreams.IOStreams, g *globals, runF func(*WatchOptions) error) *cobra.Command {
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
	cmd.Flags().BoolVar(&opts.Remote, "remote", false, "check each save on the class's server, as check --remote does (no GPU here needed; not a submission)")
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "after a pass, wait for n before the next exercise")
	cmd.Flags().DurationVar(&opts.Debounce, "debounce", 200*time.Millisecond, "how long a burst of saves lasts (a check starts 30 ms after the first save; saves within this of each other check once more at the end)")
	return cmd
}

func watchRun(opts *WatchOptions) error {
	ios := opts.IO
	c, _, x, err := opts.g.exercise(ios, opts.Exercise, "Every exercise of %s is passed. Watch one again with lessons watch ID.\n")
	if x == nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	k, err := study.NewChecker(ctx, terminal(ios), "watch", c, x, c.Path(x.Student))
	if k.Remote = classroom.RemoteIf(opts.Remote); err != nil && k.Remote == nil {
		return err
	}
	keys, restore := ui.ReadKeys(ios.In)
	defer restore()
	s := study.Watch(c, terminal(ios), k, opts.Poll)
	s.Keys, s.Debounce, s.Wait = keys, opts.Debounce, opts.Wait
	err = s.Run(ctx, x.ID)
	if ctx.Err() != nil {
		return nil // Ctrl-C: a normal way to leave
	}
	return err
}
