package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
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

// codeError carries an exit code other than 1.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }

// toolMissing is a problem with the machine, not the lesson: exit 2.
func toolMissing(err error) error { return &codeError{code: exitUsage, err: err} }

// machine is what a run finds of the GPU, nvcc and the cache.
type machine struct {
	nvcc   *gpu.Tool
	info   *gpu.Info
	gpuErr error
	cache  *buildcache.Cache

	// queues, when above 0, is the hardware work queues each program
	// gets (CUDA_DEVICE_MAX_CONNECTIONS).
	queues int

	tk *exercise.Toolkit // built on first use: the statistics library once
}

// arch is the architecture of the first GPU, or "" without one.
func (m *machine) arch() string {
	if m.gpuErr != nil || m.info == nil || len(m.info.Devices) == 0 {
		return ""
	}
	return m.info.Devices[0].Arch()
}

// wrapperDir is where a workspace keeps its nvcc wrapper.
func wrapperDir(ws string) string { return filepath.Join(ws, ".lessons-bin") }

// notebookEnv is what notebook.Run needs to build with comp through the
// cache, nvcc in cells included (through the wrapper in ws).
func (m *machine) notebookEnv(comp buildcache.Compiler, ws string) notebook.Env {
	return notebook.WithPython(context.Background(), notebook.Env{
		Runner: runner.Exec{}, Wrapper: wrapperDir(ws),
		Vars: append([]string{
			"LESSONS_REAL_NVCC=" + comp.Path, "LESSONS_NVCC_VERSION=" + comp.Version,
			"LESSONS_ARCH=" + comp.Arch, "LESSONS_CACHE=" + m.cache.Dir,
		}, m.runEnv()...),
	})
}

// runEnv is what the machine adds to the environment of a program run.
func (m *machine) runEnv() []string {
	if m.queues > 0 {
		return []string{fmt.Sprintf("CUDA_DEVICE_MAX_CONNECTIONS=%d", m.queues)}
	}
	return nil
}

// gpuQueuesHelp explains --gpu-queues, which verify and grade share.
const gpuQueuesHelp = "hardware work queues of each program run (CUDA_DEVICE_MAX_CONNECTIONS, 1 to 32; 0 leaves CUDA's 8): fewer start a CUDA process faster, but streams beyond N share a queue, so kernels that could overlap may run in turn (results stay, timings change)"

func checkQueues(n int) error {
	if n < 0 || n > 32 {
		return usagef("--gpu-queues is 1 to 32 (or 0 for CUDA's default), not %d", n)
	}
	return nil
}

// compiler is nvcc as the cache builds with it, for the GPU found.
func (m *machine) compiler() buildcache.Compiler {
	return buildcache.Compiler{Path: m.nvcc.Path, Version: m.nvcc.Version, Arch: m.arch()}
}

func findMachine(ctx context.Context, wrapperDir string) (*machine, error) {
	m := &machine{}
	var err error
	if m.cache, err = buildcache.Default(); err != nil {
		return nil, toolMissing(err)
	}
	p := prober()
	if _, real := p.(gpu.Driver); real {
		p = gpu.Cached{Prober: p, File: filepath.Join(m.cache.Dir, "gpu.json")}
	}
	m.info, m.gpuErr = p.Probe(false)
	if m.gpuErr == nil && len(m.info.Devices) == 0 {
		m.gpuErr = errors.New("the driver lists no GPU")
	}
	m.nvcc, err = gpu.NVCC(ctx, wrapperDir)
	if err != nil {
		return m, err
	}
	return m, nil
}

// prober is the GPU seam: the driver, or $LESSONS_GPU for tests and for
// forcing a machine without one (LESSONS_GPU=none).
func prober() gpu.Prober {
	if v, ok := os.LookupEnv("LESSONS_GPU"); ok {
		return fakeGPU(v)
	}
	return gpu.Driver{}
}

// fakeGPU is "none", or "NAME,MAJOR.MINOR,TOTAL_BYTES".
type fakeGPU string

func (f fakeGPU) Probe(bool) (*gpu.Info, error) {
	if f == "none" || f == "" {
		return nil, errors.New("no GPU (LESSONS_GPU=none)")
	}
	parts := strings.Split(string(f), ",")
	d := gpu.Device{Name: parts[0], Major: 9}
	if len(parts) > 1 {
		fmt.Sscanf(parts[1], "%d.%d", &d.Major, &d.Minor)
	}
	if len(parts) > 2 {
		d.TotalBytes, _ = strconv.ParseUint(parts[2], 10, 64)
		d.FreeBytes = d.TotalBytes
	}
	return &gpu.Info{Driver: 13000, Devices: []gpu.Device{d}}, nil
}

