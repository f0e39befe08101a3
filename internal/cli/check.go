package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/kernels"
)

// CheckOptions are the inputs of lessons check.
type CheckOptions struct {
	IO       *IOStreams
	g        *globals
	Exercise string
	Verbose  bool
	// File is checked in place of the exercise's student file.
	File string
}

func newCheck(io *IOStreams, g *globals) *cobra.Command {
	opts := &CheckOptions{IO: io, g: g}
	cmd := &cobra.Command{
		Use:   "check [EXERCISE]",
		Short: "Check an exercise: am I done?",
		Long: `Build and run an exercise's file, then judge the run against the exercise's
checks: what it prints, how it exits, and what it did with the CUDA allocator
(recorded from outside the program, by a library preloaded into it).

Without EXERCISE, the first exercise not yet passed. Exits 0 when every check
passes, 1 when one fails, 2 when the exercise could not be checked (no nvcc,
no GPU, a bad spec).`,
		Example: "  lessons check\n  lessons check async-pipeline\n  lessons check async-pipeline -v   # show the program's output too",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("check takes at most one exercise")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Exercise = args[0]
			}
			return checkRun(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "show the program's output")
	cmd.Flags().StringVar(&opts.File, "file", "", "check `PATH` against the exercise's checks, instead of its file (progress is not saved)")
	return cmd
}

// nextUnpassed is the first exercise after the one named after (from the
// start when after is ""), wrapping around, that is not passed; ok is false
// when every other exercise is passed.
func nextUnpassed(c *course.Course, p *Progress, after string) (string, bool) {
	at := -1
	for i, x := range c.Exercises {
		if x.ID == after {
			at = i
		}
	}
	n := len(c.Exercises)
	for k := 1; k <= n; k++ {
		x := c.Exercises[(at+k+n)%n]
		if _, done := p.Passed[x.ID]; !done && x.ID != after {
			return x.ID, true
		}
	}
	return "", false
}

// Progress is what the student has passed, kept in .lessons/progress.json.
type Progress struct {
	Passed map[string]time.Time `json:"passed"`
}

func progressFile(c *course.Course) string { return filepath.Join(c.Root, ".lessons", "progress.json") }

func loadProgress(c *course.Course) *Progress {
	p := &Progress{Passed: map[string]time.Time{}}
	if data, err := os.ReadFile(progressFile(c)); err == nil {
		_ = json.Unmarshal(data, p)
	}
	if p.Passed == nil {
		p.Passed = map[string]time.Time{}
	}
	return p
}

func (p *Progress) save(c *course.Course) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	file := progressFile(c)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return writeAtomic(file, data)
}

func checkRun(opts *CheckOptions) error {
	c, err := opts.g.course()
	if err != nil {
		return err
	}
	progress := loadProgress(c)
	var x *course.Exercise
	if opts.Exercise != "" {
		if x, err = c.Exercise(opts.Exercise); err != nil {
			return err
		}
	} else {
		id, ok := nextUnpassed(c, progress, "")
		if !ok {
			fmt.Fprintf(opts.IO.Out, "Every exercise of %s is passed. Check one again with lessons check ID.\n", c.Title)
			return nil
		}
		x, _ = c.Exercise(id)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := checkMachine(ctx, "check")
	if err != nil {
		return err
	}
	src, dirs := c.Path(x.Student), []string{filepath.Dir(c.Path(x.Student))}
	if opts.File != "" {
		if src, err = filepath.Abs(opts.File); err != nil {
			return err
		}
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("%s: %w", opts.File, err)
		}
		// The exercise's other files: beside the file named, else the exercise's.
		dirs = append([]string{filepath.Dir(src)}, dirs...)
	}
	passed, err := checkOne(ctx, opts.IO, c, m, x, src, dirs, opts.Verbose, opts.File == "")
	if err != nil {
		return err
	}
	if passed && opts.File != "" {
		fmt.Fprintf(opts.IO.Out, "\n%s passes every check of %s.\n", opts.File, x.ID)
	}
	if !passed {
		return errSilent
	}
	return nil
}

// checkMachine finds nvcc and the GPU that a check needs.
// checkMachine finds nvcc and a GPU for the command named cmd (check,
// watch, grade), which its errors name.
func checkMachine(ctx context.Context, cmd string) (*machine, error) {
	m, err := findMachine(ctx, "")
	if err != nil {
		return nil, toolMissing(fmt.Errorf("lessons %s needs nvcc to build the exercise: %w", cmd, err))
	}
	if m.gpuErr != nil {
		return nil, toolMissing(fmt.Errorf("lessons %s runs the exercise, which needs a GPU: %v", cmd, m.gpuErr))
	}
	return m, nil
}

