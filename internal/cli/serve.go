package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/classroom"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/page"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/serve"
)

// ServeOptions are the inputs of lessons serve.
type ServeOptions struct {
	IO                *iostreams.IOStreams
	g                 *globals
	Addr              string
	Poll              bool
	Debounce, Timeout time.Duration
	ClassOpts         classroom.ServeOptions
}

func newServe(ios *iostreams.IOStreams, g *globals, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: ios, g: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the course's site, reloaded in the browser on every save",
		Long: `Serve the course as the site lessons export writes, rendered from the files
as they are now. Every open page reloads by itself when a lesson or the
course.toml is saved; a lesson that does not parse shows its
errors, with file and line, until it is fixed. It listens on this machine
only unless --addr says otherwise.

Each page is also the lesson's notebook: Run under every cell (the same
runner, workspace, compile cache and limits as lessons run), Run all, Stop,
Restart, file cells edited in the page (the workspace's copy, never the
lesson), and the lesson's exercises with Check; saving an exercise's file
in any editor checks it again and shows the verdict in every open page.
Every request needs the server's token, on this machine too: open the URL
printed, with its ?token= (the pages keep it in their links). No other
site may frame the pages or load their scripts.`,
		Example: "  lessons serve\n  lessons serve --addr 127.0.0.1:8080\n  lessons serve --addr :3000       # other machines too",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return serveRun(opts, cmd)
		},
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 2*time.Minute, "time limit of each cell run from a page")
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:3000", "the `HOST:PORT` to listen on")
	cmd.Flags().BoolVar(&opts.Poll, "poll", false, "poll the files instead of using file system events")
	cmd.Flags().DurationVar(&opts.Debounce, "debounce", 200*time.Millisecond, "how long a burst of saves lasts")
	addClassFlags(cmd, ios.ErrOut, &opts.ClassOpts)
	return cmd
}

func serveRun(opts *ServeOptions, cmd *cobra.Command) error {
	ios := opts.IO
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	if opts.ClassOpts.Dir != "" {
		return serveClass(opts, cmd, c)
	}
	ctx, stop := interrupted()
	defer stop()
	root := c.Root
	srv := serve.New(func() (map[string][]byte, error) {
		c, err := course.Load(root)
		if err != nil {
			return nil, err
		}
		return render.Site(c)
	})
	if err := srv.Err(); err != nil {
		fmt.Fprintf(ios.ErrOut, "lessons: %v\n(the pages show this until it is fixed)\n", err)
	}
	ln, url, err := srv.Listen(opts.Addr)
	if err != nil {
		return err
	}
	if note := page.Attach(ctx, srv, root, opts.Timeout); note != "" {
		fmt.Fprintf(ios.ErrOut, "lessons: %s\n", note)
	}
	// Watch what the site is made of before the first page is served.
	sw, err := serve.WatchSite(root, opts.Poll, opts.Debounce)
	if err != nil {
		ln.Close()
		return err
	}
	say := func(f string, a ...any) { fmt.Fprintf(ios.Out, f+"\n", a...) }
	warn := func(f string, a ...any) { fmt.Fprintf(ios.ErrOut, f+"\n", a...) }
	return srv.Serve(ctx, ln, sw, func() {
		say("Serving %s at %s (pages reload on every save; Ctrl-C stops)", c.Title, url)
	}, say, warn)
}