func runRun(opts *RunOptions) error {
	l, c, err := opts.g.resolveWithCourse(opts.Lesson)
	if err != nil {
		return err
	}
	printWarnings(opts.IO, l.Warnings)
	ws := opts.Workspace
	if ws == "" {
		if ws, err = workspaceFor(c, l); err != nil {
			return err
		}
	}
	ws, _ = filepath.Abs(ws)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := findMachine(ctx, wrapperDir(ws))
	if err != nil {
		return toolMissing(fmt.Errorf("lessons run needs nvcc to build the lesson's programs: %w", err))
	}
	compileOnly := opts.CompileOnly
	arch := opts.Arch
	out := opts.IO.Out
	noGPU := m.gpuErr != nil && !compileOnly
	compileOnly = compileOnly || noGPU
	if arch == "" && m.gpuErr == nil {
		arch = m.info.Devices[0].Arch()
	}
	if err := makeWrapper(wrapperDir(ws)); err != nil {
		return err
	}
	comp := buildcache.Compiler{Path: m.nvcc.Path, Version: m.nvcc.Version, Arch: arch}
	fmt.Fprintf(out, "%s\nworkspace %s\nnvcc %s (%s)", l.Title, ws, m.nvcc.Version, m.nvcc.Path)
	if m.gpuErr == nil {
		fmt.Fprintf(out, ", GPU %s (%s)", m.info.Devices[0].Name, m.info.Devices[0].Arch())
	}
	fmt.Fprint(out, "\n")
	env := m.notebookEnv(comp, ws)
	if l.Kernel != "" && l.Kernel != "python3" {
		env = notebook.WithKernel(ctx, env, l.Kernel)
	}
	if l.HasPython() {
		fmt.Fprintf(out, "Python cells: %s\n", env.PythonWay)
	}
	fmt.Fprint(out, "\n")
	if noGPU {
		fmt.Fprintf(out, "No GPU found (%v).\nCompiling every cell; running them needs a GPU.\n\n", m.gpuErr)
	}
	before, _ := m.cache.Stats()
	start := time.Now()
	outcomes, err := notebook.Run(ctx, l, env, notebook.Options{
		Workspace: ws, Timeout: opts.Timeout, KeepGoing: opts.KeepGoing, Cell: opts.Cell,
		CompileOnly: compileOnly, Color: opts.IO.Color(),
	}, out)
	if err != nil {
		return err
	}
	after, _ := m.cache.Stats()
	builds := (after.Hits + after.Misses) - (before.Hits + before.Misses)
	fmt.Fprintf(out, "%d cells: %s in %s; %d of %d builds from the cache\n",
		len(outcomes), notebook.Summary(outcomes), time.Since(start).Round(time.Millisecond), after.Hits-before.Hits, builds)
	n := notebook.Count(outcomes)
	if n.Failed > 0 || opts.Strict && n.NotRun > 0 {
		return errSilent
	}
	return nil
}

// workspaceFor is .lessons/work/NAME in the course, or a folder in the cache
// for a lesson read by path.
func workspaceFor(c *course.Course, l *lesson.Lesson) (string, error) {
	if c != nil {
		return filepath.Join(c.Root, ".lessons", "work", strings.TrimSuffix(filepath.Base(l.Path), filepath.Ext(l.Path))), nil
	}
	cache, err := buildcache.Default()
	if err != nil {
		return "", err
	}
	abs, _ := filepath.Abs(l.Path)
	sum := sha256.Sum256([]byte(abs))
	name := strings.TrimSuffix(filepath.Base(l.Path), filepath.Ext(l.Path))
	return filepath.Join(cache.Dir, "work", name+"-"+hex.EncodeToString(sum[:4])), nil
}

// makeWrapper puts an nvcc in dir that is this program, so that nvcc in a
// cell builds through the cache.
func makeWrapper(dir string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	link := filepath.Join(dir, "nvcc")
	if cur, err := os.Readlink(link); err == nil && cur == self {
		return nil
	}
	os.Remove(link)
	return os.Symlink(self, link)
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
