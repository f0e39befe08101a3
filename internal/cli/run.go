package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/workspace"
)

// RunOptions are the inputs of lessons run.
type RunOptions struct {
	IO          *IOStreams
	g           *globals
	Lesson      string
	Cell        int
	KeepGoing   bool
	CompileOnly bool
	Timeout     time.Duration
	Workspace   string
	Arch        string
	Strict      bool
}

func newRun(io *IOStreams, g *globals, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "run LESSON",
		Short: "Run a lesson's cells like a notebook",
		Long: `Run a lesson's cells in order, like a notebook, in a workspace kept for the
lesson: %%writefile and file cells write their files, ! and "sh run" cells
run in a shell (each ! line alone, as IPython runs them), %%cuda cells build
and run, Python cells run in one session (the notebook's Jupyter kernel
where one is installed, else python3 through lessons' own driver; without
Python they are listed as not run, and --strict fails on them), and each
cell's output appears under it as it comes.

nvcc goes through a compile cache (also for nvcc inside ! cells), so an
unchanged lesson costs only its programs' run time. Builds target the GPU
found (-arch=sm_XY) unless the command names an architecture. Without a GPU
the cells are compiled only. Every cell runs under a time limit, in its own
process group, with its output capped.`,
		Example: "  lessons run 70\n  lessons run 70 --cell 3\n  lessons run ../shared/seeds/002_742c26890dfac7c0.txt --keep-going\n  lessons run 68 --compile-only",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("run takes one lesson: a day, dayNNN, slug or path")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Lesson = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Cell, "cell", 0, "run only cell `N` (the files of the cells before it are written first)")
	cmd.Flags().BoolVar(&opts.KeepGoing, "keep-going", false, "run the remaining cells after one fails")
	cmd.Flags().BoolVar(&opts.CompileOnly, "compile-only", false, "only compile (what a machine without a GPU does)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 2*time.Minute, "time limit of each cell")
	cmd.Flags().StringVar(&opts.Workspace, "workspace", "", "run in `DIR` (default: .lessons/work/LESSON in the course)")
	cmd.Flags().StringVar(&opts.Arch, "arch", "", "build for this architecture, e.g. sm_90 (default: the GPU's)")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "fail when a cell could not run here (a Python cell without Python)")
	return cmd
}

// machine is what a command found of this machine, with the exercise
// pipeline's toolkit made on first use (the statistics library once).
type machine struct {
	*hw.Machine
	tk *exercise.Toolkit
}

// findMachine is hw.Find, keeping the machine found without nvcc.
func findMachine(ctx context.Context, wrapperDir string) (*machine, error) {
	m, err := hw.Find(ctx, wrapperDir)
	if m == nil {
		return nil, err
	}
	return &machine{Machine: m}, err
}

// notebookEnv is what notebook.Run needs to build with comp through the
// cache, nvcc in cells included (through the wrapper in ws).
func (m *machine) notebookEnv(comp buildcache.Compiler, ws string) notebook.Env {
	return notebook.WithPython(context.Background(), notebook.Env{
		Runner: runner.Exec{}, Wrapper: workspace.WrapperDir(ws),
		Vars: append([]string{
			"LESSONS_REAL_NVCC=" + comp.Path, "LESSONS_NVCC_VERSION=" + comp.Version,
			"LESSONS_ARCH=" + comp.Arch, "LESSONS_CACHE=" + m.Cache.Dir,
		}, m.RunEnv()...),
	})
}

// gpuQueuesHelp explains --gpu-queues, which verify and grade share.
const gpuQueuesHelp = "hardware work queues of each program run (CUDA_DEVICE_MAX_CONNECTIONS, 1 to 32; 0 leaves CUDA's 8): fewer start a CUDA process faster, but streams beyond N share a queue, so kernels that could overlap may run in turn (results stay, timings change)"

