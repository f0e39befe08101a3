package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// newSandbox is lessons sandbox: run a command in the sandbox that grade
// uses, to see what a program may do there.
func newSandbox(ios *iostreams.IOStreams, runF func(*SandboxOptions) error) *cobra.Command {
	opts := &SandboxOptions{IO: ios, Policy: sandbox.Policy{Limits: sandbox.DefaultLimits}}
	pol := &opts.Policy
	cmd := &cobra.Command{
		Use:   "sandbox [flags] -- PROGRAM [ARG...]",
		Short: "(instructors) Run a program in the sandbox that grade runs student code in",
		Long: `Run PROGRAM in the sandbox of lessons grade, in the current folder (the one
folder it may write), to see what a program may do there.
--landlock caps the Landlock ABI (1 up to what this kernel has, which
lessons doctor reports; -1 none) to find which restriction a program trips
on. The program's exit status is the command's.`,
		Example: "  lessons sandbox -- ./prog\n  lessons sandbox --landlock 5 -- ./prog",
		Args:    argsUnless(func(n int) bool { return n == 0 }, "sandbox needs a program to run: lessons sandbox -- PROGRAM [ARG...]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if runF != nil {
				return runF(opts)
			}
			return sandboxRun(opts)
		},
	}
	cmd.Flags().IntVar(&pol.Landlock, "landlock", 0, "the highest Landlock ABI to use (-1: none)")
	cmd.Flags().StringSliceVar(&pol.Write, "write", nil, "further folders it may write")
	cmd.Flags().BoolVar(&pol.Network, "net", false, "allow the network")
	cmd.Flags().BoolVar(&pol.UnixSockets, "unix-sockets", false, "allow AF_UNIX sockets where Landlock cannot refuse those outside the folder")
	cmd.Flags().IntVar(&opts.UID, "uid", 0, "run as this user (root only)")
	cmd.Flags().Uint64Var(&pol.Memory, "memory", pol.Memory, "data memory limit in bytes")
	cmd.Flags().Float64Var(&pol.CPUs, "cpus", pol.CPUs, "cores it may keep busy (with a cgroup)")
	cmd.Flags().BoolVar(&opts.NoCgroup, "no-cgroup", false, "no cgroup of its own")
	return cmd
}

// SandboxOptions are the inputs of lessons sandbox.
type SandboxOptions struct {
	IO       *iostreams.IOStreams
	Policy   sandbox.Policy
	UID      int
	NoCgroup bool
	Args     []string // the program and its arguments
}

func sandboxRun(opts *SandboxOptions) error {
	tried, err := sandbox.Try(context.Background(), opts.Policy, opts.UID, opts.NoCgroup, opts.Args, opts.IO.Out,
		func(r sandbox.Report) { fmt.Fprintf(opts.IO.ErrOut, "sandbox: %s\n", r) })
	if err != nil {
		return err
	}
	if tried.Code > 0 {
		return &failure.Silent{Code: tried.Code}
	}
	return nil
}
