package watch

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// Session re-checks an exercise on every save, like rustlings' watch: a
// burst of saves gives one check, a check still running when a new save
// comes is cancelled and started again (never queued behind), and a passed
// exercise moves the session on to the next. Everything it touches is a
// function, so tests drive it with scripted events.
type Session struct {
	// Check checks an exercise, printing its verdict; it must stop soon
	// after ctx is cancelled.
	Check func(ctx context.Context, id string) (passed bool, err error)
	// Next is the exercise after id not yet passed ("" for the first);
	// ok is false when there is none.
	Next func(after string) (id string, ok bool)
	// Files are the files whose saves re-check id.
	Files func(id string) []string
	// Watch starts watching files.
	Watch func(files []string) (Watcher, error)
	// Hint, List and Header print to Out; Header runs before each check.
	Hint, List, Header func(id string)
	// Lesson shows the lesson of exercise id (key v), and LessonFiles are
	// its files: a save of one re-renders the lesson while it is on
	// screen, and checks nothing. Both may be nil.
	Lesson      func(id string)
	LessonFiles func(id string) []string
	// Keys are the keys pressed: h hint, n next, r re-run, l list, q quit.
	// A closed channel means no keyboard.
	Keys <-chan byte
	Out  io.Writer
	// Debounce is how long a burst of saves lasts (about 200 ms); see the
	// package's Debounce.
	Debounce time.Duration
	// Batch turns the watcher's events into batches of saves; nil is
	// Debounce with the Debounce above. Tests give each event a batch.
	Batch func(events <-chan string) <-chan []string
	// Wait, when set, waits for a key after a pass instead of moving on.
	Wait bool
}

type verdict struct {
	passed bool
	err    error
}

// Run watches from exercise start until every exercise is passed (nil),
// q is pressed (nil), or ctx ends.
func (s *Session) Run(ctx context.Context, start string) error {
	cur := start
	keys := s.Keys
	for {
		w, err := s.Watch(append(s.Files(cur), s.lessonFiles(cur)...))
		if err != nil {
			return err
		}
		var batches <-chan []string
		if s.Batch != nil {
			batches = s.Batch(w.Events())
		} else {
			batches = Debounce(w.Events(), s.Debounce)
		}
		next, quit, err := s.exercise(ctx, cur, w, batches, &keys)
		w.Close()
		if err != nil || quit {
			return err
		}
		if next == "" {
			fmt.Fprintln(s.Out, "Every exercise is passed. Well done!")
			return nil
		}
		cur = next
	}
}

func (s *Session) lessonFiles(id string) []string {
	if s.LessonFiles == nil || s.Lesson == nil {
		return nil
	}
	return s.LessonFiles(id)
}

// onlyLesson reports whether every file of a batch is one of the lesson's.
func onlyLesson(batch, lesson []string) bool {
	is := map[string]bool{}
	for _, f := range lesson {
		is[absPath(f)] = true
	}
	for _, f := range batch {
		if !is[absPath(f)] {
			return false
		}
	}
	return len(lesson) > 0
}

func absPath(f string) string {
	if a, err := filepath.Abs(f); err == nil {
		return a
	}
	return f
}

// exercise watches one exercise until it is passed (and the session moves
// on), n is pressed, or the session ends.
func (s *Session) exercise(ctx context.Context, id string, w Watcher, batches <-chan []string, keys *<-chan byte) (next string, quit bool, err error) {
	var cancel context.CancelFunc = func() {}
	var done chan verdict
	start := func() {
		cancel()
		if done != nil {
			<-done // the cancelled check has stopped: no output interleaves
		}
		var cctx context.Context
		cctx, cancel = context.WithCancel(ctx)
		done = make(chan verdict, 1)
		s.Header(id)
		go func(ch chan verdict) {
			p, err := s.Check(cctx, id)
			ch <- verdict{p, err}
		}(done)
	}
	// h and l pressed while a check prints are shown after its verdict,
	// never in the middle of its output.
	var pending []byte
	show := func(k byte) {
		switch k {
		case 'h':
			s.Hint(id)
		case 'l':
			s.List(id)
		}
	}
	flush := func() {
		for _, k := range pending {
			show(k)
		}
		pending = nil
	}
	defer func() {
		cancel()
		if done != nil {
			<-done
		}
		flush()
	}()
	showing := false // the lesson is on screen
	start()
	for {
		select {
		case <-ctx.Done():
			return "", true, ctx.Err()
		case batch, ok := <-batches:
			if !ok {
				return "", true, fmt.Errorf("the file watcher stopped")
			}
			if onlyLesson(batch, s.lessonFiles(id)) {
				if showing {
					s.Lesson(id)
				}
				continue
			}
			showing = false
			start()
		case err := <-w.Errors():
			fmt.Fprintf(s.Out, "watch: %v\n", err)
		case v := <-done:
			done = nil
			if v.err != nil && ctx.Err() == nil {
				fmt.Fprintf(s.Out, "lessons: %v\n", v.err)
			}
			flush()
			if !v.passed {
				continue
			}
			n, ok := s.Next(id)
			switch {
			case !ok:
				return "", false, nil // every exercise is passed
			case !s.Wait:
				return n, false, nil
			}
			fmt.Fprintln(s.Out, "Press n for the next exercise.")
		case k, ok := <-*keys:
			if !ok {
				*keys = nil // no keyboard: only saves drive the session
				continue
			}
			switch k {
			case 'q', 3: // 3 is Ctrl-C in raw mode
				return "", true, nil
			case 'n':
				n, ok := s.Next(id)
				if !ok {
					fmt.Fprintln(s.Out, "No exercise after this one is left to do.")
					continue
				}
				return n, false, nil
			case 'r':
				showing = false
				start()
			case 'v':
				if s.Lesson == nil {
					continue
				}
				stopped := done != nil
				if stopped {
					// The lesson takes the screen: the check's output
					// would run through it.
					cancel()
					<-done
					done = nil
				}
				showing = true
				s.Lesson(id)
				if stopped {
					fmt.Fprintln(s.Out, "The check that was running was stopped; save the file or press r to check again.")
				}
				flush()
			case 'h', 'l':
				if done != nil {
					pending = append(pending, k)
					continue
				}
				show(k)
			}
		}
	}
}
