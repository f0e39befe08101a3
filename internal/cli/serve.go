package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/serve"
	"github.com/cudalessons/lessons/internal/watch"
)

// ServeOptions are the inputs of lessons serve.
type ServeOptions struct {
	IO                *IOStreams
	g                 *globals
	Addr              string
	Poll              bool
	Debounce, Timeout time.Duration
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
Whatever runs or changes something needs the token in the page; on an
address other machines can reach, the pages need it too: open the URL
printed, with its ?token=.`,
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
	return cmd
}

func serveRun(opts *ServeOptions) error {
	ios, g, addr, poll, debounce, timeout := opts.IO, opts.g, opts.Addr, opts.Poll, opts.Debounce, opts.Timeout
	c, err := g.course()
	if err != nil {
		return err
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
	// Watch what the site is made of, before the first page is served, so
	// that no save after a page was read is missed. A course.toml saved
	// can name other files: the watch starts again on the new list before
	// the rebuild, so that no save between the two is missed.
	manifest := filepath.Join(root, "course.toml")
	w, batches, err := watchSite(root, poll, debounce)
	if err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	go func() {
		err := srv.WatchExercises(ctx, poll, debounce, func(f string, a ...any) { fmt.Fprintf(ios.Out, f+"\n", a...) })
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "lessons: exercises are not re-checked on save: %v\n", err)
		}
	}()
	fmt.Fprintf(ios.Out, "Serving %s at %s (pages reload on every save; Ctrl-C stops)\n", c.Title, url)

	for err == nil && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case err = <-served:
		case werr := <-w.Errors():
			fmt.Fprintf(ios.ErrOut, "watch: %v\n", werr)
		case batch := <-batches:
			if slices.Contains(batch, manifest) {
				stopWatch(w, batches)
				if w, batches, err = watchSite(root, poll, debounce); err != nil {
					break
				}
			}
			if berr := srv.Rebuild(); berr != nil {
				fmt.Fprintf(ios.ErrOut, "lessons: %v\n", berr)
			} else {
				fmt.Fprintf(ios.Out, "rebuilt after a change to %s; %d page(s) told to reload\n", relList(root, batch), srv.Watchers())
			}
		}
	}
	if w != nil {
		stopWatch(w, batches)
	}
	hs.Close()
	if err == nil {
		err = <-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// watchSite watches the files the site is made of, in batches.
func watchSite(root string, poll bool, debounce time.Duration) (watch.Watcher, <-chan []string, error) {
	w, err := watch.New(siteFiles(root), poll, 200*time.Millisecond)
	if err != nil {
		return nil, nil, err
	}
	return w, watch.Debounce(w.Events(), debounce), nil
}

// stopWatch closes a watch and waits for its batches to end.
func stopWatch(w watch.Watcher, batches <-chan []string) {
	w.Close()
	for range batches {
	}
}

// siteFiles are the files the site is made of: course.toml (the order,
// the exercises and their hints) and the lessons. A course.toml that does
// not load leaves course.toml and what the lessons folder holds.
func siteFiles(root string) []string {
	files := []string{filepath.Join(root, "course.toml")}
	c, err := course.Load(root)
	if err != nil {
		md, _ := filepath.Glob(filepath.Join(root, "lessons", "*.md"))
		return append(files, md...)
	}
	for _, e := range c.Lessons {
		files = append(files, c.Path(e.File))
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// relList names changed files from the course's folder.
func relList(root string, files []string) string {
	out := ""
	for i, f := range files {
		if r, err := filepath.Rel(root, f); err == nil {
			f = r
		}
		if i > 0 {
			out += ", "
		}
		out += f
	}
	return out
}
