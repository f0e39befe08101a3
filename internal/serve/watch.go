package serve

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/watch"
)

// WatchExercises re-checks an exercise whenever one of its files is saved,
// in any editor, and pushes the verdict to every open page, as lessons
// watch does in the terminal. It returns when ctx ends. A save while the
// exercise is being checked stops that check and starts it over.
func (s *Server) WatchExercises(ctx context.Context, poll bool, debounce time.Duration, logf func(string, ...any)) error {
	if s.check == nil {
		return nil
	}
	byFile := map[string][]string{}
	var files []string
	for id, fs := range s.check.Files() {
		for _, f := range fs {
			f, _ = filepath.Abs(f)
			if byFile[f] == nil {
				files = append(files, f)
			}
			byFile[f] = append(byFile[f], id)
		}
	}
	if len(files) == 0 {
		return nil
	}
	w, err := watch.New(files, poll, 100*time.Millisecond)
	if err != nil {
		return err
	}
	defer w.Close()
	batches := watch.Debounce(w.Events(), debounce)
	running := map[string]context.CancelFunc{}
	// The checks under way end (and say so) before this returns: a
	// server that stops right after a verdict still tells it.
	var checks sync.WaitGroup
	defer checks.Wait()
	for {
		select {
		case <-ctx.Done():
			for _, cancel := range running {
				cancel()
			}
			return nil
		case err := <-w.Errors():
			logf("watch: %v", err)
		case batch, ok := <-batches:
			if !ok {
				return nil
			}
			seen := map[string]bool{}
			for _, f := range batch {
				f, _ = filepath.Abs(f)
				for _, id := range byFile[f] {
					if seen[id] {
						continue
					}
					seen[id] = true
					if cancel := running[id]; cancel != nil {
						cancel()
					}
					cctx, cancel := context.WithCancel(ctx)
					running[id] = cancel
					checks.Add(1)
					go func() {
						defer checks.Done()
						v, _ := s.checkAndPush(cctx, id, "save")
						// A check cut short (by a newer save, or the
						// server stopping) is no verdict; one that
						// ended is told.
						if cctx.Err() == nil || v.Error == "" {
							logf("checked %s after a save: %s", id, verdictWord(v))
						}
					}()
				}
			}
		}
	}
}

func verdictWord(v *Verdict) string {
	switch {
	case v.Error != "":
		return "not checked: " + v.Error
	case v.Passed:
		return "passed"
	}
	return "not yet passed"
}
