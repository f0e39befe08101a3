package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/ui"
	"github.com/cudalessons/lessons/internal/verify"
	"github.com/cudalessons/lessons/internal/workspace"
)

// VerifyOptions are the inputs of lessons verify.
type VerifyOptions struct {
	IO          *IOStreams
	g           *globals
	CompileOnly bool
	// Mutants tests the specs instead: every mutant of every solution
	// must fail a check (mutants.go).
	Mutants, Wrong bool // Wrong: verify.Wrong
	Jobs           int
	// PerGPU and Queues are 0 when no flag gives them: chosen from what
	// the course runs.
	PerGPU, Queues int
}

func newVerify(io *IOStreams, g *globals, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "verify",
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
half, which needs nvcc but no GPU (CI runs it). Prints a table and exits 1 on
any surprise.`,
		Example: "  lessons verify\n  lessons verify --compile-only\n  lessons verify --per-gpu 1      # one run at a time\n  lessons verify --mutants        # every mutant of every solution must fail a check\n  lessons verify --wrong          # every wrong answer must fail with the text it expects",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	cmd.Flags().BoolVar(&opts.Wrong, "wrong", false, "judge each wrong answer (solutions/dayNNN/wrong/<exercise>/) as grade would: each must fail with the text its first line expects")
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
	if err := checkGenerated(c); err != nil {
		return err
	}
	ctx, stop := interrupted()
	defer stop()
	root := filepath.Join(c.Root, ".lessons", "verify")
	m, err := findMachine(ctx, "")
	if err != nil {
		return failure.Toolf("lessons verify needs nvcc: %w", err)
	}
	if m.GPUErr != nil && !opts.CompileOnly {
		return failure.Toolf("lessons verify runs the course, which needs a GPU (%v); lessons verify --compile-only builds it without one", m.GPUErr)
	}
	if opts.Mutants {
		report, err := verify.Mutants(ctx, c, verify.MutantOptions{Toolkit: m.toolkit(), PerGPU: opts.PerGPU, Queues: opts.Queues, Jobs: opts.Jobs,
			Devices: hw.Devices(len(m.Info.Devices)), Note: func(s string) { fmt.Fprintln(ios.ErrOut, s) }})
		if err != nil {
			return err
		}
		report.Write(ios.Out)
		if report.Survivors() > 0 || report.Errors() > 0 {
			return errSilent
		}
		return nil
	}
	if opts.Wrong {
		report, err := verify.Wrong(ctx, c, verify.WrongOptions{Toolkit: m.toolkit(), PerGPU: opts.PerGPU, Queues: opts.Queues, Jobs: opts.Jobs,
			Devices: hw.Devices(len(m.Info.Devices)), Note: func(s string) { fmt.Fprintln(ios.ErrOut, s) }})
		if err != nil {
			return err
		}
		report.Write(ios.Out)
		return report.Err()
	}
	start := time.Now()
	if !opts.CompileOnly {
		// The statistics library builds beside the course; the first run
		// of an exercise waits for it if it is not done.
		go m.toolkit().StatsLibrary(ctx)
	}
	choice := verify.Choose(c, opts.PerGPU, opts.Queues)
	// Lessons keep CUDA's queues unless a flag says: what they print
	// about streams and timings is what a student sees.
	m.Queues = choice.TimedQueues
	items, err := verify.Items(c, verify.Options{Root: root, CompileOnly: opts.CompileOnly, Toolkit: m.toolkit(), Choice: choice,
		LessonEnv: func(ws string) (notebook.Env, error) {
			if err := workspace.MakeWrapper(ws); err != nil {
				return notebook.Env{}, err
			}
			return m.notebookEnv(m.Compiler(), ws), nil
		}})
	if err != nil {
		return err
	}
	devices := []string{"0"} // compile-only: no runs
	if !opts.CompileOnly {
		devices = hw.Devices(len(m.Info.Devices))
		fmt.Fprintf(ios.ErrOut, "Verifying %s: builds on %d cores, runs on %d GPU(s), %d at a time on each%s.\n",
			ui.Count(len(items), "item"), max(opts.Jobs, 1), len(devices), choice.PerDevice, chosen(choice))
	}
	if err := verify.Run(ctx, items, grade.Slots{Jobs: opts.Jobs, Devices: devices, PerDevice: choice.PerDevice}); err != nil {
		return err
	}
	table, surprises := verify.Table(items)
	table.Write(ios.Out, ios.Width())
	mode := "built and ran"
	if opts.CompileOnly {
		mode = "built"
	}
	fmt.Fprintf(ios.Out, "\n%d items %s in %s: %d as expected, %d surprises\n", len(items), mode, verify.Seconds(time.Since(start)), len(items)-surprises, surprises)
	if surprises > 0 {
		return errSilent
	}
	return nil
}

// chosen says, for a start line, what was chosen without a flag and why.
func chosen(c grade.Choice) string {
	if c.Why == "" {
		return ""
	}
	return " (chosen: " + c.Why + "; --per-gpu and --gpu-queues override)"
}
