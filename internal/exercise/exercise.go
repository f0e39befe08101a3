// Package exercise is the exercise pipeline: the files of an exercise, its
// build (with the shared CUDA runtime, so that the statistics library sees
// its calls), a run with that library preloaded, the runs under
// compute-sanitizer, and the verdict of its checks. Every command that
// judges an exercise goes through it: check, watch and verify with the
// Plain runner, grade with the Sandbox.
package exercise

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
)

// maxOutput is how much a judged program (or compute-sanitizer) may print
// before it is stopped.
const maxOutput = runner.MaxJudgedOutput

// File is one file of a build of an exercise: its name in the build (as the
// exercise names it) and its contents, from Data when set, else read from
// Path.
type File struct {
	Name string
	Path string
	Data []byte
}

func (f File) read() ([]byte, error) {
	if f.Data != nil {
		return f.Data, nil
	}
	return safefs.ReadRegular(f.Path, buildcache.MaxHashed)
}

// Job is one file of an exercise to judge.
type Job struct {
	// ID names the exercise (in folders and errors).
	ID   string
	Spec *checker.Spec
	// Files are what is built: the main file (the student's, a solution,
	// a file handed in) first, under the exercise's name for it, then
	// the spec's other files.
	Files []File
	// Dir is the workspace of a Plain run: the program and the
	// sanitizers' logs are kept there (the statistics record comes over
	// a pipe). The Sandbox uses folders of its own.
	Dir string
	// Root, when set, is the folder Dir lies in (the course's): Dir is
	// then made with no link on its way from Root, since a course can
	// commit .lessons/check/ID as a link to a folder the build would
	// empty and write into.
	Root string
	// Hash tells builds of different files apart in the Sandbox's
	// folders (a hash of the files); it may be empty for Plain.
	Hash string
	// Env is added to the environment of the program's runs
	// (CUDA_DEVICE_MAX_CONNECTIONS).
	Env []string
	// Before are the records of the runs made before this one, by run
	// name: RunAll and Kill set them, for the spec's relative_to checks.
	Before map[string]*checker.Stats
	// RunOrder, when set, is the order Kill makes the runs in (the
	// names of Spec.Runs(), each once; nil: the spec's order, the public
	// run first). A run whose checks compare it with a baseline run
	// (relative_to) still comes after that baseline.
	RunOrder []string
	// Trace asks the statistics library for a trace of the run
	// (LESSONS_STATS_TRACE), kept in the verdict (internal/timeline reads
	// it).
	Trace bool
}

// Built is a build's outcome.
type Built struct {
	// Prog is the program, when it built.
	Prog string
	// Failed is the failed "compiles" check, when it did not.
	Failed []checker.Result
	// Log is what the compiler printed.
	Log  string
	Took time.Duration
}

// Verdict is a judged run.
type Verdict struct {
	Results []checker.Result
	// Output is what the program printed (stdout and stderr).
	Output string
	// Outputs are what each run printed, by run name ("" the public
	// run), for RunAll's verdicts.
	Outputs map[string]string
	// Took is how long the program ran (the sanitizers' runs not counted).
	Took time.Duration
	// Started counts the programs started for it: each run, and each
	// run under a sanitizer.
	Started int
	// Killed says that Kill stopped at a failed check, and KilledOn on
	// which run it failed ("" the public run).
	Killed   bool
	KilledOn string
	// Stalled says, for a run stopped at its time limit while one of its
	// threads waited in the GPU's driver (runner.InDriver), why it was
	// stopped: perhaps the machine's hang (a lock its neighbours held),
	// not the program's, and worth a run alone. "" otherwise.
	Stalled string
	// stopped says why the run was stopped at a limit (its time, its
	// output), when it was.
	stopped string
	// Unwitnessed says why the statistics record of a run was not
	// compared with what the kernel counted of its CUDA calls from
	// outside the program (no outside witness here, a Python script's
	// run); "" when every run's was. A record not witnessed is the
	// program's own word: code in its process can forge it.
	Unwitnessed string
	// stats is the run's record, when it had one it could trust.
	stats *checker.Stats
	// Trace is the run's trace events (Job.Trace), when its record could
	// be trusted: internal/timeline.Parse reads them.
	Trace []byte
}

// Passed reports whether every check passed.
func (v *Verdict) Passed() bool { return checker.Passed(v.Results) && len(v.Results) > 0 }

// Runner is where a job's build and runs happen. Plain runs them as the
// user, in the job's workspace; Sandbox in the grading sandbox.
type Runner interface {
	// build prepares the folder of a build of j: the files written (or,
	// for a lone file that can be built where it is, its path), and
	// says how nvcc is run there.
	build(ctx context.Context, tk *Toolkit, j *Job, slot int) (*buildPlace, error)
	// run prepares the folder of a run of prog.
	run(ctx context.Context, tk *Toolkit, j *Job, prog, device string, slot int) (*runPlace, error)
}

