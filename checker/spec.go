package checker

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cudalessons/lessons/diag"

	"golang.org/x/sys/unix"
)

// Spec is an exercise's spec: how to build and run it, and its checks.
// It lives beside the student's file, with the extension .toml.
type Spec struct {
	File string `toml:"-"`
	// Points are what the exercise is worth: all of them when every check
	// passes, or the sum of its checks' points when they have their own.
	Points int `toml:"points"`
	// Timeout is the run's time limit, a Go duration ("30s", the default).
	Timeout string `toml:"timeout"`
	// Flags are extra nvcc flags (["-lcuda"] for the driver API).
	Flags []string `toml:"flags"`
	// Args are the program's arguments in the public run.
	Args []string `toml:"args"`
	// Files are the exercise's other files (headers, more .cu files),
	// named from the folder of the student's file. Every .cu, .cpp, .cc
	// and .c among them is compiled with it.
	Files []string `toml:"files"`
	// Fixed names files among Files that are always the exercise's own:
	// a grade ignores a student's copy (a timed exercise's harness, with
	// the baseline it is measured against).
	Fixed []string `toml:"fixed"`
	// Timed says that a check compares timings: when a class is graded
	// or the course verified with several runs at once on a GPU, this
	// exercise's runs have their GPU to themselves.
	Timed bool `toml:"timed"`
	// GPUs is how many GPUs, able to reach each other's memory, one run
	// needs (0 or 1: one). A run is given that many; where the machine
	// has fewer, it is not made and says so (never a pass).
	GPUs int `toml:"gpus"`
	// Checks are the [[check]] tables, judged in order.
	Checks []Check `toml:"check"`
	// Env is added to the program's environment (a hidden run adds its
	// own).
	Env map[string]string `toml:"env"`
	// HiddenRuns are more runs with their own arguments and environment,
	// made in grade and verify only.
	HiddenRuns []HiddenRun `toml:"hidden_run"`
	// EquivalentMutants are mutants of the solution the author accepts as
	// no mistake, each with why.
	EquivalentMutants []Equivalent `toml:"equivalent_mutants"`

	// FilesLine is the line of files, for errors about them.
	FilesLine int `toml:"-"`
	timeout   time.Duration
	// run is the run this spec judges: "" for the public one, or a
	// hidden run's name (see ForRun).
	run string
	// fail is the hidden run's calls made to fail (HiddenRun.Fail), heap
	// its cap on the device heap (HiddenRun.DeviceHeap).
	fail     []string
	heap     int64
	ipcDelay int
	settled  bool
	pending  bool
	// arranged is the hidden run's Arranged: without it in the output,
	// the run's checks are skipped.
	arranged string
}

// Sanitizers are the tools of compute-sanitizer a check can ask for.
var Sanitizers = []string{"memcheck", "racecheck", "initcheck", "synccheck"}

// SanitizerTools are the tools the spec's checks ask for, in the order of
// their first check.
func (s *Spec) SanitizerTools() []string {
	var tools []string
	for _, c := range s.Checks {
		if c.Sanitizer != "" && c.Run == s.run && !slices.Contains(tools, c.Sanitizer) {
			tools = append(tools, c.Sanitizer)
		}
	}
	return tools
}

