package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudalessons/lessons/internal/classroom"
	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/iostreams"
)

// addClassFlags adds serve's flags of the class mode (serve --class).
func addClassFlags(cmd *cobra.Command, errOut io.Writer, o *classroom.ServeOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Dir, "class", "", "serve a class: the `DIR` of its students' copies, keys, audit log and gradebook (the README's class section)")
	fl.StringVar(&o.Roster, "roster", "", "the class's roster, a CSV `FILE` of id,name,email (or grade unpack's roster.csv)")
	fl.StringVar(&o.Cert, "tls-cert", "", "serve the class over TLS with this certificate `FILE` (and --tls-key)")
	fl.StringVar(&o.Key, "tls-key", "", "the TLS certificate's key `FILE`")
	fl.StringVar(&o.ProxyHeader, "proxy-header", "", "sign students in by this `HEADER` of an authenticating proxy (X-Forwarded-User), trusted from --proxy-addr only")
	fl.StringVar(&o.ProxyAddr, "proxy-addr", "127.0.0.1", "the proxy's `IP` address")
	fl.StringVar(&o.ProxySecretFile, "proxy-secret-file", "", "a `FILE` with the secret the proxy sends as X-Lessons-Proxy-Secret (a proxy on this machine over TCP needs it, or --addr unix:PATH)")
	fl.StringVar(&o.Group, "socket-group", "", "with --addr unix:PATH, the `GROUP` (the proxy's) that may open the socket")
	fl.StringSliceVar(&o.Instructors, "instructor", nil, "who the proxy's header names as the instructor (repeatable)")
	fl.StringSliceVar(&o.Hosts, "host", nil, "a `NAME` the class is reached by (the proxy's or the certificate's)")
	fl.Int64Var(&o.DiskMiB, "disk-per-student", 2048, "the `MIB` a student's folder may hold for their cells to run (0: no limit)")
	fl.IntVar(&o.MaxQueued, "max-queued", 4, "a student's runs queued or running at once")
	fl.DurationVar(&o.GPUPerHour, "gpu-per-hour", 10*time.Minute, "a student's GPU time in any hour (0: no limit)")
	fl.IntVar(&o.PerGPU, "per-gpu", 0, "runs at once on each GPU (0: as grade chooses)")
	fl.IntVar(&o.Jobs, "jobs", 0, "builds at once (0: the cores)")
	fl.IntVar(&o.Queues, "gpu-queues", 0, "hardware work queues of each cell's and untimed exercise's program (CUDA_DEVICE_MAX_CONNECTIONS, 1 to 32; 0: 2, with which CUDA starts processes about 2.5 times as fast; 8 is CUDA's own)")
	s := &o.Slurm
	fl.IntVar(&s.Nodes, "slurm-nodes", 0, "send runs to `N` GPU nodes through Slurm: a pilot job on each, connecting back to --slurm-url (the README's \"Beyond one machine\")")
	fl.IntVar(&s.GPUsPerNode, "slurm-gpus-per-node", 4, "the GPUs each GPU node's pilot asks for (gres gpu:N)")
	fl.IntVar(&s.NodeCPUs, "slurm-cpus-per-node", 16, "the cores each GPU node's pilot asks for (and, without --per-gpu, its runs at once on each GPU: from 4 cores a GPU, one a core)")
	fl.IntVar(&s.Builders, "slurm-build-nodes", 0, "build on `N` CPU nodes (pilot jobs) instead of here")
	fl.IntVar(&s.BuildCPUs, "slurm-build-cpus", 16, "the cores each build node's pilot asks for (its builds at once)")
	fl.StringVar(&s.URL, "slurm-url", "", "the class server's `URL` as the nodes reach it (https://login1.uni.example:8443)")
	fl.BoolVar(&s.Only, "slurm-only", false, "run nothing on this machine's GPU: every run waits for a node")
	fl.StringVar(&s.Capability, "slurm-gpu-capability", "", "the nodes' GPUs' compute `X.Y` (9.0 for an H100), for a server without a GPU (with --slurm-only): it builds for them")
	fl.StringArrayVar(&s.Env, "slurm-env", nil, "`NAME=VALUE` set in each pilot job (LESSONS_SANDBOX_READ=/opt/cuda), repeatable")
	addSlurmOptions(fl, &s.Options, &s.Exe, "with --slurm-nodes: ", "each pilot's time limit (Slurm's words; default 8:00:00); a pilot that ends is submitted again")
	for old, name := range map[string]string{"slurm-partition": "partition", "slurm-build-partition": "build-partition", "slurm-account": "account",
		"slurm-qos": "qos", "slurm-time": "time", "slurm-sbatch-arg": "sbatch-arg", "slurm-exe": "lessons-binary"} {
		alias(fl, errOut, old, name)
	}
}

// alias adds old as a hidden name of flag name; a use of it says to
// errOut that it is name now.
func alias(fl *pflag.FlagSet, errOut io.Writer, old, name string) {
	f := fl.Lookup(name)
	fl.AddFlag(&pflag.Flag{Name: old, Usage: f.Usage, Value: renamed{f.Value, f, errOut, old}, DefValue: f.DefValue, Hidden: true})
}