// buildPlace is where and how one build happens.
type buildPlace struct {
	dir     string
	sources []string // nvcc's inputs, relative to dir or absolute
	prog    string   // the program nvcc writes
	env     []string // nil: the grader's own
	runner  runner.Runner
	// failed recognises a failure of the place itself (the sandbox could
	// not start nvcc) in the compiler's log.
	failed func(log []byte) error
	done   func()
}

// runPlace is where and how one run happens.
type runPlace struct {
	dir, prog, lib string
	// interp, for a script, is what runs prog (python3).
	interp []string
	env    []string // the program's environment, without the preload
	runner runner.Runner
	// sanitizer runs compute-sanitizer; unable, when set, says why it
	// cannot run here.
	sanitizer runner.Runner
	unable    string
	// logs, when set, is where compute-sanitizer writes its logs, out of
	// the program's reach, and target what it starts the program through
	// (the sandbox's helper); the log is then the only word taken.
	logs   string
	target []string
	// failed recognises a failure of the place in what the program printed.
	failed func(res *runner.Result, out []byte) error
	done   func()
}

// Build builds j's files with the shared runtime, through the compile
// cache. A compile error is a failed "compiles" check, not an error: an
// error means a tool or the machine failed.
func Build(ctx context.Context, tk *Toolkit, r Runner, j *Job, slot int) (*Built, error) {
	start := time.Now()
	p, err := r.build(ctx, tk, j, slot)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", j.ID, err)
	}
	if p.done != nil {
		defer p.done()
	}
	if isPython(j) {
		// Nothing to build: the script itself is the program, and a
		// syntax error is the run's traceback.
		return &Built{Prog: pythonProg(p, j), Took: time.Since(start)}, nil
	}
	args := append([]string{"-cudart", "shared"}, j.Spec.Flags...)
	args = append(args, "-o", p.prog)
	args = append(args, p.sources...)
	var log bytes.Buffer
	limit := tk.buildLimit()
	b, err := tk.Cache.Build(ctx, limited{p.runner, limit, maxOutput}, tk.compiler(), args, p.dir, p.env, &log)
	if err == nil && !b.Hit && !b.Run.OK() && diskShort(p.dir) == "" && saysNoSpace(log.String()) {
		// The log says the disk was full and the file system says it
		// is not: the log is a hint, which the student's file can write
		// (#error No space left on device), never a verdict. A second
		// build decides: the file system is read again after it.
		log.Reset()
		b, err = tk.Cache.Build(ctx, limited{p.runner, limit, maxOutput}, tk.compiler(), args, p.dir, p.env, &log)
	}
	took := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", j.ID, err)
	}
	prog := p.prog
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(p.dir, prog)
	}
	out := &Built{Log: log.String(), Took: took}
	if b.Hit || b.Run.OK() {
		out.Prog = prog
		return out, nil
	}
	if p.failed != nil {
		if err := p.failed(log.Bytes()); err != nil {
			return nil, err
		}
	}
	if err := diskFull(p.dir); err != nil {
		return nil, fmt.Errorf("build %s: %w", j.ID, err)
	}
	out.Failed = compileFailure(log.String(), b.Run, limit)
	return out, nil
}

// compileFailure is the failed "compiles" check of a build that failed:
// the build stopped at one of its limits, the compiler's first error at
// its place, or how nvcc ended.
func compileFailure(log string, run *runner.Result, limit time.Duration) []checker.Result {
	got := "nvcc failed: " + run.Reason(0, 0)
	switch {
	case run.TimedOut:
		got = fmt.Sprintf("the build was stopped after %s, its time limit: nvcc was still at work (a template that never stops growing, or an #include of a file that never ends?)", limit)
	case run.Truncated:
		got = fmt.Sprintf("the build was stopped: nvcc printed more than %d bytes (an error repeated without end?)", maxOutput)
	case run.OutOfMemory:
		got = "the build was stopped: nvcc used more memory than a build may (a template that never stops growing?)"
	default:
		if loc, msg := notebook.FirstCompileError(log); msg != "" {
			got = fmt.Sprintf("compile error at %s: %s", loc, msg)
		}
	}
	return []checker.Result{{Name: "compiles", Want: "the file to compile", Got: got}}
}

// DefaultBuildLimit is the wall-clock limit of one build: a 240-line
// exercise builds in under 2 s on the H100 (GPU.md), so this is room for a
// machine busy with a class's builds, not for nvcc at work on something
// that never ends.
const DefaultBuildLimit = 2 * time.Minute

func (tk *Toolkit) buildLimit() time.Duration {
	if tk.BuildLimit > 0 {
		return tk.BuildLimit
	}
	return DefaultBuildLimit
}