// Check is one [[check]] of a spec: exactly one of contains, not_contains,
// regex, exit, stat or sanitizer, with bounds for regex and stat.
type Check struct {
	// Name is what the student sees beside ✓ or ✗.
	Name string `toml:"name"`
	// Contains is text the output must contain.
	Contains string `toml:"contains"`
	// NotContains is text the output must not contain.
	NotContains string `toml:"not_contains"`
	// Regex must match the output; with bounds, its captured number is
	// compared with them.
	Regex string `toml:"regex"`
	// Group is the regex's captured group compared with the bounds (1 by
	// default).
	Group int `toml:"group"`
	// Exit is the exit status the program must end with.
	Exit *int `toml:"exit"`
	// Stat names a statistic of the run (docs/reference/statistics.md),
	// compared with the bounds.
	Stat string `toml:"stat"`
	// Sanitizer asks for a clean run under compute-sanitizer's tool of
	// that name (memcheck runs with its leak check), where it is installed.
	Sanitizer string `toml:"sanitizer"`

	// AtLeast is the least value the regex's number or the stat may have.
	AtLeast *float64 `toml:"at_least"`
	// AtMost is the most it may have.
	AtMost *float64 `toml:"at_most"`
	// Equals is the value it must have (within Within).
	Equals *float64 `toml:"equals"`
	// Within is the relative tolerance of equals and equal_to (0.001 is 0.1%).
	Within float64 `toml:"within"`
	// EqualTo names another statistic the value must equal.
	EqualTo string `toml:"equal_to"`
	// Unit is the size, in the statistic's own units, of the unit the
	// program printed its number in: with equal_to = "pool_used_high" and
	// unit = 1048576 the printed number is that statistic in MiB, whole
	// (rounded down or to the nearest) or within Within of it. A regex
	// check's only, with a statistic in bytes or milliseconds.
	Unit float64 `toml:"unit"`
	// RelativeTo names a hidden run made before this check's run (a
	// baseline): the stat compared with the bounds is then this run's
	// value divided by the same statistic of that run, so that at_most =
	// 1.2 on kernel_span_ms says "at most 20% slower than the baseline",
	// both measured by the statistics library.
	RelativeTo string `toml:"relative_to"`
	// EqualToGroup is another group of the same regex match that the
	// value must equal (within Within): `sum ([0-9.]+) \(expected ([0-9.]+)\)`
	// with equal_to_group = 2.
	EqualToGroup int `toml:"equal_to_group"`

	// Message says, in the student's words, what a failure means.
	Message string `toml:"message"`
	// Hint is shown under a failed check.
	Hint string `toml:"hint"`
	// Points are what the check earns when it passes, for partial credit:
	// a spec with points on its checks scores the sum of those that
	// passed (see Score).
	Points int `toml:"points"`
	// Hidden checks run in grade and verify, never in check or watch.
	Hidden bool `toml:"hidden"`
	// Run names the hidden run this check judges (such checks are hidden).
	Run string `toml:"run"`

	Line int `toml:"-"`
	re   *regexp.Regexp
	// Whole marks a hidden run's result that is no check of the spec's
	// (RunCheck): it fails the whole attempt, as a public run's does.
	// Exported, never read from a spec: a class server's pilot sends a
	// node's results back as JSON (pilot.Result), and the server scores
	// them; unexported, the mark was dropped on the way, and a hidden run
	// stopped or untrusted on a node cost the attempt nothing again.
	Whole bool `toml:"-" json:",omitempty"`
}

// RunCheck is the check a hidden run's result that is no check of the
// spec's gets (its run did not end by itself, its record was not trusted
// or the kernel's counts contradict it), named and hidden as the run's
// own checks are: it earns nothing, and its failure leaves the attempt no
// points (Score), as the public run's such failure does. Before round 24
// such a check was plain, and a hidden run's failure cost only its own
// points, none: a program that forged its record, or ran past its limit,
// on a hidden run kept every point its checks passed on that record.
func RunCheck(name, run string) *Check {
	return &Check{Name: name, Hidden: true, Run: run, Whole: true}
}

// TimeLimit is the run's time limit: the spec's, or 30 s.
func (s *Spec) TimeLimit() time.Duration {
	if s.timeout > 0 {
		return s.timeout
	}
	return 30 * time.Second
}

// MaxSpecBytes is the largest spec read: a course's file, which may be
// anything (a FIFO, a sparse file of terabytes).
const MaxSpecBytes = 1 << 20

// readSpec reads file if it is a regular file of at most MaxSpecBytes.
// It looks at what file is before it opens it for reading (O_PATH opens
// nothing of the file's own: a device's driver never sees it, a FIFO
// never waits), then reads that very file through /proc/self/fd. (The
// module's internal/regular does the same; this package imports nothing
// internal.)
func readSpec(file string) ([]byte, error) {
	p, err := os.OpenFile(file, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	st, err := p.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > MaxSpecBytes {
		what := "a file"
		switch m := st.Mode(); {
		case m&os.ModeNamedPipe != 0:
			what = "a FIFO"
		case m&os.ModeDevice != 0:
			what = "a device"
		case m&os.ModeSocket != 0:
			what = "a socket"
		case m.IsDir():
			what = "a folder"
		}
		return nil, fmt.Errorf("read %s: not a spec (a regular file of at most %d bytes; this is %s of %d bytes)", file, MaxSpecBytes, what, st.Size())
	}
	f, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", p.Fd()), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err == nil && len(data) > MaxSpecBytes {
		err = fmt.Errorf("read %s: grew past %d bytes while it was read", file, MaxSpecBytes)
	}
	return data, err
}