// loadSpec loads an exercise's checks, from the .toml beside its file,
// and makes sure that its files are there and that something compiles.
func loadSpec(c *course.Course, x *course.Exercise) (*checker.Spec, error) {
	spec, err := checker.LoadSpec(c.Path(x.Spec()))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("exercise %s has no checks: write %s beside its file", x.ID, x.Spec())
	}
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(c.Path(x.Student))
	var errs lesson.Errors
	for _, f := range spec.Files {
		if !fileExists(filepath.Join(dir, f)) {
			errs = append(errs, &lesson.Error{File: spec.File, Line: spec.FilesLine,
				Msg: fmt.Sprintf("%s names %s, which is not in %s", x.ID, f, filepath.Dir(x.Student)),
				Fix: "put the file beside " + filepath.Base(x.Student) + " or take it out of files"})
		}
	}
	if len(spec.Sources(filepath.Base(x.Student))) == 0 {
		errs = append(errs, &lesson.Error{File: spec.File, Line: max(spec.FilesLine, 1),
			Msg: fmt.Sprintf("%s has nothing to compile: %s is not a .cu, .cpp or .c file and files names none", x.ID, filepath.Base(x.Student)),
			Fix: "name the .cu file that holds main() in files"})
	}
	return spec, errs.Err()
}

// srcFile is one file of a build of an exercise: its name in the build
// (as the exercise names it) and where it is read from.
type srcFile struct{ Name, Path string }

// exerciseFiles are the files of a build of exercise x: main (the
// student's file, a solution, or a file named by --file) under the name of
// the exercise's file, then each of the spec's files, read from the first
// of dirs that holds it.
func exerciseFiles(x *course.Exercise, spec *checker.Spec, main string, dirs ...string) []srcFile {
	files := []srcFile{{Name: filepath.Base(x.Student), Path: main}}
	for _, f := range spec.Files {
		name := filepath.Clean(f)
		p := filepath.Join(dirs[len(dirs)-1], name)
		for _, d := range dirs {
			if fileExists(filepath.Join(d, name)) {
				p = filepath.Join(d, name)
				break
			}
		}
		files = append(files, srcFile{Name: name, Path: p})
	}
	return files
}

// specOf is loadSpec for check and watch, where a spec that cannot be read
// means the exercise cannot be checked (exit 2).
func specOf(c *course.Course, x *course.Exercise) (*checker.Spec, error) {
	spec, err := loadSpec(c, x)
	if err != nil {
		return nil, toolMissing(err)
	}
	return spec, nil
}

// checkOne checks src against exercise x, prints each check and the hints
// of the failed ones, and saves the progress when it passes and save is set.
func checkOne(ctx context.Context, ios *IOStreams, c *course.Course, m *machine, x *course.Exercise, src string, dirs []string, verbose, save bool) (bool, error) {
	spec, err := specOf(c, x)
	if err != nil {
		return false, err
	}
	out := ios.Out
	ws := filepath.Join(c.Root, ".lessons", "check", x.ID)
	fmt.Fprintf(out, "Checking %s (%s)\n\n", x.ID, strings.TrimPrefix(src, c.Root+string(filepath.Separator)))
	res, err := judgeExercise(ctx, m, spec, exerciseFiles(x, spec, src, dirs...), ws, verbose, out)
	if err != nil {
		return false, err
	}
	if ctx.Err() != nil {
		return false, ctx.Err() // stopped half way: its verdict means nothing
	}
	var hints []string
	for _, r := range res {
		pts := "" // with partial credit, what each check is worth
		if r.Check != nil && r.Check.Points > 0 {
			pts = " (" + count(r.Check.Points, "point") + ")"
			if !r.Pass {
				pts = " (0 of " + count(r.Check.Points, "point") + ")"
			}
		}
		if r.Skipped {
			fmt.Fprintf(out, "  %s %s (%s)%s\n", style(ios, "33", "–"), r.Name, r.Got, pts)
			continue
		}
		if r.Pass {
			fmt.Fprintf(out, "  %s %s%s\n", style(ios, "32", "✓"), r.Name, pts)
			continue
		}
		fmt.Fprintf(out, "  %s %s%s\n      expected: %s\n      got:      %s\n", style(ios, "31", "✗"), r.Name, pts, r.Want, r.Got)
		if r.Check != nil && r.Check.Hint != "" {
			hints = append(hints, r.Check.Hint)
		}
	}
	if !checker.Passed(res) {
		if spec.Partial() {
			fmt.Fprintf(out, "\n%d of %d points so far.\n", spec.Score(res), spec.Points)
		}
		if x.Hint != "" {
			hints = append(hints, x.Hint)
		}
		if len(hints) > 0 {
			fmt.Fprintf(out, "\nhint: %s\n", strings.Join(hints, "\n      "))
		}
		return false, nil
	}
	if !save {
		return true, nil
	}
	progress := loadProgress(c)
	progress.Passed[x.ID] = time.Now().UTC()
	if err := progress.save(c); err != nil {
		return true, err
	}
	fmt.Fprintf(out, "\n%s passed (%d points). %d of %d exercises passed.\n", x.ID, spec.Points, len(progress.Passed), len(c.Exercises))
	return true, nil
}

