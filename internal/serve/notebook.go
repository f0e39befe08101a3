package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Notebook runs a page's cells with the same runner, workspace, limits
// and compile cache as lessons run.
type Notebook struct {
	// Lesson finds the lesson of a page ("day070-pools") and the
	// workspace it runs in.
	Lesson func(page string) (*lesson.Lesson, string, error)
	// Env is the runner and the nvcc wrapper for a workspace.
	Env         func(ws string) (notebook.Env, error)
	Timeout     time.Duration
	MaxOutput   int64
	CompileOnly bool
	// Library is the statistics library (built on first use), for a run
	// traced for its timeline (the page's Timelines toggle); nil: runs
	// are not traced, and a traced run says so.
	Library func(context.Context) (string, error)

	mu   sync.Mutex
	runs map[*run]struct{}
	// turns has one slot for each workspace: its cells run one at a
	// time, as in one notebook kernel, so that two pages never build or
	// run the same files at once.
	turns map[string]chan struct{}
	// python is the Python session of each workspace, kept from cell to
	// cell as a notebook's kernel is; Restart ends it.
	python map[string]notebook.PythonSession
}

// session is the workspace's Python session, started at its first
// Python cell; started says it is new, for the page to say how it runs.
func (nb *Notebook) session(ctx context.Context, ws string, env notebook.Env) (s notebook.PythonSession, started bool, err error) {
	nb.mu.Lock()
	s = nb.python[ws]
	nb.mu.Unlock()
	if s != nil && s.Alive() {
		return s, false, nil
	}
	if s != nil {
		nb.endSession(ws) // killed at a time limit: a new one, as a kernel restarts
	}
	if env.StartPython == nil {
		return nil, false, nil // the run says why not
	}
	// The session outlives this request: only Restart or the server's
	// end stops it.
	s, err = env.StartPython(context.WithoutCancel(ctx), ws, notebook.CellEnv(env))
	if err != nil {
		return nil, false, err
	}
	nb.mu.Lock()
	if nb.python == nil {
		nb.python = map[string]notebook.PythonSession{}
	}
	nb.python[ws] = s
	nb.mu.Unlock()
	return s, true, nil
}

// endSession ends the workspace's Python session, if it has one.
func (nb *Notebook) endSession(ws string) {
	nb.mu.Lock()
	s := nb.python[ws]
	delete(nb.python, ws)
	nb.mu.Unlock()
	if s != nil {
		s.Close()
	}
}

// run is one cell running for one page.
type run struct {
	page, ws string
	cell     int
	cancel   context.CancelFunc
	done     chan struct{}
}

// editsDir keeps the page's edits of file cells, in the workspace: a
// Restart leaves it, Reset cell removes one.
const editsDir = ".lessons-edits"

// editFile is where, in the workspace, the page's version of cell c is kept.
func editFile(c *lesson.Cell) string {
	return filepath.Join(editsDir, fmt.Sprintf("%d-%s", c.Number, strings.ReplaceAll(filepath.Clean(c.Name), string(filepath.Separator), "_")))
}

// inside tells whether name stays inside ws, by its look; the writes go
// through safefs, which also refuses links out of the workspace.
func inside(name string) bool { return safefs.Local(name) == nil }

// edited is the lesson with the page's edits in place of its file cells'
// text; the lesson itself is not changed.
func edited(l *lesson.Lesson, ws string) *lesson.Lesson {
	c := *l
	c.Cells = append([]lesson.Cell(nil), l.Cells...)
	for i := range c.Cells {
		if c.Cells[i].Kind != lesson.File {
			continue
		}
		if data, err := safefs.ReadFile(ws, editFile(&c.Cells[i])); err == nil {
			c.Cells[i].Text = string(data)
		}
	}
	return &c
}

// cellState is a runnable cell as the page shows it.
type cellState struct {
	Cell   int    `json:"cell"`
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
	Text   string `json:"text"`
	Edited bool   `json:"edited"`
}

func (nb *Notebook) cells(page string) ([]cellState, error) {
	l, ws, err := nb.Lesson(page)
	if err != nil {
		return nil, err
	}
	e := edited(l, ws)
	var out []cellState
	for i, c := range e.Cells {
		if !c.Runnable() {
			continue
		}
		out = append(out, cellState{Cell: c.Number, Kind: c.Kind.String(), Name: c.Name, Text: c.Text, Edited: c.Text != l.Cells[i].Text})
	}
	return out, nil
}