// LoadSpec reads and validates a spec file.
func LoadSpec(file string) (*Spec, error) {
	data, err := readSpec(file)
	if err != nil {
		return nil, err
	}
	return ParseSpec(file, data)
}

// ParseSpec reads a spec and rejects, with file and line, anything it
// cannot judge: an unknown key or statistic, a regex that does not compile,
// a bound on a check that has no figure, a check of no or several kinds.
func ParseSpec(file string, data []byte) (*Spec, error) {
	var s Spec
	if err := diag.DecodeTOML(file, data, &s, "a spec has points, timeout, flags, args, env, files, fixed, timed, gpus, [[check]], [[hidden_run]] and [[equivalent_mutants]] tables; a check takes name, contains, not_contains, regex, group, exit, stat, sanitizer, at_least, at_most, equals, within, equal_to, unit, equal_to_group, relative_to, message, hint, points, hidden, run; a hidden run takes name, args, env; an equivalent mutant takes mutant, reason"); err != nil {
		return nil, err
	}
	s.File = file
	var errs diag.Errors
	bad := func(line int, fix, format string, args ...any) {
		errs = append(errs, &diag.Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...), Fix: fix})
	}
	if s.Timeout != "" {
		d, err := time.ParseDuration(s.Timeout)
		if err != nil || d <= 0 {
			bad(diag.LineOf(data, "", 0, "timeout"), `write a duration such as "20s" or "2m"`, "timeout %q is not a duration", s.Timeout)
		}
		s.timeout = d
	}
	if s.GPUs < 0 || s.GPUs > 8 {
		bad(diag.LineOf(data, "", 0, "gpus"), "write how many GPUs one run needs, from 1 to 8 (gpus = 2)", "gpus = %d is not a number of GPUs", s.GPUs)
	}
	if len(s.Files) > 0 {
		s.FilesLine = diag.LineOf(data, "", 0, "files")
	}
	seen := map[string]bool{}
	for _, f := range s.Files {
		clean := filepath.ToSlash(filepath.Clean(f))
		switch {
		case f == "" || filepath.IsAbs(f) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
			bad(s.FilesLine, "name each file from the folder of the exercise's file, e.g. files = [\"pool.h\"]", "file %q is not inside the exercise's folder", f)
		case seen[clean]:
			bad(s.FilesLine, "name each file once", "file %q is named twice", f)
		}
		seen[clean] = true
	}
	for _, f := range s.Fixed {
		if !seen[filepath.ToSlash(filepath.Clean(f))] {
			bad(diag.LineOf(data, "", 0, "fixed"), "name files of files = [...] in fixed", "fixed file %q is not one of the spec's files", f)
		}
	}
	if len(s.Checks) == 0 {
		bad(1, "add [[check]] tables: what the output must contain, the exit status, bounds on statistics", "the spec has no checks")
	}
	for i := range s.Checks {
		c := &s.Checks[i]
		c.Line = diag.LineOf(data, "check", i, "")
		kinds := 0
		for _, set := range []bool{c.Contains != "", c.NotContains != "", c.Regex != "", c.Exit != nil, c.Stat != "", c.Sanitizer != ""} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			bad(c.Line, "give each [[check]] one of contains, not_contains, regex, exit, stat, sanitizer", "check %d has %d kinds", i+1, kinds)
			continue
		}
		hasBounds := c.AtLeast != nil || c.AtMost != nil || c.Equals != nil || c.EqualTo != "" || c.EqualToGroup != 0
		switch {
		case c.Regex != "":
			re, err := regexp.Compile(c.Regex)
			if err != nil {
				bad(diag.LineOf(data, "check", i, "regex"), "fix the regular expression (Go syntax)", "regex %q does not compile: %v", c.Regex, err)
				continue
			}
			c.re = re
			if c.Group == 0 && re.NumSubexp() > 0 {
				c.Group = 1
			}
			if hasBounds && (c.Group < 1 || c.Group > re.NumSubexp()) {
				bad(diag.LineOf(data, "check", i, "regex"), "capture the number with ( ), e.g. `Speedup: ([0-9.]+)x`", "regex %q captures %d groups; bounds need group %d", c.Regex, re.NumSubexp(), c.Group)
			}
			if g := c.EqualToGroup; g != 0 && (g < 1 || g > re.NumSubexp() || g == c.Group) {
				bad(diag.LineOf(data, "check", i, "equal_to_group"), "equal_to_group names another ( ) group of the same regex, e.g. `sum ([0-9]+) \\(expected ([0-9]+)\\)` with equal_to_group = 2", "regex %q captures %d groups; equal_to_group %d is not another one", c.Regex, re.NumSubexp(), g)
			}
		case c.Stat != "":
			if !KnownStat(c.Stat) {
				bad(diag.LineOf(data, "check", i, "stat"), statsHint(), "unknown statistic %q", c.Stat)
			}
			if !hasBounds {
				bad(c.Line, "add at_least, at_most, equals or equal_to", "check of %s has no bound", c.Stat)
			}
		case c.Sanitizer != "":
			if !slices.Contains(Sanitizers, c.Sanitizer) {
				bad(diag.LineOf(data, "check", i, "sanitizer"), "compute-sanitizer's tools are: "+strings.Join(Sanitizers, ", "), "unknown sanitizer tool %q", c.Sanitizer)
			}
			if hasBounds {
				bad(c.Line, "a sanitizer check passes when the tool reports no error: drop the bounds", "check %d has bounds on a sanitizer run", i+1)
			}
		default:
			if hasBounds && c.EqualToGroup == 0 {
				bad(c.Line, "bounds go with regex or stat checks", "check %d has bounds but no figure to bound", i+1)
			}
		}
		if c.EqualToGroup != 0 && c.Regex == "" {
			bad(diag.LineOf(data, "check", i, "equal_to_group"), "equal_to_group goes with regex checks", "check %d has equal_to_group but no regex", i+1)
		}
		if c.EqualTo != "" {
			if !KnownStat(c.EqualTo) {
				bad(diag.LineOf(data, "check", i, "equal_to"), statsHint(), "unknown statistic %q", c.EqualTo)
			}
		}
		if c.Unit != 0 && (c.EqualTo == "" || c.Regex == "" || !(c.Unit > 0) || math.IsInf(c.Unit, 0)) {
			bad(diag.LineOf(data, "check", i, "unit"), "unit goes with a regex check's equal_to and is the size of the printed unit in the statistic's units, e.g. equal_to = \"pool_used_high\" with unit = 1048576 for MiB", "check %d has unit = %g", i+1, c.Unit)
		} else if c.Unit != 0 && KnownStat(c.EqualTo) && !Measured(c.EqualTo) {
			// A count has no larger unit: unit = 1024 on calls of
			// cudaFree is a slip the checks would never show.
			bad(diag.LineOf(data, "check", i, "unit"), "unit goes with a statistic counted in bytes or milliseconds (pool_used_high, peak_live_bytes, kernel_span_ms), not with a count", "check %d has unit = %g, but %s is a count", i+1, c.Unit, c.EqualTo)
		}
	}
	s.validateHidden(data, bad)
	sum := 0
	for i, c := range s.Checks {
		if c.Points < 0 {
			bad(diag.LineOf(data, "check", i, "points"), "a check earns 0 or more points", "check %d has %d points", i+1, c.Points)
		}
		sum += c.Points
	}
	if sum > 0 {
		if s.Points != 0 && s.Points != sum {
			bad(diag.LineOf(data, "", 0, "points"), fmt.Sprintf("make points %d, the checks' sum, or leave it out", sum), "points = %d, but the checks' points add up to %d", s.Points, sum)
		}
		s.Points = sum
	}
	return &s, errs.Err()
}

