package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/runner"
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("sandbox needs a program to run: lessons sandbox -- PROGRAM [ARG...]")
			}
			return nil
		},
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
	ios, pol, uid, noCgroup, args := opts.IO, opts.Policy, opts.UID, opts.NoCgroup, opts.Args
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	pol.Dir = dir
	if uid != 0 {
		pol.UID, pol.GID = uid, uid
	}
	r := sandbox.Runner{Policy: pol}
	noGroup := "--no-cgroup"
	if !noCgroup {
		if r.Cgroups, err = sandbox.OpenCgroups(); err != nil {
			noGroup = err.Error()
		}
		defer r.Cgroups.Close()
	}
	rep := r.Verify(context.Background())
	if r.Cgroups == nil {
		rep.NoCgroup = noGroup
	}
	if os.Geteuid() == 0 && uid == 0 {
		// root without --uid runs the program as root: advice to run
		// as root would say nothing
		rep.As = "root (--uid N runs it as user N)"
	}
	fmt.Fprintf(ios.ErrOut, "sandbox: %s\n", rep)
	res, err := r.Run(context.Background(), runner.Spec{Argv: args, Dir: dir, Env: os.Environ()}, ios.Out)
	if err != nil {
		return err
	}
	if res.ExitCode > 0 && !res.TimedOut && !res.Truncated && !res.Canceled && res.Signal == 0 {
		// the program's own verdict, passed on as it is, as env
		// and time do; it has said what it had to say
		return &failure.Silent{Code: res.ExitCode}
	}
	if !res.OK() {
		return fmt.Errorf("sandbox: %s: %s", args[0], res.Reason(0, 0))
	}
	return nil
}
