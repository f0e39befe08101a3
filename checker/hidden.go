package checker

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cudalessons/lessons/diag"
)

// HiddenRun is another run of the program, with its own arguments and
// environment, judged by the checks that name it (run = NAME). Hidden
// runs happen in grade and verify only: a program that prints what the
// public run expects cannot pass inputs it never saw.
type HiddenRun struct {
	// Name is what checks call it by (run = NAME).
	Name string `toml:"name"`
	// Args are its arguments.
	Args []string `toml:"args"`
	// Env is added to its environment.
	Env map[string]string `toml:"env"`
	// Fail names calls the statistics library makes fail in this run,
	// each "name:N": the Nth call of name (from 1) returns out of memory
	// without being made, so that the branch a failure takes runs (a
	// handle given back, an error kept for the caller). One entry
	// answers instead of failing: "cudaDeviceGetAttribute.MemoryPoolsSupported=0:N"
	// makes the Nth ask whether the device has pools answer 0, with
	// success, as a device without pools does. The sanitizers' runs of it
	// are made without the library, and without failures.
	Fail []string `toml:"fail"`
	// DeviceHeap, when not 0, is the most bytes the device heap has in
	// this run: the program's cudaDeviceSetLimit(cudaLimitMallocHeapSize)
	// asks past it get it, so a device malloc returns NULL where the
	// course's inputs never make it (a null written through then faults).
	DeviceHeap int64 `toml:"device_heap"`
	// IPCRecordDelayMs, when not 0, is how long the statistics library
	// waits on the host before each record of an interprocess event in
	// this run, and before each close of an event opened from another
	// process's handle: a record made after the message that lets another
	// process wait for it then comes after that wait, and a close made
	// after the message that lets the maker destroy the event comes after
	// that destroy, every time.
	IPCRecordDelayMs int `toml:"ipc_record_delay_ms"`
	// SettledQueries, when true, makes the statistics library wait on
	// the host, in this run, for an event's or a stream's work to be
	// done before each query of it (cudaEventQuery, cudaStreamQuery and
	// the driver's kin) answers: every query answers "ready" for work
	// that finishes, as it may on any run whose host comes late, so a
	// branch taken only when the work is already done runs every time.
	// A program that polls sees one answer; a program whose GPU work
	// waits for its host to go on past the query never finishes.
	SettledQueries bool `toml:"settled_queries"`
	// PendingQueries, when true, makes the statistics library answer the
	// first query of each event record, and of a stream's queued work,
	// that the host has not waited for (cudaEventQuery, cudaStreamQuery
	// and the driver's kin), "not ready"
	// itself in this run, whatever the GPU did, as a GPU that lags its host
	// answers: a program that polls then asks again and the poll is counted
	// (host_polls, poll_waits), where on a GPU done before the host asked it
	// never spun. A program that asks once takes its not-ready branch. Not
	// with settled_queries.
	PendingQueries bool `toml:"pending_queries"`
	// Arranged, when set, is text the run's output shows when its harness
	// set up the case the run's checks judge (a range the driver must
	// place where it was asked). When the output lacks it, the run's
	// checks are not made: each is skipped, saying so, and the run is
	// marked for review, never passed in silence.
	Arranged string `toml:"arranged"`
}