// Partial reports whether the spec gives partial credit: points on its
// checks.
func (s *Spec) Partial() bool {
	for _, c := range s.Checks {
		if c.Points > 0 {
			return true
		}
	}
	return false
}

// Score is what a judged run earns. With points on the checks, the points
// of every check that passed, but none when the program did not compile,
// did not end by itself or was not trusted, on any run (the results with
// no check of the spec's, and a hidden run's RunCheck); else all of the
// spec's points when every check passed, and none otherwise.
func (s *Spec) Score(rs []Result) int {
	if len(rs) == 0 {
		return 0
	}
	if !s.Partial() {
		if Passed(rs) {
			return s.Points
		}
		return 0
	}
	score := 0
	for _, r := range rs {
		switch {
		case (r.Check == nil || r.Check.Whole) && !r.Pass:
			return 0
		case r.Check != nil && r.Pass:
			score += r.Check.Points
		}
	}
	return score
}

// IsFixed reports whether file, one of the spec's files, is fixed: always
// the exercise's own.
func (s *Spec) IsFixed(file string) bool {
	clean := filepath.ToSlash(filepath.Clean(file))
	for _, f := range s.Fixed {
		if filepath.ToSlash(filepath.Clean(f)) == clean {
			return true
		}
	}
	return false
}