// limited gives every program r runs a wall-clock limit and an output cap
// where its spec has none: a build's nvcc, which the cache starts.
type limited struct {
	r         runner.Runner
	timeout   time.Duration
	maxOutput int64
}

func (l limited) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	if spec.Timeout == 0 {
		spec.Timeout = l.timeout
	}
	if spec.MaxOutput == 0 {
		spec.MaxOutput = l.maxOutput
	}
	return l.r.Run(ctx, spec, out)
}

// Run runs a built program with the statistics library preloaded, then
// under each compute-sanitizer tool the spec asks for, and judges the
// runs. device, when set, is the GPU (CUDA_VISIBLE_DEVICES) it runs on.
func Run(ctx context.Context, tk *Toolkit, r Runner, j *Job, prog, device string, slot int) (*Verdict, error) {
	lib, err := tk.StatsLibrary(ctx)
	if err != nil {
		return nil, err
	}
	var interp []string
	if isPython(j) {
		py, err := tk.python(ctx)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", j.ID, err)
		}
		interp = []string{py}
	}
	// The program is read as it was built, before it runs: the copy it
	// runs from is in its own folder, and it could put another file there.
	// A script's program is the machine's interpreter, not the student's:
	// it is not inspected (Debian's python3 defines environ, which the
	// C runtime imports, and would be refused as an interposer).
	found := ""
	if interp == nil {
		found = inspect(prog, lib, tk.Cache.Dir)
	}
	p, err := r.run(ctx, tk, j, prog, device, slot)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", j.ID, err)
	}
	if p.done != nil {
		defer p.done()
	}
	p.interp = interp
	if interp != nil && p.prog != prog {
		// A run in a folder of its own (the Sandbox's) gets the script
		// under its name with the exercise's other files beside it, for
		// its imports.
		if err := writeFiles(p.dir, j.Files); err != nil {
			return nil, fmt.Errorf("run %s: %w", j.ID, err)
		}
		p.prog = filepath.Join(p.dir, j.Files[0].Name)
	}
	// The spec's environment (its run's, for a hidden run) reaches the
	// program and its sanitizer runs alike.
	p.env = append(p.env[:len(p.env):len(p.env)], j.Spec.Environ()...)
	if p.lib != "" {
		if err := copyFile(lib, p.lib, 0o644); err != nil {
			return nil, fmt.Errorf("run %s: %w", j.ID, err)
		}
		lib = p.lib
	}
	// The record comes over a pipe, signed with a key made for this run
	// (kernels/allocstats.cu, checker/record.go).
	stats, err := checker.OpenPipe()
	if err != nil {
		return nil, fmt.Errorf("run %s: the statistics record's channel: %w", j.ID, err)
	}
	env := append(append(append([]string{}, p.env...), "LD_PRELOAD="+lib), stats.Env()...)
	if j.Trace {
		env = append(env, "LESSONS_STATS_TRACE=1")
	}
	// A run that starts a program is not trusted (startedPrograms), a
	// Python script's as a compiled program's; the library fails the
	// record of one started by a process it does not follow, whose count
	// no frame would send.
	env = append(env, "LESSONS_STATS_NOEXEC=1")
	// Nor writes code, in the plain runner as in the sandbox: the
	// library's filter refuses memory made executable after it was mapped,
	// and a file's code mapped writable or shared, where the kernel puts
	// no breakpoint of the witness's uprobes (remap_probe.cu of the
	// corpus). $LESSONS_SANDBOX_WX=off lifts it with the sandbox's rule.
	if os.Getenv("LESSONS_SANDBOX_WX") != "off" {
		env = append(env, "LESSONS_STATS_NOWX=1")
	}
	// No thread of a judged run has a restartable sequence area (glibc's
	// own turned off, the program's refused by the library).
	env = withoutRseq(env)
	if f := j.Spec.Failures(); f != "" {
		env = append(env, "LESSONS_STATS_FAIL="+f)
	}
	if h := j.Spec.DeviceHeap(); h > 0 {
		env = append(env, "LESSONS_STATS_HEAP="+strconv.FormatInt(h, 10))
	}
	if d := j.Spec.IPCRecordDelay(); d > 0 {
		env = append(env, "LESSONS_STATS_IPC_DELAY="+strconv.Itoa(d))
	}
	// Set in every run, 0 or 1: the library wipes each variable it
	// takes, and a block of zeros only the hidden run had (its length
	// in the environment's strings) told that run from the others
	// (attack19).
	env = append(env, "LESSONS_STATS_SETTLED_QUERIES="+bit(j.Spec.SettledQueries()))
	env = append(env, "LESSONS_STATS_PENDING_QUERIES="+bit(j.Spec.PendingQueries()))
	var out bytes.Buffer
	drv := tk.watchDriver()
	defer drv.view()
	wit := tk.watchWitness(prog, p.interp)
	if wit != nil {
		wit.settled = j.Spec.SettledQueries()
		if f := j.Spec.Failures(); f != "" {
			wit.fails = strings.Split(f, ",")
		}
	}
	defer wit.view(nil)
	res, err := p.runner.Run(ctx, runner.Spec{
		Argv: append(append(p.interp[:len(p.interp):len(p.interp)], p.prog), j.Spec.Args...), Dir: p.dir, Env: env,
		Timeout: j.Spec.TimeLimit(), MaxOutput: maxOutput, ExtraFiles: []*os.File{stats.W},
		Started: drv.started, Cgroup: wit.cgroup(), Grouped: wit.grouped,
	}, &out)
	rec, recErr := stats.Finish(drainGrace)
	view := drv.view()
	if wit != nil && res != nil {
		wit.stopped = ended(res)
	}
	kernel := wit.view(rec)
	if kernel != nil && wit.stopped {
		kernel.Snapshot = true
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", j.ID, err)
	}
	if p.failed != nil {
		if err := p.failed(res, out.Bytes()); err != nil {
			return nil, err
		}
	}
	if !res.OK() {
		if err := runDiskFull(p.dir); err != nil {
			return nil, fmt.Errorf("run %s: %w", j.ID, err)
		}
	}
	// The sanitizers run without the statistics library: both intercept
	// CUDA's calls. They run the program as it was built, copied afresh:
	// the run could have replaced the copy in its folder. In the
	// sandbox, in a folder emptied of what the run left: the tool keeps
	// files there (its TMPDIR), and one whose place was taken would end
	// without a summary, read as the tool not working here.
	if p.logs != "" && len(j.Spec.SanitizerTools()) > 0 && !ended(res) {
		if err := emptyFolder(p.dir); err != nil {
			return nil, fmt.Errorf("run %s: emptying the run's folder for compute-sanitizer: %w", j.ID, err)
		}
	}
	if p.interp != nil && p.prog != prog {
		if err := writeFiles(p.dir, j.Files); err != nil {
			p.unable = "the script could not be written again for compute-sanitizer: " + err.Error()
		}
	} else if p.prog != prog {
		if err := copyFile(prog, p.prog, 0o755); err != nil {
			p.unable = "the program's copy could not be made again for compute-sanitizer: " + err.Error()
		}
	}
	san, sanStalled, sanStarted := sanitize(ctx, tk, p, j.Spec, res)
	run := &checker.Run{Output: out.String(), ExitCode: res.ExitCode, Sanitizers: san, Driver: view, Witness: kernel}
	if ended(res) {
		run.Ended = res.Reason(j.Spec.TimeLimit(), maxOutput)
	}
	if found == "" && recErr == nil {
		found = startedPrograms(rec)
	}
	if found == "" && recErr == nil {
		found = forkedWork(j.Spec, rec)
	}
	trust(run, rec, recErr, ended(res), found)
	run.Before = j.Before
	v := &Verdict{Results: j.Spec.Judge(run), Output: out.String(), Took: res.Duration, Started: 1 + sanStarted,
		Unwitnessed: wit.unwitnessed(tk, kernel)}
	logWitness(j, wit, rec, v.Results, v.Unwitnessed)
	if run.Untrusted == "" {
		v.stats = run.Stats
		if rec != nil {
			v.Trace = rec.Trace
		}
	}
	if res.TimedOut || res.Truncated {
		v.stopped = res.Reason(j.Spec.TimeLimit(), maxOutput)
	}
	if res.TimedOut && res.InDriver {
		v.Stalled = v.stopped
	} else if sanStalled != "" {
		v.Stalled = sanStalled
	}
	return v, nil
}

// Check builds j and judges a run of it: the whole pipeline for one file.
// The compiler's log goes to log when the build fails.
func Check(ctx context.Context, tk *Toolkit, r Runner, j *Job, log io.Writer) (*Verdict, error) {
	b, err := Build(ctx, tk, r, j, 0)
	if err != nil {
		return nil, err
	}
	if b.Failed != nil {
		if log != nil {
			io.WriteString(log, b.Log)
		}
		return &Verdict{Results: b.Failed}, nil
	}
	return Run(ctx, tk, r, j, b.Prog, "", 0)
}

// ended tells whether a run was stopped instead of ending by itself.
func ended(res *runner.Result) bool {
	return res.Signal != 0 || res.TimedOut || res.Truncated || res.Canceled
}

// emptyFolder removes everything in dir, never following a link.
func emptyFolder(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// copyFile puts a fresh copy of from at to with mode, whatever is at to
// now (a link, another file, a folder a run left in its own folder): it is
// removed, never followed, and the copy is made anew.
func copyFile(from, to string, mode os.FileMode) error {
	if err := os.RemoveAll(to); err != nil {
		return err
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bit is "1" for true, "0" for false.
func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