// Failable are the calls a hidden run can make fail (fail = ["name:N"]):
// the ones the statistics library hooks whose failure a program must
// handle.
var Failable = []string{
	"cudaMalloc", "cudaMallocAsync", "cudaMallocFromPoolAsync", "cudaMallocHost", "cudaHostAlloc",
	"cudaMallocManaged", "cudaMallocPitch", "cudaMemPoolCreate", "cudaStreamCreate", "cudaStreamCreateWithFlags",
	"cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord", "cuMemAddressReserve", "cuMemCreate", "cuMemMap", "cuMemSetAccess",
	// A set of a pool's attribute (a reuse policy, the threshold): not
	// made, so a policy the program meant is not the pool's.
	"cudaMemPoolSetAttribute",
	// A get of a pool's attribute, of any or of one: a get made to fail
	// leaves its value as 0xA5 bytes, so one used anyway shows.
	"cudaMemPoolGetAttribute", "cudaMemPoolGetAttribute.ReleaseThreshold", "cudaMemPoolGetAttribute.ReservedMemCurrent",
	"cudaMemPoolGetAttribute.ReservedMemHigh", "cudaMemPoolGetAttribute.UsedMemCurrent", "cudaMemPoolGetAttribute.UsedMemHigh",
	"cudaMemPoolGetAttribute.ReuseFollowEventDependencies", "cudaMemPoolGetAttribute.ReuseAllowOpportunistic",
	"cudaMemPoolGetAttribute.ReuseAllowInternalDependencies",
	// A get of a device's attribute: of any, or of one of the pools'.
	"cudaDeviceGetAttribute", "cudaDeviceGetAttribute.MemoryPoolsSupported",
	"cudaDeviceGetAttribute.MemoryPoolSupportedHandleTypes",
	// Not a failure: the get of whether the device has pools answers 0,
	// with success, as a device without pools answers.
	"cudaDeviceGetAttribute.MemoryPoolsSupported=0",
}

// ParseFail reads one entry of a hidden run's fail: a call of Failable
// and which of its calls fails, counted from 1 ("cuMemMap:2").
func ParseFail(s string) (name string, at int, err error) {
	name, n, ok := strings.Cut(s, ":")
	if !ok {
		return "", 0, fmt.Errorf("%q names no call number: write name:N, e.g. \"cuMemMap:2\" for the second cuMemMap", s)
	}
	if !slices.Contains(Failable, name) {
		return "", 0, fmt.Errorf("%q is not a call a run can make fail: one of %s", name, strings.Join(Failable, ", "))
	}
	at, err = strconv.Atoi(n)
	if err != nil || at < 1 || at > 1000000 || n != strconv.Itoa(at) {
		return "", 0, fmt.Errorf("%q: the call's number is a whole number from 1 to 1000000", s)
	}
	return name, at, nil
}

// Equivalent is a mutant the author accepts as no mistake (it behaves
// as the solution does), with why: lessons verify --mutants does not
// count it as a survivor.
type Equivalent struct {
	// Mutant is the mutant's name as lessons verify --mutants reports it.
	Mutant string `toml:"mutant"`
	// Reason says why it is no mistake.
	Reason string `toml:"reason"`
	// Diff is the change the mutant makes, its lines as verify --mutants
	// shows them ("-" the solution's, "+" the mutant's; the "@@ line"
	// head may be left out): an entry with it is taken on the author's
	// word, its mutant neither built nor run, while the mutant of that
	// name makes that change; one without it is built and run, and
	// judged with its reason. A name is a place (operator@line): an edit
	// of the solution above it gives it to another change, which an
	// entry without the change it was written for would accept unrun
	// (round 26).
	Diff string `toml:"diff"`
}

// DiffLines are d's changed lines, each trimmed, the head and blank
// lines left out: what two diffs of one change share whatever the line
// they are at and however a TOML string wrapped them.
func DiffLines(d string) []string {
	var out []string
	for _, l := range strings.Split(d, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "@@") {
			continue
		}
		out = append(out, l[:1]+strings.TrimSpace(l[1:]))
	}
	return out
}

var envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedEnv are the variables the pipeline sets itself.
func reservedEnv(k string) bool {
	return k == "LD_PRELOAD" || k == "CUDA_VISIBLE_DEVICES" || strings.HasPrefix(k, "LESSONS_")
}