func runRun(opts *RunOptions) error {
	l, c, err := opts.g.resolveWithCourse(opts.Lesson)
	if err != nil {
		return err
	}
	printWarnings(opts.IO, l.Warnings)
	ws := opts.Workspace
	if ws == "" {
		if ws, err = workspace.For(c, l); err != nil {
			return err
		}
	}
	ws, _ = filepath.Abs(ws)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := findMachine(ctx, workspace.WrapperDir(ws))
	if err != nil {
		return failure.Toolf("lessons run needs nvcc to build the lesson's programs: %w", err)
	}
	compileOnly := opts.CompileOnly
	arch := opts.Arch
	out := opts.IO.Out
	noGPU := m.GPUErr != nil && !compileOnly
	compileOnly = compileOnly || noGPU
	if arch == "" && m.GPUErr == nil {
		arch = m.Info.Devices[0].Arch()
	}
	if err := workspace.MakeWrapper(ws); err != nil {
		return err
	}
	comp := buildcache.Compiler{Path: m.NVCC.Path, Version: m.NVCC.Version, Arch: arch}
	fmt.Fprintf(out, "%s\nworkspace %s\nnvcc %s (%s)", l.Title, ws, m.NVCC.Version, m.NVCC.Path)
	if m.GPUErr == nil {
		fmt.Fprintf(out, ", GPU %s (%s)", m.Info.Devices[0].Name, m.Info.Devices[0].Arch())
	}
	fmt.Fprint(out, "\n")
	env := m.notebookEnv(comp, ws)
	env = notebook.ForLesson(ctx, env, l)
	if l.HasPython() {
		fmt.Fprintf(out, "Python cells: %s\n", env.PythonWay)
	}
	fmt.Fprint(out, "\n")
	if noGPU {
		fmt.Fprintf(out, "No GPU found (%v).\nCompiling every cell; running them needs a GPU.\n\n", m.GPUErr)
	}
	before, _ := m.Cache.Stats()
	start := time.Now()
	outcomes, err := notebook.Run(ctx, l, env, notebook.Options{
		Workspace: ws, Timeout: opts.Timeout, KeepGoing: opts.KeepGoing, Cell: opts.Cell,
		CompileOnly: compileOnly, Color: opts.IO.Color(),
	}, out)
	if err != nil {
		return err
	}
	after, _ := m.Cache.Stats()
	builds := (after.Hits + after.Misses) - (before.Hits + before.Misses)
	fmt.Fprintf(out, "%d cells: %s in %s; %d of %d builds from the cache\n",
		len(outcomes), notebook.Summary(outcomes), time.Since(start).Round(time.Millisecond), after.Hits-before.Hits, builds)
	n := notebook.Count(outcomes)
	if n.Failed > 0 || opts.Strict && n.NotRun > 0 {
		return errSilent
	}
	return nil
}

// NVCCMain is the nvcc wrapper: what this program does when it is run as
// nvcc from a cell. It builds through the cache with the real nvcc.
func NVCCMain(args []string) int {
	real := os.Getenv("LESSONS_REAL_NVCC")
	version := os.Getenv("LESSONS_NVCC_VERSION")
	if real == "" || version == "" {
		self, _ := os.Executable()
		t, err := gpu.NVCC(context.Background(), filepath.Dir(self))
		if err != nil {
			fmt.Fprintln(os.Stderr, "lessons nvcc:", err)
			return 127
		}
		real, version = t.Path, t.Version
	}
	cache, err := buildcache.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lessons nvcc:", err)
		return 2
	}
	dir, _ := os.Getwd()
	comp := buildcache.Compiler{Path: real, Version: version, Arch: os.Getenv("LESSONS_ARCH")}
	res, err := cache.BuildStreams(context.Background(), sameGroup{}, comp, args, dir, nil, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lessons nvcc:", err)
		return 2
	}
	logBuild(res.Hit)
	if res.Hit || res.Run.OK() {
		return 0
	}
	if res.Run.ExitCode > 0 {
		return res.Run.ExitCode
	}
	return 1
}

// logBuild appends "hit" or "miss" to $LESSONS_BUILD_LOG when it is set:
// the page tells by it that a cell's builds came from the cache, which the
// cache's counters cannot say while other cells build beside it.
func logBuild(hit bool) {
	file := os.Getenv("LESSONS_BUILD_LOG")
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	word := "miss\n"
	if hit {
		word = "hit\n"
	}
	f.WriteString(word)
}

// sameGroup runs nvcc in the wrapper's own process group, which the cell's
// runner kills whole on a timeout.
type sameGroup struct{}

func (sameGroup) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	spec.SameGroup = true
	return runner.Exec{}.Run(ctx, spec, out)
}