// compiled are the extensions nvcc compiles; other files (headers) are
// only there to be included.
var compiled = map[string]bool{".cu": true, ".cpp": true, ".cc": true, ".cxx": true, ".c": true}

// Sources are the names a build of the exercise compiles: main (the
// student's file's name) when nvcc compiles it, then each of the spec's
// files that nvcc compiles, in the spec's order.
func (s *Spec) Sources(main string) []string {
	var out []string
	for _, f := range append([]string{main}, s.Files...) {
		if compiled[strings.ToLower(filepath.Ext(f))] {
			out = append(out, filepath.ToSlash(filepath.Clean(f)))
		}
	}
	return out
}

// DependsOnLoad reports whether the check judges a figure that other
// programs on the machine can change for a correct one: how many streams'
// kernels ran at one instant, how much they overlapped, or how long they
// took. Beside other runs a correct program's kernels may be delayed or
// its host stalled between two launches; alone it is judged fairly.
func (c *Check) DependsOnLoad() bool {
	if _, isTime := timeStats[c.Stat]; isTime {
		return true
	}
	return c.Stat == "max_concurrent_streams" || c.Stat == "kernel_concurrency"
}

// FailedOnLoad says, when every check of res that failed depends on the
// machine's load (DependsOnLoad) and at least one failed, which failed:
// such a verdict, made beside other runs, is worth a run alone. "" when
// none failed or any other failed.
func FailedOnLoad(res []Result) string {
	var names []string
	for _, r := range res {
		if r.Pass {
			continue
		}
		if r.Check == nil || !r.Check.DependsOnLoad() {
			return ""
		}
		names = append(names, r.Name)
	}
	if len(names) == 0 {
		return ""
	}
	return LoadFailure + ": " + strings.Join(names, "; ")
}

// LoadFailure begins what FailedOnLoad says.
const LoadFailure = "failed only checks that other runs on the machine can change"

// OutputOnly reports whether the check reads nothing but the program's
// output and exit status: one a notebook's cell can apply, in Colab or
// any Jupyter, with no statistics library and no sanitizer.
func (c *Check) OutputOnly() bool {
	switch {
	case c.Stat != "" || c.Sanitizer != "" || c.AtLeast != nil || c.AtMost != nil || c.Equals != nil || c.EqualTo != "" || c.EqualToGroup != 0:
		return false
	}
	return c.Contains != "" || c.NotContains != "" || c.Regex != "" || c.Exit != nil
}

// OutputOnly reports whether every check of the spec is OutputOnly.
func (s *Spec) OutputOnly() bool {
	for i := range s.Checks {
		if !s.Checks[i].OutputOnly() {
			return false
		}
	}
	return true
}

// statsHint lists the statistics a spec may name, for an error's hint.
func statsHint() string {
	return "statistics are: " + strings.Join(StatNames(), ", ") + " (each of the program's own process; children.NAME reads the child processes it forked, all.NAME every process)"
}