func (s *Spec) validateHidden(data []byte, bad func(line int, fix, format string, args ...any)) {
	checkEnv := func(env map[string]string, line int) {
		for _, k := range slices.Sorted(maps.Keys(env)) {
			switch {
			case !envKeyRE.MatchString(k):
				bad(line, "name variables with letters, digits and _", "environment variable %q is not a name", k)
			case reservedEnv(k):
				bad(line, "choose another name: lessons sets LD_PRELOAD, CUDA_VISIBLE_DEVICES and LESSONS_* itself", "environment variable %s is the runner's", k)
			}
		}
	}
	checkEnv(s.Env, diag.LineOf(data, "", 0, "env"))
	names := map[string]int{}
	for i, h := range s.HiddenRuns {
		line := diag.LineOf(data, "hidden_run", i, "")
		switch {
		case h.Name == "":
			bad(line, `add name = "..."; checks name the run with run = "..."`, "hidden run %d has no name", i+1)
		case names[h.Name] > 0:
			bad(line, "give each hidden run its own name", "hidden run %q is named twice (first at line %d)", h.Name, names[h.Name])
		}
		names[h.Name] = line
		checkEnv(h.Env, line)
		if len(h.Fail) > 8 {
			bad(line, "name at most 8 calls to fail", "hidden run %q makes %d calls fail", h.Name, len(h.Fail))
		}
		if h.SettledQueries && h.PendingQueries {
			bad(diag.LineOf(data, "hidden_run", i, "pending_queries"), "choose one: settled_queries answers every query of finishing work ready, pending_queries answers each first query not ready", "hidden run %q has both settled_queries and pending_queries", h.Name)
		}
		if h.IPCRecordDelayMs < 0 || h.IPCRecordDelayMs > 1000 {
			bad(diag.LineOf(data, "hidden_run", i, "ipc_record_delay_ms"), "give the delay in milliseconds, from 1 to 1000 (0: none)", "hidden run %q: ipc_record_delay_ms %d is out of range", h.Name, h.IPCRecordDelayMs)
		}
		if h.DeviceHeap < 0 || h.DeviceHeap > 1<<40 {
			bad(diag.LineOf(data, "hidden_run", i, "device_heap"), "give the device heap's bytes, from 1 to 2^40 (0: the program's own)", "hidden run %q: device_heap %d is out of range", h.Name, h.DeviceHeap)
		}
		for _, f := range h.Fail {
			if _, _, err := ParseFail(f); err != nil {
				bad(diag.LineOf(data, "hidden_run", i, "fail"), "fail = [\"cuMemMap:2\"] makes the second cuMemMap of the run fail", "hidden run %q: %v", h.Name, err)
			}
		}
		used := false
		for _, c := range s.Checks {
			used = used || c.Run == h.Name
		}
		if h.Name != "" && !used {
			bad(line, fmt.Sprintf("add checks with run = %q, or remove the run", h.Name), "hidden run %q has no checks", h.Name)
		}
	}
	order := map[string]int{}
	for i, h := range s.HiddenRuns {
		if _, ok := order[h.Name]; !ok {
			order[h.Name] = i + 1
		}
	}
	for i, c := range s.Checks {
		if c.Run != "" && names[c.Run] == 0 {
			bad(diag.LineOf(data, "check", i, "run"), "name a [[hidden_run]] of this spec, or remove run", "check %d judges run %q, which is not a hidden run of this spec", i+1, c.Run)
		}
		if c.RelativeTo == "" {
			continue
		}
		line := diag.LineOf(data, "check", i, "relative_to")
		switch {
		case c.Stat == "":
			bad(line, "relative_to goes with stat checks: the same statistic of both runs is compared", "check %d has relative_to but no stat", i+1)
		case func() bool { sc, _ := splitScope(c.Stat); return sc != "" }():
			bad(line, "compare the program's own figures (a stat without children. or all.): a baseline is one process's", "check %d compares %s of several processes with a baseline run", i+1, c.Stat)
		case names[c.RelativeTo] == 0:
			bad(line, "name a [[hidden_run]] of this spec: the baseline run", "check %d is relative to run %q, which is not a hidden run of this spec", i+1, c.RelativeTo)
		case c.Run == "" || order[c.Run] <= order[c.RelativeTo]:
			bad(line, fmt.Sprintf("give the check run = \"NAME\" of a [[hidden_run]] listed after %q: runs are made in order, the baseline first", c.RelativeTo), "check %d is relative to run %q, which is not made before the run it judges", i+1, c.RelativeTo)
		case !s.Timed && comparesTimes(c):
			bad(line, "add timed = true at the top of the spec: runs that share the GPU with others time nothing comparable", untimedMsg, i+1, c.Stat)
		}
	}
	public := 0
	for _, c := range s.Checks {
		if c.Run == "" && !c.Hidden {
			public++
		}
	}
	if len(s.Checks) > 0 && public == 0 {
		bad(1, "leave at least one check visible, so that lessons check can say something", "every check is hidden")
	}
	seen := map[string]bool{}
	for i, e := range s.EquivalentMutants {
		line := diag.LineOf(data, "equivalent_mutants", i, "")
		switch {
		case e.Mutant == "":
			bad(line, `add mutant = "..." as lessons verify --mutants names it`, "equivalent mutant %d names no mutant", i+1)
		case strings.TrimSpace(e.Reason) == "":
			bad(line, "say why the mutant behaves as the solution does: reason = \"...\"", "equivalent mutant %s has no reason", e.Mutant)
		case seen[e.Mutant]:
			bad(line, "list each mutant once", "equivalent mutant %s is listed twice", e.Mutant)
		case !diffLinesOK(e.Diff):
			bad(line, `copy the mutant's change as verify --mutants shows it: lines that start with "-" or "+"`, "equivalent mutant %s has a diff line that is no change", e.Mutant)
		}
		seen[e.Mutant] = true
	}
}