func style(io *IOStreams, sgr, s string) string {
	if !io.Color() {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// judgeExercise builds a file of an exercise and judges a run of it.
func judgeExercise(ctx context.Context, m *machine, spec *checker.Spec, files []srcFile, ws string, verbose bool, out io.Writer) ([]checker.Result, error) {
	prog, failed, err := buildExercise(ctx, m, spec, files, ws, out)
	if err != nil || failed != nil {
		return failed, err
	}
	return runExercise(ctx, m, spec, prog, ws, verbose, out)
}

// writeInto writes data to dir/name, making name's folders.
func writeInto(dir, name string, data []byte) error {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// buildExercise builds an exercise's files with the shared runtime (so
// that the statistics library sees its calls). A lone file is built where
// it is; the files of a multi-file exercise are copied into ws/src first,
// under the names the exercise gives them. A compile error comes back as
// a failed "compiles" check.
func buildExercise(ctx context.Context, m *machine, spec *checker.Spec, files []srcFile, ws string, out io.Writer) (string, []checker.Result, error) {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", nil, err
	}
	// The statistics library is built by the first run that needs it, so
	// that cold builds of exercises do not wait for it.
	comp := m.compiler()
	prog := filepath.Join(ws, "prog")
	args := append([]string{"-cudart", "shared"}, spec.Flags...)
	args = append(args, "-o", prog)
	dir := ws
	if len(files) == 1 {
		args = append(args, files[0].Path)
	} else {
		dir = filepath.Join(ws, "src")
		os.RemoveAll(dir)
		for _, f := range files {
			data, err := os.ReadFile(f.Path)
			if err != nil {
				return "", nil, err
			}
			if err := writeInto(dir, f.Name, data); err != nil {
				return "", nil, err
			}
		}
		args = append(args, spec.Sources(files[0].Name)...)
	}
	var buildLog bytes.Buffer
	b, err := m.cache.Build(ctx, runner.Exec{}, comp, args, dir, nil, &buildLog)
	if err != nil {
		return "", nil, err
	}
	if b.Hit || b.Run.OK() {
		return prog, nil, nil
	}
	out.Write(buildLog.Bytes())
	return "", compileFailure(buildLog.String(), b.Run), nil
}

// compileFailure is the failed "compiles" check of a build that failed:
// the compiler's first error at its place, or how nvcc ended.
func compileFailure(log string, run *runner.Result) []checker.Result {
	got := "nvcc failed: " + run.Reason(0, 0)
	if loc, msg := notebook.FirstCompileError(log); msg != "" {
		got = fmt.Sprintf("compile error at %s: %s", loc, msg)
	}
	return []checker.Result{{Name: "compiles", Want: "the file to compile", Got: got}}
}

// judgeRun judges a finished run of a program: its output, how it ended,
// and the statistics record the preloaded library left in statsFile.
func judgeRun(spec *checker.Spec, res *runner.Result, output, statsFile string, maxOut int64, san map[string]*checker.SanitizerReport) []checker.Result {
	run := &checker.Run{Output: output, ExitCode: res.ExitCode, Sanitizers: san}
	if ended(res) {
		run.Ended = res.Reason(spec.TimeLimit(), maxOut)
	}
	run.Stats, _ = checker.ReadStats(statsFile)
	return spec.Judge(run)
}

// ended tells whether a run was stopped instead of ending by itself.
func ended(res *runner.Result) bool {
	return res.Signal != 0 || res.TimedOut || res.Truncated || res.Canceled
}

// sanitizerPath is $LESSONS_SANITIZER ("none" for none), else
// compute-sanitizer beside nvcc, else on the PATH; "" when there is none.
func (m *machine) sanitizerPath() string {
	switch p := os.Getenv("LESSONS_SANITIZER"); p {
	case "none", "off":
		return ""
	case "":
	default:
		return p
	}
	if p := filepath.Join(filepath.Dir(m.nvcc.Path), "compute-sanitizer"); fileExists(p) {
		return p
	}
	p, _ := exec.LookPath("compute-sanitizer")
	return p
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// sanitize runs prog under each compute-sanitizer tool the spec asks for,
// with r in dir, and reads each tool's log. main is how the plain run
// ended: a run that did not end by itself is not run again. A non-empty
// unable says why the caller cannot let the tool run: every tool is
// skipped with it.
func sanitize(ctx context.Context, m *machine, r runner.Runner, spec *checker.Spec, main *runner.Result, prog, dir string, env []string, unable string) map[string]*checker.SanitizerReport {
	tools := spec.SanitizerTools()
	if len(tools) == 0 {
		return nil
	}
	out := map[string]*checker.SanitizerReport{}
	cs := m.sanitizerPath()
	for _, tool := range tools {
		rep := &checker.SanitizerReport{Tool: tool}
		out[tool] = rep
		switch {
		case cs == "":
			rep.Skipped = "compute-sanitizer is not installed (it comes with the CUDA toolkit)"
			continue
		case unable != "":
			rep.Skipped = unable
			continue
		case ended(main):
			rep.Skipped = "the program did not end by itself"
			continue
		}
		logFile := filepath.Join(dir, "sanitizer-"+tool+".log")
		os.Remove(logFile)
		argv := []string{cs, "--tool", tool, "--log-file", logFile, "--print-limit", "20"}
		if tool == "memcheck" {
			argv = append(argv, "--leak-check", "full")
		}
		argv = append(append(argv, prog), spec.Args...)
		// A sanitizer slows the program down several times.
		limit := 4 * spec.TimeLimit()
		var printed bytes.Buffer
		res, err := r.Run(ctx, runner.Spec{Argv: argv, Dir: dir, Env: env, Timeout: limit, MaxOutput: 1 << 20}, &printed)
		if err != nil {
			rep.Skipped = "compute-sanitizer could not start: " + err.Error()
			continue
		}
		log, err := os.ReadFile(logFile)
		if err != nil {
			// No log: what it printed (its own errors start "=========").
			log = printed.Bytes()
		}
		*rep = *checker.ParseSanitizer(tool, log)
		switch {
		case ended(res):
			rep.Ended = res.Reason(limit, 1<<20)
		case !rep.Summary:
			// It ended by itself without a summary: the tool, not the
			// program, failed ("Unable to find injection library").
			rep.Skipped = "compute-sanitizer did not work here"
			if rep.First != "" {
				rep.Skipped += ": " + strings.TrimPrefix(rep.First, "Error: ")
			} else {
				rep.Skipped += " (" + res.Reason(limit, 1<<20) + ")"
			}
		}
	}
	return out
}

// runExercise runs a built exercise with the statistics library preloaded
// and judges the run.
func runExercise(ctx context.Context, m *machine, spec *checker.Spec, prog, ws string, verbose bool, out io.Writer) ([]checker.Result, error) {
	lib, err := statsLibrary(ctx, m)
	if err != nil {
		return nil, err
	}
	statsFile := filepath.Join(ws, "stats.bin")
	os.Remove(statsFile)
	var output bytes.Buffer
	env := append(os.Environ(), "LD_PRELOAD="+lib, "LESSONS_STATS="+statsFile)
	env = append(env, m.runEnv()...)
	res, err := runner.Exec{}.Run(ctx, runner.Spec{
		Argv: append([]string{prog}, spec.Args...), Dir: ws, Env: env,
		Timeout: spec.TimeLimit(), MaxOutput: 1 << 20,
	}, &output)
	if err != nil {
		return nil, err
	}
	if verbose {
		out.Write(output.Bytes())
		fmt.Fprintln(out)
	}
	// The sanitizer runs without the statistics library: both intercept
	// CUDA's calls.
	san := sanitize(ctx, m, runner.Exec{}, spec, res, prog, ws, append(os.Environ(), m.runEnv()...), "")
	return judgeRun(spec, res, output.String(), statsFile, 1<<20, san), nil
}

// statsLibrary builds kernels/allocstats.cu (through the cache), once per
// process, and returns the library's path.
func statsLibrary(ctx context.Context, m *machine) (string, error) {
	m.libOnce.Do(func() { m.lib, m.libErr = buildStatsLibrary(ctx, m) })
	return m.lib, m.libErr
}

// buildStatsLibrary builds the library for the host alone: no -arch.
func buildStatsLibrary(ctx context.Context, m *machine) (string, error) {
	comp := buildcache.Compiler{Path: m.nvcc.Path, Version: m.nvcc.Version}
	dir := filepath.Join(m.cache.Dir, "kernels")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(dir, "allocstats.cu")
	if old, err := os.ReadFile(src); err != nil || !bytes.Equal(old, kernels.AllocStats) {
		if err := writeAtomic(src, kernels.AllocStats); err != nil {
			return "", err
		}
	}
	lib := filepath.Join(dir, "liballocstats.so")
	var log bytes.Buffer
	b, err := m.cache.Build(ctx, runner.Exec{}, comp,
		[]string{"-x", "c++", "-shared", "-Xcompiler", "-fPIC", "-cudart", "none", "-o", lib, src}, dir, nil, &log)
	if err != nil {
		return "", err
	}
	if !b.Hit && !b.Run.OK() {
		return "", toolMissing(fmt.Errorf("building the statistics library failed:\n%s", log.String()))
	}
	return lib, nil
}
