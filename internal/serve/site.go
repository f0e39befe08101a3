package serve

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	coursepkg "github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/watch"
)

// SiteWatch watches the files the site of a course is made of, from the
// moment it is made: made before the first page is served, no save after
// a page was read is missed.
type SiteWatch struct {
	root     string
	poll     bool
	debounce time.Duration
	w        watch.Watcher
	batches  <-chan []string
}

// WatchSite starts watching the site's files of the course in root.
func WatchSite(root string, poll bool, debounce time.Duration) (*SiteWatch, error) {
	sw := &SiteWatch{root: root, poll: poll, debounce: debounce}
	return sw, sw.start()
}

func (sw *SiteWatch) start() error {
	w, err := watch.New(SiteFiles(sw.root), sw.poll, 200*time.Millisecond)
	if err != nil {
		return err
	}
	sw.w, sw.batches = w, watch.Debounce(w.Events(), sw.debounce)
	return nil
}

// stop closes the watch and waits for its batches to end.
func (sw *SiteWatch) stop() {
	if sw.w == nil {
		return
	}
	sw.w.Close()
	for range sw.batches {
	}
	sw.w = nil
}

// Run rebuilds s on every save until ctx ends, telling the open pages to
// reload. A course.toml saved can name other files: the watch starts
// again on the new list before the rebuild, so that no save between the
// two is missed. logf says what was rebuilt, errf what went wrong.
func (sw *SiteWatch) Run(ctx context.Context, s *Server, logf, errf func(string, ...any)) error {
	defer sw.stop()
	manifest := filepath.Join(sw.root, coursepkg.ManifestName)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-sw.w.Errors():
			errf("watch: %v", err)
		case batch := <-sw.batches:
			if slices.Contains(batch, manifest) {
				sw.stop()
				if err := sw.start(); err != nil {
					return err
				}
			}
			if err := s.Rebuild(); err != nil {
				errf("lessons: %v", err)
			} else {
				logf("rebuilt after a change to %s; %d page(s) told to reload", relList(sw.root, batch), s.Watchers())
			}
		}
	}
}

// SiteFiles are the files the site is made of: course.toml (the order,
// the exercises and their hints) and the lessons. A course.toml that does
// not load leaves course.toml and what the lessons folder holds.
func SiteFiles(root string) []string {
	files := []string{filepath.Join(root, coursepkg.ManifestName)}
	c, err := coursepkg.Load(root)
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
	var out []string
	for _, f := range files {
		if r, err := filepath.Rel(root, f); err == nil {
			f = r
		}
		out = append(out, f)
	}
	return strings.Join(out, ", ")
}
