package cli

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/iostreams"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/verify"
)

// VerifyOptions are the inputs of lessons verify.
type VerifyOptions struct {
	IO          *iostreams.IOStreams
	g           *globals
	CompileOnly bool
	// Mutants tests the specs instead: every mutant of every solution
	// must fail a check (mutants.go).
	Mutants, Wrong bool // Wrong: verify.Wrong
	Jobs           int
	// PerGPU and Queues are 0 when no flag gives them: chosen from what
	// the course runs.
	PerGPU, Queues int
	Only           []string // the exercises named: those alone
}

func newVerify(io *iostreams.IOStreams, g *globals, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "verify [EXERCISE...]",
		Short: "Prove the course works: solutions pass, untouched exercises fail, lessons run",
		Long: `Verify the whole course, as its author must before students get it:
every solution passes all its checks, every untouched exercise compiles and
fails at least one check, and every lesson's runnable cells run.

Builds run in parallel on all cores; each item's run starts as soon as its
build is done. Without flags, runs share the GPU (up to 16 at once) and the
programs of untimed exercises get 2 hardware queues, which start CUDA
faster; an exercise whose spec says timed = true runs with the GPU to
itself and CUDA's 8 queues, and lessons keep CUDA's 8 queues so that what
they print about streams is what a student sees. The first line says what
was chosen; --per-gpu and --gpu-queues set it. --compile-only does the build
half, which needs nvcc but no GPU (CI runs it). Name exercises to prove
those alone, with the lessons that hold them (all three modes). Prints a
table and exits 1 on any surprise.`,
		Example: "  lessons verify\n  lessons verify --compile-only\n  lessons verify scan             # one exercise, its lesson, its stub\n  lessons verify --per-gpu 1      # one run at a time\n  lessons verify --mutants        # every mutant of every solution must fail a check\n  lessons verify --wrong          # every wrong answer must fail with the text it expects",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Only = args
			if cmd.Flags().Changed("per-gpu") && (opts.PerGPU < 1 || opts.PerGPU > 64) {
				return usagef("--per-gpu is 1 to 64, not %d", opts.PerGPU)
			}
			if opts.Mutants && (opts.Wrong || opts.CompileOnly) || opts.Wrong && opts.CompileOnly {
				return usagef("--mutants and --wrong are runs of their own on the GPU: give one, which does not go with --compile-only")
			}
			if err := hw.CheckQueues(opts.Queues); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.CompileOnly, "compile-only", false, "only build every lesson cell, exercise and solution")
	cmd.Flags().BoolVar(&opts.Mutants, "mutants", false, "test the specs: every mutant of every solution's regions must fail a check; lists the survivors")
	cmd.Flags().BoolVar(&opts.Wrong, "wrong", false, "judge each wrong answer (solutions/dayNNN/wrong/<exercise>/) as grade would: each must fail with the text its first line expects (those under unseen/, which no check can see, are listed with why, not run)")
	cmd.Flags().IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "builds at once")
	cmd.Flags().IntVar(&opts.PerGPU, "per-gpu", 0, "runs at once on each GPU (default: chosen, up to 16; a timed exercise's run still has its GPU to itself)")
	cmd.Flags().IntVar(&opts.Queues, "gpu-queues", 0, gpuQueuesHelp)
	return cmd
}

func verifyRun(opts *VerifyOptions) error {
	ios := opts.IO
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	if c, err = c.Only(opts.Only...); err != nil {
		return err
	}
	if err := author.CheckGenerated(c); err != nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	m, tk, err := verify.Machine(ctx, opts.CompileOnly)
	if err != nil {
		return err
	}
	note := func(s string) { fmt.Fprintln(ios.ErrOut, s) }
	if opts.Mutants || opts.Wrong { // never with --compile-only: there is a GPU
		ro := verify.RunOptions{Toolkit: tk, PerGPU: opts.PerGPU, Queues: opts.Queues, Jobs: opts.Jobs, Devices: hw.Devices(len(m.Info.Devices)), Note: note}
		if opts.Wrong {
			report, err := verify.Wrong(ctx, c, ro)
			if report != nil {
				report.Write(ios.Out)
			}
			if err != nil {
				return err
			}
			return report.Err()
		}
		report, err := verify.Mutants(ctx, c, ro)
		if err != nil {
			return err
		}
		report.Write(ios.Out)
		return report.Err()
	}
	start := time.Now()
	items, err := verify.Course(ctx, c, m, tk, verify.CourseOptions{CompileOnly: opts.CompileOnly, Jobs: opts.Jobs, PerGPU: opts.PerGPU, Queues: opts.Queues, Note: note})
	if err != nil {
		return err
	}
	return verify.WriteTable(ios.Out, ios.Width(), items, opts.CompileOnly, time.Since(start))
}