// diffLinesOK says whether every line of an equivalent mutant's diff is
// a change ("-" or "+"), its head, or the line that says how many more
// a long one has ("... 3 more lines", as verify shows it).
func diffLinesOK(d string) bool {
	for _, l := range DiffLines(d) {
		if l[0] != '-' && l[0] != '+' && !strings.HasPrefix(l, "... ") {
			return false
		}
	}
	return true
}

const untimedMsg = "check %d compares %s between runs, but the spec is not timed"

// comparesTimes reports whether c compares a time (kernel_span_ms, ...,
// kernel_concurrency) with a baseline run's.
func comparesTimes(c Check) bool {
	_, isTime := timeStats[c.Stat]
	return c.RelativeTo != "" && (isTime || c.Stat == "kernel_concurrency")
}

// Hidden counts the checks that check and watch do not run: hidden
// checks and the checks of hidden runs.
func (s *Spec) Hidden() int {
	n := 0
	for _, c := range s.Checks {
		if c.Hidden || c.Run != "" {
			n++
		}
	}
	return n
}

// Public is the spec as check and watch judge it: the public run's
// checks that are not hidden, and no hidden runs.
func (s *Spec) Public() *Spec {
	p := *s
	p.HiddenRuns, p.run = nil, ""
	p.Checks = nil
	for _, c := range s.Checks {
		if c.Run == "" && !c.Hidden {
			p.Checks = append(p.Checks, c)
		}
	}
	return &p
}

// RunName is the name of the run a spec of ForRun judges ("" the public
// run).
func (s *Spec) RunName() string { return s.run }

// ForRun is the spec of one run: "" the public run (with its hidden
// checks), else the hidden run of that name, with its arguments and
// environment, judging the checks that name it. It is nil when the spec
// has no hidden run of that name.
func (s *Spec) ForRun(name string) *Spec {
	p := *s
	p.run = name
	if name == "" {
		return &p
	}
	for _, h := range s.HiddenRuns {
		if h.Name == name {
			p.Args, p.Env, p.fail, p.heap, p.ipcDelay, p.settled, p.pending, p.arranged = h.Args, h.Env, h.Fail, h.DeviceHeap, h.IPCRecordDelayMs, h.SettledQueries, h.PendingQueries, h.Arranged
			return &p
		}
	}
	return nil
}

// Runs are the names of the runs grade and verify make: "" (the public
// run), then each hidden run's.
func (s *Spec) Runs() []string {
	out := []string{""}
	for _, h := range s.HiddenRuns {
		out = append(out, h.Name)
	}
	return out
}

// Failures is what the statistics library reads to make the run's
// calls fail ($LESSONS_STATS_FAIL), or "" when none does.
func (s *Spec) Failures() string {
	return strings.Join(s.fail, ",")
}