func fileCell(l *lesson.Lesson, n int) (*lesson.Cell, error) {
	for i := range l.Cells {
		if c := &l.Cells[i]; c.Number == n && c.Runnable() {
			if c.Kind != lesson.File {
				return nil, fmt.Errorf("cell [%d] of %s is a command, not a file: only file cells are edited", n, l.Path)
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s has no cell [%d]", l.Path, n)
}

// edit keeps text as the page's version of file cell n, and writes it to
// the workspace's copy of the file. The lesson's file is not touched.
func (nb *Notebook) edit(page string, n int, text string) error {
	l, ws, err := nb.Lesson(page)
	if err != nil {
		return err
	}
	c, err := fileCell(l, n)
	if err != nil {
		return err
	}
	if !inside(c.Name) {
		return fmt.Errorf("cell [%d] writes %s, outside its workspace", n, c.Name)
	}
	if err := writeText(ws, editFile(c), text); err != nil {
		return fmt.Errorf("edit cell [%d]: %w", n, err)
	}
	return writeText(ws, c.Name, text)
}

// reset forgets the page's version of file cell n and puts the lesson's
// text back in the workspace.
func (nb *Notebook) reset(page string, n int) (string, error) {
	l, ws, err := nb.Lesson(page)
	if err != nil {
		return "", err
	}
	c, err := fileCell(l, n)
	if err != nil {
		return "", err
	}
	if !inside(c.Name) {
		return "", fmt.Errorf("cell [%d] writes %s, outside its workspace", n, c.Name)
	}
	if err := safefs.Remove(ws, editFile(c)); err != nil {
		return "", err
	}
	return c.Text, writeText(ws, c.Name, c.Text)
}

// writeText writes a file of the workspace ws, never through a link that
// leads out of it (a course can commit its workspace with one).
func writeText(ws, name, text string) error {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	return safefs.WriteFile(ws, name, []byte(text), 0o644)
}

// restart stops every run in the page's workspace and empties it, but
// for the page's edits and the nvcc wrapper.
func (nb *Notebook) restart(page string) error {
	_, ws, err := nb.Lesson(page)
	if err != nil {
		return err
	}
	nb.stop(func(r *run) bool { return r.ws == ws })
	nb.endSession(ws)
	entries, err := os.ReadDir(ws)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		// Kept only as folders: a cell that made one a link (to another
		// student's workspace) left every edit of the page refused, and
		// Restart is how a student starts over.
		if (e.Name() == editsDir || e.Name() == ".lessons-bin") && e.IsDir() {
			continue
		}
		if err := safefs.RemoveAll(ws, e.Name()); err != nil {
			return fmt.Errorf("restart %s: %w", page, err)
		}
	}
	return nil
}

// stop cancels the runs that match and waits for them to end.
func (nb *Notebook) stop(match func(*run) bool) int {
	nb.mu.Lock()
	var stopped []*run
	for r := range nb.runs {
		if match(r) {
			r.cancel()
			stopped = append(stopped, r)
		}
	}
	nb.mu.Unlock()
	for _, r := range stopped {
		<-r.done
	}
	return len(stopped)
}

func (nb *Notebook) turn(ws string) chan struct{} {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if nb.turns == nil {
		nb.turns = map[string]chan struct{}{}
	}
	if nb.turns[ws] == nil {
		nb.turns[ws] = make(chan struct{}, 1)
	}
	return nb.turns[ws]
}

// running is how many cells run now, for every page together.
func (nb *Notebook) running() int {
	nb.mu.Lock()
	defer nb.mu.Unlock()
	return len(nb.runs)
}

// event is one line of a run's stream.
type event struct {
	Event string `json:"event"` // "start", "output", "end"
	Cell  int    `json:"cell"`
	Text  string `json:"text,omitempty"`
	// Timeline is a command's timeline ("timeline" events; Text says
	// why there is none when it is nil).
	Timeline *Timeline `json:"timeline,omitempty"`
	// At the end:
	Status string `json:"status,omitempty"` // "ok", "failed", "skipped", "stopped"
	Reason string `json:"reason,omitempty"`
	MS     int64  `json:"ms"` // never left out: the page shows it (0 ms was "NaN s")
	// Builds and Hits count the cell's nvcc builds and those the cache
	// served.
	Builds int `json:"builds,omitempty"`
	Hits   int `json:"hits,omitempty"`
	// ErrorCell and ErrorLine place a compile error in a file cell.
	ErrorCell int `json:"errorCell,omitempty"`
	ErrorLine int `json:"errorLine,omitempty"`
}

// start runs cell n of page for the open page out is for (its run of the
// cell, if any, is stopped first), sending its output to out as it comes
// (traced: with each command's timeline after it), and returns the last
// event. An error means the cell could not be started: no such lesson or
// cell, no workspace.
func (nb *Notebook) start(ctx context.Context, page string, n int, traced bool, out *stream) (*event, error) {
	l, ws, err := nb.Lesson(page)
	if err != nil {
		return nil, err
	}
	var cell *lesson.Cell
	for i := range l.Cells {
		if l.Cells[i].Number == n && l.Cells[i].Runnable() {
			cell = &l.Cells[i]
		}
	}
	if cell == nil {
		return nil, fmt.Errorf("%s has no runnable cell [%d]", page, n)
	}
	env, err := nb.Env(ws)
	if err != nil {
		return nil, err
	}
	env = notebook.ForLesson(ctx, env, l)
	// The page's run of this cell, if any, is stopped: the new run takes
	// its place in the same step, so that two Runs at once leave one.
	ctx, cancel := context.WithCancel(ctx)
	r := &run{page: out.page, ws: ws, cell: n, cancel: cancel, done: make(chan struct{})}
	nb.mu.Lock()
	if nb.runs == nil {
		nb.runs = map[*run]struct{}{}
	}
	var old []*run
	for o := range nb.runs {
		if o.page != "" && o.page == r.page && o.ws == ws && o.cell == n {
			o.cancel()
			old = append(old, o)
		}
	}
	nb.runs[r] = struct{}{}
	nb.mu.Unlock()
	for _, o := range old {
		<-o.done
	}
	defer func() {
		cancel()
		nb.mu.Lock()
		delete(nb.runs, r)
		nb.mu.Unlock()
		close(r.done)
	}()

	turn := nb.turn(ws)
	select {
	case turn <- struct{}{}:
	default:
		out.send(event{Event: "waiting", Cell: n, Text: "another cell of this lesson is running"})
		select {
		case turn <- struct{}{}:
		case <-ctx.Done():
			return &event{Event: "end", Cell: n, Status: "stopped", Reason: "stopped before it started"}, nil
		}
	}
	defer func() { <-turn }()
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	log, err := os.CreateTemp("", "lessons-builds-*")
	if err != nil {
		return nil, err
	}
	log.Close()
	defer os.Remove(log.Name())
	env.Vars = append(append([]string(nil), env.Vars...), "LESSONS_BUILD_LOG="+log.Name())
	e := edited(l, ws)
	out.send(event{Event: "start", Cell: n})
	start := time.Now()
	var py notebook.PythonSession
	switch {
	case cell.Kind == lesson.Python && !nb.CompileOnly:
		var started bool
		if py, started, err = nb.session(ctx, ws, env); err != nil {
			env.StartPython, env.NoPython = nil, err.Error()
		} else if started {
			fmt.Fprintf(out, "(%s)\n", env.PythonWay)
		}
	case cell.Bang || cell.CUDA != nil:
		// a ! line takes the notebook's Python values, where its Python
		// cells have run (none is started for it)
		nb.mu.Lock()
		py = nb.python[ws]
		nb.mu.Unlock()
	}
	trace, why := nb.trace(ctx, traced)
	outcomes, err := notebook.Run(ctx, e, env, notebook.Options{
		Workspace: ws, Timeout: nb.Timeout, MaxOutput: nb.MaxOutput, Cell: n,
		CompileOnly: nb.CompileOnly, Plain: true, Python: py, Trace: trace,
	}, out)
	out.flushText()
	if len(outcomes) == 1 {
		for _, o := range outcomes[0].Outputs {
			if o.MIME != "" {
				out.send(event{Event: "image", Cell: n, Text: "data:" + o.MIME + ";base64," + o.Data})
			}
		}
		for _, t := range outcomes[0].Traces {
			switch pics := Pictures(t.Trace); {
			case pics != nil:
				out.send(event{Event: "timeline", Cell: n, Text: t.Command, Timeline: pics})
			case t.Missing != "":
				out.send(event{Event: "timeline", Cell: n, Text: "no timeline for " + t.Command + ": " + t.Missing})
			}
		}
	}
	if why != "" && err == nil {
		out.send(event{Event: "timeline", Cell: n, Text: "no timeline: " + why})
	}
	end := &event{Event: "end", Cell: n, Status: "failed", MS: time.Since(start).Milliseconds()}
	switch {
	case err != nil && ctx.Err() != nil, len(outcomes) == 1 && !outcomes[0].OK && ctx.Err() != nil:
		end.Status, end.Reason = "stopped", "stopped"
	case err != nil:
		end.Reason = err.Error()
	case len(outcomes) != 1:
		end.Reason = "the cell did not run"
	case outcomes[0].Skipped:
		end.Status, end.Reason = "skipped", outcomes[0].Reason
	case outcomes[0].NotRun:
		end.Status, end.Reason = "skipped", "not run: "+outcomes[0].Reason
	case outcomes[0].OK:
		end.Status = "ok"
		if p := outcomes[0].Partial; len(p) > 0 {
			end.Reason = "run in part: built; not run: " + strings.Join(p, "; ")
		}
	default:
		end.Reason = outcomes[0].Reason
		end.ErrorCell, end.ErrorLine = errorPlace(e, n, out.tail())
	}
	if data, err := os.ReadFile(log.Name()); err == nil {
		end.Builds = strings.Count(string(data), "\n")
		end.Hits = strings.Count(string(data), "hit\n")
	}
	return end, nil
}

// trace is how a run asked to be traced is (nil: not asked, or it
// cannot be, and why).
func (nb *Notebook) trace(ctx context.Context, traced bool) (*notebook.Trace, string) {
	switch {
	case !traced:
		return nil, ""
	case nb.CompileOnly:
		return nil, "cells are only compiled here (no GPU)"
	case nb.Library == nil:
		return nil, "this server does not trace cells"
	}
	lib, err := nb.Library(ctx)
	if err != nil {
		return nil, "the statistics library did not build: " + err.Error()
	}
	return &notebook.Trace{Library: lib}, ""
}

// errorPlace finds the file cell, at or before cell n, that wrote the
// file of the compiler's first error, and the error's line.
func errorPlace(l *lesson.Lesson, n int, output string) (int, int) {
	loc, msg := notebook.FirstCompileError(output)
	if msg == "" {
		return 0, 0
	}
	i := strings.LastIndexByte(loc, ':')
	file := filepath.Clean(loc[:i])
	var line int
	fmt.Sscanf(loc[i+1:], "%d", &line)
	best := 0
	for _, c := range l.Cells {
		if c.Number > n {
			break
		}
		if c.Kind == lesson.File && c.Runnable() && (filepath.Clean(c.Name) == file || filepath.Base(c.Name) == filepath.Base(file)) {
			best = c.Number
		}
	}
	if best == 0 {
		return 0, 0
	}
	return best, line
}

// stream is a run's output on its way to one page: the runner writes into
// it and never waits for the page, which reads at its own pace (its size
// is bounded by the run's output cap).
type stream struct {
	page string

	mu     sync.Mutex
	events []event
	text   []byte // output not yet made an event
	last   []byte // the last 64 KiB of output, for the compile error
	wake   chan struct{}
}

func newStream(page string) *stream { return &stream{page: page, wake: make(chan struct{}, 1)} }

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.text = append(s.text, p...)
	s.last = append(s.last, p...)
	if len(s.last) > 128<<10 {
		s.last = append([]byte(nil), s.last[len(s.last)-64<<10:]...)
	}
	s.mu.Unlock()
	s.poke()
	return len(p), nil
}

func (s *stream) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *stream) send(e event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	s.poke()
}

// flushText makes every byte written an output event, a partial UTF-8
// character included.
func (s *stream) flushText() {
	s.mu.Lock()
	if len(s.text) > 0 {
		s.events = append(s.events, event{Event: "output", Text: string(s.text)})
		s.text = nil
	}
	s.mu.Unlock()
	s.poke()
}

// take returns the events ready, the output written so far as one (up to
// its last whole UTF-8 character).
func (s *stream) take() []event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.text) > 0 {
		cut := len(s.text)
		for k := 1; k <= 3 && k <= len(s.text); k++ {
			if b := s.text[len(s.text)-k]; utf8.RuneStart(b) {
				if !utf8.FullRune(s.text[len(s.text)-k:]) {
					cut = len(s.text) - k
				}
				break
			}
		}
		if cut > 0 {
			s.events = append(s.events, event{Event: "output", Text: string(s.text[:cut])})
			s.text = append([]byte(nil), s.text[cut:]...)
		}
	}
	ev := s.events
	s.events = nil
	return ev
}

func (s *stream) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.last)
}