// renamed is a flag's value set by its old name (the flag is changed).
type renamed struct {
	pflag.Value
	flag   *pflag.Flag
	errOut io.Writer
	old    string
}

func (r renamed) Set(v string) error {
	fmt.Fprintf(r.errOut, "lessons: --%s is deprecated: use --%s (grade --slurm's name)\n", r.old, r.flag.Name)
	r.flag.Changed = true
	return r.Value.Set(v)
}

// serveClass is lessons serve --class: the class server on its address
// until Ctrl-C; the course's [grade.slurm] under the Slurm flags given.
func serveClass(opts *ServeOptions, cmd *cobra.Command, c *course.Course) error {
	o := opts.ClassOpts
	o.Addr, o.Timeout, o.Slurm.Options = opts.Addr, opts.Timeout, c.Slurm.Override(o.Slurm.Options, cmd.Flags().Changed)
	ctx, stop := interrupted()
	defer stop()
	srv, err := classroom.NewServer(ctx, c, o, opts.IO.Out)
	if err != nil {
		return err
	}
	defer srv.Close()
	for _, n := range srv.Notes() {
		fmt.Fprintln(opts.IO.Out, n)
	}
	return srv.Serve(ctx)
}

func newInvite(ios *iostreams.IOStreams) *cobra.Command {
	var dir, roster, base string
	var instructor bool
	cmd := &cobra.Command{
		Use:   "invite [STUDENT...]",
		Short: "Make the class's single-use sign-in links (serve --class)",
		Long: `Make a fresh sign-in link for every student of the roster (or those
named), or with --instructor the instructor's, and print them as CSV
(id,name,email,link) for a mail merge. Each link works once and replaces
the ones made before for the same person; it may be made while the
server runs.`,
		Example: "  lessons invite --class /srv/class --roster roster.csv --url https://gpu.uni.example > links.csv\n  lessons invite --class /srv/class --url https://gpu.uni.example --instructor",
		RunE: func(cmd *cobra.Command, args []string) error {
			links, err := classroom.InviteRoster(dir, base, roster, args, instructor)
			if err != nil {
				return err
			}
			return classroom.WriteLinks(ios.Out, links)
		},
	}
	cmd.Flags().StringVar(&dir, "class", "", "the class's `DIR`, as serve --class names it")
	cmd.Flags().StringVar(&roster, "roster", "", "the roster, a CSV `FILE` of id,name,email")
	cmd.Flags().StringVar(&base, "url", "", "the class server's `URL` as students open it")
	cmd.Flags().BoolVar(&instructor, "instructor", false, "the instructor's link")
	cmd.MarkFlagRequired("class")
	cmd.MarkFlagRequired("url")
	return cmd
}

func newSubmit(ios *iostreams.IOStreams) *cobra.Command {
	var server string
	cmd := &cobra.Command{
		Use:   "submit EXERCISE FILE",
		Short: "Hand in a file to the class server, graded as lessons grade grades",
		Long: `Hand in FILE as your exercise to the class server (--server, or
$LESSONS_CLASS_SERVER) with your token ($LESSONS_CLASS_TOKEN: the page
gives it, under "Token for lessons submit"), and print the feedback.`,
		Example: "  LESSONS_CLASS_TOKEN=... lessons submit --server https://gpu.uni.example block-pool block_pool.cu",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := classroom.SubmitFile(cmd.Context(), server, args[0], args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "Submitted #%d: %s, %d of %d points\n\n%s", res.Attempt, res.Status, res.Points, res.Max, res.Feedback)
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the class server's `URL`")
	return cmd
}

func newPilot(ios *iostreams.IOStreams) *cobra.Command {
	var o pilot.WorkerOptions
	cmd := &cobra.Command{
		Use:    "pilot",
		Short:  "(Slurm) A class server's pilot on a node: takes the class's runs or builds",
		Hidden: true,
		Long: `The worker a class server's pilot job runs on a node (serve --class
--slurm-nodes): it connects to --url with its job's secret (--secret-file, read and removed),
takes runs for this node's GPUs (CUDA_VISIBLE_DEVICES as Slurm sets it) or
builds, runs each in the grading sandbox and sends the results back.`,
		RunE: func(cmd *cobra.Command, args []string) error { return pilot.RunWorker(cmd.Context(), o, ios.Out) },
	}
	cmd.Flags().StringVar(&o.URL, "url", "", "the class server's `URL`")
	cmd.Flags().StringVar(&o.Role, "role", pilot.RoleGPU, "gpu (runs) or build")
	cmd.Flags().StringVar(&o.Dir, "dir", "", "this node's scratch `DIR` (the files' cache, the workspaces)")
	cmd.Flags().StringVar(&o.SecretFile, "secret-file", "", "the `FILE` of the job's secret (removed once read)")
	cmd.MarkFlagRequired("url")
	cmd.MarkFlagRequired("dir")
	cmd.MarkFlagRequired("secret-file")
	return cmd
}
