package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/workspace"
)

// RunOptions are the inputs of lessons run.
type RunOptions struct {
	IO          *iostreams.IOStreams
	g           *globals
	Lesson      string
	Cell        int
	KeepGoing   bool
	CompileOnly bool
	Timeout     time.Duration
	Workspace   string
	Arch        string
	Strict      bool
	Timeline    bool
}

func newRun(io *iostreams.IOStreams, g *globals, runF func(*RunOptions) error) *cobra.Command {
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
		Example: "  lessons run 70\n  lessons run 70 --cell 3\n  lessons run ../shared/seeds/002_742c26890dfac7c0.txt --keep-going\n  lessons run 68 --compile-only\n  lessons run 69 --cell 4 --timeline",
		Args:    argsUnless(func(n int) bool { return n != 1 }, "run takes one lesson: a day, dayNNN, slug or path"),
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
	cmd.Flags().BoolVar(&opts.Timeline, "timeline", false, "under each command that runs a CUDA program, draw what it did with the allocator: streams, allocations, kernels on the GPU, event waits, the pool's memory")
	return cmd
}

// gpuQueuesHelp explains --gpu-queues, which verify and grade share.
const gpuQueuesHelp = "hardware work queues of each program run (CUDA_DEVICE_MAX_CONNECTIONS, 1 to 32; 0 leaves CUDA's 8): fewer start a CUDA process faster, but streams beyond N share a queue, so kernels that could overlap may run in turn (results stay, timings change)"

func runRun(opts *RunOptions) error {
	l, c, err := opts.g.resolve(opts.Lesson)
	if err != nil {
		return err
	}
	printWarnings(opts.IO, l.Warnings)
	ctx, stop := interrupted()
	defer stop()
	r, err := workspace.Prepare(ctx, c, l, opts.Workspace, opts.Arch, rig.Lesson)
	if err != nil {
		return err
	}
	if opts.Timeline {
		r.Timeline, r.Width = rig.StatsLibrary(r.Machine), opts.IO.Width()
	}
	out := opts.IO.SafeOut() // labels, names, programs' output: the lesson's bytes
	fmt.Fprint(out, r.Header(opts.CompileOnly))
	outcomes, summary, err := r.Cells(ctx, notebook.Options{Timeout: opts.Timeout, KeepGoing: opts.KeepGoing, Cell: opts.Cell,
		CompileOnly: opts.CompileOnly, Color: opts.IO.Color()}, out)
	if err != nil {
		return err
	}
	fmt.Fprint(out, summary)
	if n := notebook.Count(outcomes); n.Failed > 0 || opts.Strict && n.NotRun > 0 {
		return errSilent
	}
	return nil
}
