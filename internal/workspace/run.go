package workspace

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
)

// Run is a lesson's run made ready (lessons run): its workspace, the
// machine found, and the environment its cells run in.
type Run struct {
	Lesson   *lesson.Lesson
	Dir      string // the workspace, absolute
	Machine  *machine.Machine
	Compiler buildcache.Compiler
	Env      notebook.Env
	// Timeline, when set, is the statistics library (built on first
	// use): each cell's CUDA program is traced and its timeline drawn
	// under its output, Width columns wide (lessons run --timeline).
	Timeline func(context.Context) (string, error)
	Width    int
}

// Prepare readies lesson l (of course c, nil for a lesson read by path)
// to run in dir ("" for its workspace, For), built for arch ("" for the
// GPU's), on the machine find finds (its error as it is); without a GPU the machine's
// GPUErr says why, and the cells can only be compiled.
func Prepare(ctx context.Context, c *course.Course, l *lesson.Lesson, dir, arch string, find Finder) (*Run, error) {
	var err error
	if dir == "" {
		if dir, err = For(c, l); err != nil {
			return nil, err
		}
	}
	dir, _ = filepath.Abs(dir)
	m, err := find(ctx, WrapperDir(dir))
	if err != nil {
		return nil, err
	}
	if arch == "" {
		arch = m.Arch()
	}
	r := &Run{Lesson: l, Dir: dir, Machine: m, Compiler: buildcache.Compiler{Path: m.NVCC.Path, Version: m.NVCC.Version, Arch: arch}}
	if !l.HasPython() {
		r.Env, err = nvccEnv(m, r.Compiler, dir)
		return r, err
	}
	if r.Env, err = Env(m, r.Compiler, dir); err != nil {
		return nil, err
	}
	r.Env = notebook.ForLesson(ctx, r.Env, l)
	return r, nil
}

// Finder finds the machine a lesson's cells run on, nvcc looked for on
// the PATH past wrapperDir (rig.Lesson): a *failure.Tool without nvcc.
type Finder func(ctx context.Context, wrapperDir string) (*machine.Machine, error)

// Header is what a run says before its first cell: the lesson, the
// workspace, nvcc and the GPU, how Python cells run, and that cells are
// only compiled when there is no GPU though running was asked for.
func (r *Run) Header(compileOnly bool) string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "%s\nworkspace %s\nnvcc %s (%s)", r.Lesson.Title, r.Dir, m.NVCC.Version, m.NVCC.Path)
	if m.GPUErr == nil {
		fmt.Fprintf(&b, ", GPU %s (%s)", m.Info.Devices[0].Name, m.Info.Devices[0].Arch())
	}
	b.WriteString("\n")
	if r.Lesson.HasPython() {
		fmt.Fprintf(&b, "Python cells: %s\n", r.Env.PythonWay)
	}
	b.WriteString("\n")
	if m.GPUErr != nil && !compileOnly {
		fmt.Fprintf(&b, "No GPU found (%v).\nCompiling every cell; running them needs a GPU.\n\n", m.GPUErr)
	}
	return b.String()
}

// Cells runs the lesson's cells as opt says (only compiled without a
// GPU), their output to out, and returns how each ended and a line that
// sums them up with the builds the cache gave.
func (r *Run) Cells(ctx context.Context, opt notebook.Options, out io.Writer) ([]notebook.Outcome, string, error) {
	opt.Workspace = r.Dir
	opt.CompileOnly = opt.CompileOnly || r.Machine.GPUErr != nil
	if r.Timeline != nil && !opt.CompileOnly {
		lib, err := r.Timeline(ctx)
		if err != nil {
			return nil, "", failure.Toolf("--timeline needs the statistics library, which did not build: %w", err)
		}
		opt.Trace = &notebook.Trace{Library: lib, Draw: true, Width: r.Width}
	}
	cache := r.Machine.Cache
	hits0, misses0 := cache.Counts()
	start := time.Now()
	outcomes, err := notebook.Run(ctx, r.Lesson, r.Env, opt, out)
	if err != nil {
		return nil, "", err
	}
	hits, misses := cache.Counts()
	builds := (hits + misses) - (hits0 + misses0)
	return outcomes, fmt.Sprintf("%d cells: %s in %s; %d of %d builds from the cache\n%s",
		len(outcomes), notebook.Summary(outcomes), time.Since(start).Round(time.Millisecond), hits-hits0, builds,
		r.timelineNote(opt, outcomes)), nil
}

// timelineNote says why a run asked for timelines drew none.
func (r *Run) timelineNote(opt notebook.Options, outcomes []notebook.Outcome) string {
	switch {
	case r.Timeline == nil:
		return ""
	case opt.CompileOnly:
		return "No timelines: the cells were only compiled (a timeline needs the programs to run on a GPU).\n"
	}
	for _, o := range outcomes {
		for _, t := range o.Traces {
			if t.Trace != nil || t.Missing != "" {
				return ""
			}
		}
	}
	return "No timelines: no cell ran a CUDA program the statistics library could follow (a program built by the cell's nvcc is; Python and programs built elsewhere are not).\n"
}