// DeviceHeap is the run's cap on the device heap in bytes
// ($LESSONS_STATS_HEAP), or 0 when it has none.
func (s *Spec) DeviceHeap() int64 {
	return s.heap
}

// IPCRecordDelay is the run's wait before each record of an
// interprocess event, in milliseconds ($LESSONS_STATS_IPC_DELAY), or 0.
func (s *Spec) IPCRecordDelay() int {
	return s.ipcDelay
}

// SettledQueries says whether the run's queries of events and streams
// wait for their work first ($LESSONS_STATS_SETTLED_QUERIES).
func (s *Spec) SettledQueries() bool {
	return s.settled
}

// PendingQueries says whether the first query of each event record or
// stream's work answers "not ready" in the run
// ($LESSONS_STATS_PENDING_QUERIES).
func (s *Spec) PendingQueries() bool {
	return s.pending
}

// Environ is the run's environment as KEY=VALUE, sorted.
func (s *Spec) Environ() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		out = append(out, k+"="+s.Env[k])
	}
	return out
}

// ParseSecret reads an exercise's secret spec: the hidden runs, hidden
// checks and accepted mutants an instructor keeps beside the solution
// (solutions/x.toml for solutions/x.cu), where students do not see them.
// Its checks are hidden; how to build and run the program stays in the
// exercise's spec.
func ParseSecret(file string, data []byte) (*Spec, error) {
	s, err := ParseSpec(file, data)
	es := diag.AsErrors(err)
	if err != nil && es == nil {
		return nil, err
	}
	var keep diag.Errors
	for _, e := range es {
		if e.Msg != "the spec has no checks" && e.Msg != "every check is hidden" && !strings.HasSuffix(e.Msg, "but the spec is not timed") {
			keep = append(keep, e)
		}
	}
	if s == nil {
		return nil, keep.Err()
	}
	if s.Points != 0 || s.Timeout != "" || len(s.Flags) > 0 || len(s.Args) > 0 || len(s.Files) > 0 || len(s.Fixed) > 0 || s.Timed || len(s.Env) > 0 {
		keep = append(keep, &diag.Error{File: file, Line: 1, Msg: "a secret spec has only [[check]], [[hidden_run]] and [[equivalent_mutants]] tables", Fix: "move points, timeout, flags, args, env, files, fixed and timed to the exercise's spec"})
	}
	for i := range s.Checks {
		if s.Checks[i].Points != 0 {
			keep = append(keep, &diag.Error{File: file, Line: s.Checks[i].Line, Msg: "a secret check earns no points of its own", Fix: "give it points in the exercise's spec with hidden = true, or leave points out"})
		}
		s.Checks[i].Hidden = true
	}
	return s, keep.Err()
}

// AddSecret adds a secret spec's checks, hidden runs and accepted mutants
// to the spec.
func (s *Spec) AddSecret(secret *Spec) error {
	var errs diag.Errors
	for _, h := range secret.HiddenRuns {
		if s.ForRun(h.Name) != nil {
			errs = append(errs, &diag.Error{File: secret.File, Line: 1, Msg: fmt.Sprintf("hidden run %q is also in %s", h.Name, s.File), Fix: "name it once"})
		}
	}
	if errs != nil {
		return errs
	}
	for _, c := range secret.Checks {
		if !s.Timed && comparesTimes(c) {
			errs = append(errs, &diag.Error{File: secret.File, Line: c.Line, Msg: fmt.Sprintf("check compares %s with run %s's, but %s is not timed", c.Stat, c.RelativeTo, s.File),
				Fix: "add timed = true at the top of " + s.File + ": runs that share the GPU with others time nothing comparable"})
		}
	}
	if errs != nil {
		return errs
	}
	s.Checks = append(s.Checks, secret.Checks...)
	s.HiddenRuns = append(s.HiddenRuns, secret.HiddenRuns...)
	s.EquivalentMutants = append(s.EquivalentMutants, secret.EquivalentMutants...)
	return nil
}
