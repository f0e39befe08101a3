package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/classroom/classcmd"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/serve"
)

// ServeOptions are the inputs of lessons serve.
type ServeOptions struct {
	IO                *IOStreams
	g                 *globals
	Addr              string
	Poll              bool
	Debounce, Timeout time.Duration
	Class             *classcmd.Flags
}

func newServe(ios *IOStreams, g *globals, runF func(*ServeOptions) error) *cobra.Command {
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
			return serveRun(opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 2*time.Minute, "time limit of each cell run from a page")
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:3000", "the `HOST:PORT` to listen on")
	cmd.Flags().BoolVar(&opts.Poll, "poll", false, "poll the files instead of using file system events")
	cmd.Flags().DurationVar(&opts.Debounce, "debounce", 200*time.Millisecond, "how long a burst of saves lasts")
	opts.Class = classcmd.AddFlags(cmd)
	return cmd
}

func serveRun(opts *ServeOptions) error {
	ios, g, addr, poll, debounce, timeout := opts.IO, opts.g, opts.Addr, opts.Poll, opts.Debounce, opts.Timeout
	c, err := g.course()
	if err != nil {
		return err
	}
	if opts.Class.On() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return opts.Class.Serve(ctx, ios.Out, c, addr, timeout)
	}
	root := c.Root
	build := func() (map[string][]byte, error) {
		c, err := course.Load(root)
		if err != nil {
			return nil, err
		}
		return render.Site(c)
	}
	srv := serve.New(build)
	if err := srv.Err(); err != nil {
		fmt.Fprintf(ios.ErrOut, "lessons: %v\n(the pages show this until it is fixed)\n", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w; choose another with --addr HOST:PORT", addr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	url, err := guardServer(srv, addr, ln)
	if err != nil {
		return err
	}
	if note := attachNotebook(ctx, srv, root, timeout); note != "" {
		fmt.Fprintf(ios.ErrOut, "lessons: %s\n", note)
	}
	// Watch what the site is made of before the first page is served.
	sw, err := serve.WatchSite(root, poll, debounce)
	if err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln); cancel() }()
	go func() {
		err := srv.WatchExercises(ctx, poll, debounce, func(f string, a ...any) { fmt.Fprintf(ios.Out, f+"\n", a...) })
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "lessons: exercises are not re-checked on save: %v\n", err)
		}
	}()
	fmt.Fprintf(ios.Out, "Serving %s at %s (pages reload on every save; Ctrl-C stops)\n", c.Title, url)
	werr := sw.Run(ctx, srv, func(f string, a ...any) { fmt.Fprintf(ios.Out, f+"\n", a...) }, func(f string, a ...any) { fmt.Fprintf(ios.ErrOut, f+"\n", a...) })
	hs.Close()
	err = <-served
	if werr != nil {
		return werr
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
