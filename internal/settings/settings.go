// Package settings declares every LESSONS_* environment variable once:
// its name, what it means, who reads it and what kind of setting it is.
// It reads no variable itself; the code that reads one keeps doing so.
// Its test fails on a name used in the repository's sources and not
// declared here, and on a declared name nobody uses, and the guide's
// reference page of settings is generated from All.
package settings

import (
	"fmt"
	"sort"
	"strings"
)

// Kind says who a setting is for.
type Kind int

const (
	// User is set by a student, an instructor or an author.
	User Kind = iota
	// Library is the statistics library's protocol: the grader sets it for
	// the judged program, and kernels/allocstats.cu reads it.
	Library
	// Internal passes between lessons' own processes (the nvcc wrapper,
	// the sandbox's helper, the Python driver, a Slurm node); nobody sets
	// it by hand.
	Internal
	// Test is a hook that tests, benchmarks and scripts set.
	Test
	// Example is a name that appears only as an example or a placeholder
	// (a usage line, a variable a test sets to see it come through); no
	// code reads it.
	Example
)

var kindNames = [...]string{User: "user setting", Library: "statistics library's protocol", Internal: "between lessons' own processes", Test: "test hook", Example: "example only"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Setting is one LESSONS_* name.
type Setting struct {
	Name    string
	Kind    Kind
	Meaning string
	// ReadBy names the packages or files that read it (or, for Internal
	// and Library, that set and read it).
	ReadBy string
	// Prefix marks a name that is the start of several (LESSONS_SANDBOX_):
	// code matches it rather than reading it.
	Prefix bool
}

// All is every LESSONS_* name the repository uses, by kind and then name.
var All = sorted([]Setting{
	// The notebook corpus's test and its GPU sample.
	{Name: "LESSONS_CORPUS", Kind: Test, ReadBy: "cmd/lessons (TestNotebookCorpus), bench/notebooks/corpus/fetch.sh",
		Meaning: "A folder of real course notebooks (fetched by `bench/notebooks/corpus/fetch.sh`) that TestNotebookCorpus walks through every command besides its fixtures."},
	{Name: "LESSONS_CORPUS_REPORT", Kind: Test, ReadBy: "cmd/lessons (TestNotebookCorpus)",
		Meaning: "A file TestNotebookCorpus writes its per-notebook counts of cells and words in and out to."},
	{Name: "LESSONS_CORPUS_WIDTH", Kind: Test, ReadBy: "cmd/lessons (TestNotebookCorpus)",
		Meaning: "The terminal width TestNotebookCorpus draws `show` at (default the widest)."},
	{Name: "LESSONS_RUN", Kind: Example, ReadBy: "bench/notebooks/byhand.py (its usage line names a file LESSONS_RUN.txt)",
		Meaning: "A placeholder in a usage line: the output of `lessons run` saved to a file."},
	// Users.
	{Name: "LESSONS_COURSE", Kind: User, ReadBy: "internal/course",
		Meaning: "The course folder when `--course` is not given (before looking for `course.toml` here and above)."},
	{Name: "LESSONS_CACHE", Kind: User, ReadBy: "internal/machine, internal/workspace, scripts and benchmarks",
		Meaning: "The compile cache's folder (default `~/.cache/lessons`); `lessons cache` shows it."},
	{Name: "LESSONS_CACHE_MAX", Kind: User, ReadBy: "internal/buildcache",
		Meaning: "The compile cache's bound, a size such as `500M` or `2G` (default 2 GiB); the least recently used entries go first."},
	{Name: "LESSONS_ARCH", Kind: User, ReadBy: "internal/workspace (the nvcc wrapper)",
		Meaning: "The GPU architecture the nvcc wrapper builds for (as `--arch`); set by lessons in a cell's environment, and honoured when set by hand."},
	{Name: "LESSONS_GPU", Kind: User, ReadBy: "internal/machine",
		Meaning: "Stands in for the GPU probe: `none` means no GPU; `NAME,MAJOR.MINOR,BYTES` (e.g. `Fake GPU,9.0,85899345920`) a fake one, so that grading, checking and the page can be tried and tested without a GPU (with a stand-in nvcc)."},
	{Name: "LESSONS_SANITIZER", Kind: User, ReadBy: "internal/machine, internal/exercise",
		Meaning: "The compute-sanitizer to run for a spec's `sanitizer` checks (else found beside nvcc, on the PATH, in `$CUDA_HOME/bin` or `/usr/local/cuda/bin`); `none` turns those checks off (shown as skipped)."},
	{Name: "LESSONS_SERVE_TOKEN", Kind: User, ReadBy: "internal/serve",
		Meaning: "The token `lessons serve` requires, instead of a fresh random one at each start (for scripts that drive the server)."},
	{Name: "LESSONS_DRIVER_CHECK", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`off` turns off the second witness of a judged run (the driver's view through NVML)."},
	{Name: "LESSONS_WITNESS", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`off` turns off the outside witness of a graded run (the kernel's count of its CUDA calls through uprobes, where BPF may be loaded); `require` refuses to grade (a grade, a run node, the class server) where it cannot be on, rather than grade with each grade marked not witnessed."},
	{Name: "LESSONS_WITNESS_LOG", Kind: User, ReadBy: "internal/exercise",
		Meaning: "A file to which each run the outside witness watched adds a line of JSON: the file judged, the run, every count the kernel took (the driver's included), the record's figures, and whether the witness's comparison passed (`bench/witness-course.sh` reads it on a GPU)."},
	{Name: "LESSONS_WITNESS_DRIVER_WAITS", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`shown`: the outside witness only shows the CUDA driver's `cuCtxSynchronize`, `cuStreamSynchronize` and `cuEventSynchronize` counts. By default it bounds each by the record's `device_syncs`, `stream_syncs` and `event_syncs`, as it bounds the runtime's three waits (a count above fails the run): on two H200s with driver 580 a whole `verify --wrong` passed with the bound; `shown` is for a driver whose runtime reaches those functions more than once a wait."},
	{Name: "LESSONS_WITNESS_DRIVER_VMM", Kind: User, ReadBy: "internal/exercise",
		Meaning: "The CUDA driver's virtual memory functions (`cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`, `cuMemSetAccess`, `cuMemUnmap`, `cuMemRelease`, `cuMemAddressFree`) under the outside witness. Unset (or `bound`): probed, and each bounded by the record's `vmm_*_calls` (a count above fails the run: virtual memory managed around the statistics library, `corpus/vmm_around.cu`); the default since session 27's GPU run, where no honest run reached them otherwise. `shown`: counted and shown, not bounded (the functions behind the entries are probed too, so a run whose runtime or driver reaches one of them past its entry still fails: \"entered past its first instruction\"). `off`: not probed (nor are `LESSONS_WITNESS_DRIVER_REFS`'s two)."},
	{Name: "LESSONS_WITNESS_DRIVER_REFS", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`off`: the outside witness leaves the CUDA driver's `cuMemRetainAllocationHandle` and `cuMemImportFromShareableHandle` unprobed. By default (unset, or `bound`) it probes them (their entries and the functions behind them) and bounds their count, added up, by the record's `vmm_retain_attempts`, as it bounds the seven of `LESSONS_WITNESS_DRIVER_VMM` (references to a chunk taken around the statistics library fail the run, `corpus/vmm_retain_around.cu`, round 25): the default since session 29, whose GPU run graded every ipc-pool and vmm-growable program of the course with them and found no honest run above the record or entering either past its first instruction. With `LESSONS_WITNESS_DRIVER_VMM=shown` they are shown, not bounded; with it `off`, unprobed."},
	{Name: "LESSONS_SANDBOX_WX", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`off`: a sandboxed run may make memory writable and executable, or executable after it was mapped, a memfd, shared memory or a file it wrote executable, and its /proc/PID/mem writable (by default it may not: no code written after it starts); and the statistics library's own write-exec rule (`LESSONS_STATS_NOWX`) is off in every judged run, the plain runner's included."},
	{Name: "LESSONS_SANDBOX_USERS", Kind: User, ReadBy: "internal/exercise, internal/rig (the cells), internal/classroom",
		Meaning: "`off`: the grader, even as root, runs builds and runs as its own user instead of a user per worker (for a toolkit other users cannot read)."},
	{Name: "LESSONS_SANDBOX_SHARED_USER", Kind: User, ReadBy: "internal/rig",
		Meaning: "`accept`: grade on a kernel without Landlock (Linux before 5.13) although students' programs run as the grader's own user and can write what it can (the gradebook, the other submissions); by default such a grader refuses to start. For a cluster where the grader cannot be root: grade a class whose students you trust, or check the gradebook against a copy."},
	{Name: "LESSONS_SANDBOX_CGROUPS", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`off`: no cgroup per build and run, even where the machine lets the grader make them."},
	{Name: "LESSONS_SANDBOX_PIDNS", Kind: User, ReadBy: "internal/sandbox",
		Meaning: "`off`: a grader that is not root makes no pid namespace per run (then a process that outlives its run is not stopped by one)."},
	{Name: "LESSONS_SANDBOX_YIELD", Kind: User, ReadBy: "internal/exercise",
		Meaning: "`off`: a run waiting on the GPU keeps its CPU weight (by default it yields it to the builds)."},
	{Name: "LESSONS_SANDBOX_READ", Kind: User, ReadBy: "internal/exercise (the grading sandbox)",
		Meaning: "More folders the sandboxed builds and runs may read, a list like PATH (e.g. a CUDA toolkit in `/opt/cuda`)."},
	{Name: "LESSONS_KERNEL", Kind: User, ReadBy: "internal/jupyter",
		Meaning: "`none`: find no Jupyter kernel, so Python cells run by python3 alone (tests set it)."},
	{Name: "LESSONS_CLASS_SERVER", Kind: User, ReadBy: "internal/classroom (lessons submit, lessons check --remote)",
		Meaning: "The class server's URL for `lessons submit`, when `--server` is not given, and for `lessons check --remote`, before course.toml's `[class] server`."},
	{Name: "LESSONS_CLASS_TOKEN", Kind: User, ReadBy: "internal/classroom (lessons submit, lessons check --remote)",
		Meaning: "The student's token for `lessons submit` and `lessons check --remote` (the class page's \"Token for lessons submit\")."},
	{Name: "LESSONS_TRACE", Kind: User, ReadBy: "internal/classroom (serve --class)",
		Meaning: "A file the class server appends a trace of each run's phases to, as `grade --trace` writes one (for measuring: Perfetto draws it, `bench/classload -trace` sums it up)."},

	// The statistics library's protocol.
	{Name: "LESSONS_STATS_FD", Kind: Library, ReadBy: "checker.Pipe sets it (a graded run, a traced cell); kernels/allocstats.cu reads it",
		Meaning: "The descriptor of the pipe the judged program's statistics library writes its signed frames to; the library takes it out of the environment before `main`."},
	{Name: "LESSONS_STATS_KEY", Kind: Library, ReadBy: "checker.Pipe sets it (a graded run, a traced cell); kernels/allocstats.cu reads it",
		Meaning: "The run's fresh HMAC key (hex) that signs each frame; the library zeroes and unsets it before `main`."},
	{Name: "LESSONS_STATS_TRACE", Kind: Library, ReadBy: "internal/exercise sets it for --timeline; kernels/timeline.h reads it",
		Meaning: "When set (not `0`), the library keeps a trace of the run (allocations, frees, launches and their start and end on the GPU, copies, events, host waits, the pools' reserved and used bytes as they change, findings; at most 32,768 events) and sends it over the record's channel before its end frame; unset, nothing is traced."},
	{Name: "LESSONS_STATS_CELL", Kind: Library, ReadBy: "internal/notebook sets it for run --timeline and the page's timeline toggle; kernels/timeline.h and the nvcc wrapper (internal/workspace) read it",
		Meaning: "Set in a lesson cell traced with the library preloaded into its shell: a process that maps no CUDA runtime (the shell, nvcc, the compiler) leaves the channel and the trace to the CUDA program the cell runs, and the nvcc wrapper builds with `-cudart shared` (unless the command names a runtime) so that the library sees the program's calls."},
	{Name: "LESSONS_STATS_FAIL", Kind: Library, ReadBy: "internal/exercise sets it for a hidden run with fail = [...]; kernels/allocstats.cu reads it",
		Meaning: "Calls the library makes fail in this run, `name:N[,name:N]` (the Nth call of each returns out of memory without being made), so that a program's error paths run; the library takes it out of the environment before `main`."},
	{Name: "LESSONS_STATS_HEAP", Kind: Library, ReadBy: "internal/exercise sets it for a hidden run with device_heap; kernels/allocstats.cu reads it",
		Meaning: "The most bytes the device heap has in this run: the program's `cudaDeviceSetLimit(cudaLimitMallocHeapSize)` asks past it get it (and a program that never asks gets it at its first CUDA call), so a device `malloc` returns NULL sooner; the library takes it out of the environment before `main`."},
	{Name: "LESSONS_STATS_IPC_DELAY", Kind: Library, ReadBy: "internal/exercise sets it for a hidden run with ipc_record_delay_ms; kernels/allocstats.cu reads it",
		Meaning: "Milliseconds the library waits, on the host, before each record of an interprocess event (`cudaEventRecord` of an event made with `cudaEventInterprocess` or opened from another process's handle), so that a record made after the message that lets the other process wait comes after that wait too, and before each close (`cudaEventDestroy`) of an event opened from another process's handle, so that a close made after the message that lets the maker destroy the event comes after that destroy too; the library takes it out of the environment before `main`."},
	{Name: "LESSONS_STATS_SETTLED_QUERIES", Kind: Library, ReadBy: "internal/exercise sets it in every run (1 for a hidden run with settled_queries, else 0); kernels/allocstats.cu reads it",
		Meaning: "When `1`, the library waits on the host for an event's or a stream's work to be done before each query of it (`cudaEventQuery`, `cudaStreamQuery`, `cuEventQuery`, `cuStreamQuery`), so that every query of finishing work answers ready, the branch a program takes when its host comes late; the library takes it out of the environment before `main`."},
	{Name: "LESSONS_STATS_PENDING_QUERIES", Kind: Library, ReadBy: "internal/exercise sets it in every run (1 for a hidden run with pending_queries, else 0); kernels/allocstats.cu reads it",
		Meaning: "When `1` (and `LESSONS_STATS_SETTLED_QUERIES` is not), the library answers the first query of each event record, and of a stream's queued work, that the host has not waited for (`cudaEventQuery`, `cudaStreamQuery`, `cuEventQuery`, `cuStreamQuery`), \"not ready\" itself, without asking CUDA, as a GPU that lags its host answers: a program that polls asks again and the poll is counted, where on a GPU done before the host asked it never spun; the library takes it out of the environment before `main`."},
	{Name: "LESSONS_STATS_UNDUMPABLE", Kind: Library, ReadBy: "internal/exercise sets it for every run in the grading sandbox; kernels/allocstats.cu reads it",
		Meaning: "When `1`, the library makes the process not dumpable (`prctl(PR_SET_DUMPABLE, 0)`) before `main`, so that its `/proc/PID/mem` is root's and the program cannot write its own code through it (a Python script's interpreter is readable, so its process would stay dumpable otherwise); the library takes it out of the environment."},
	{Name: "LESSONS_STATS_NOEXEC", Kind: Library, ReadBy: "internal/exercise sets it for every judged run (a compiled program's and a Python script's); kernels/allocstats.cu reads it",
		Meaning: "When `1`, a program started (exec) by a process the library does not follow (a child made by a raw `clone`, `_Fork` or `vfork`) fails the run's record, as a CUDA call in such a process always does: its exec would go uncounted, and a run that starts a program is not trusted. The library also refuses every exec of the process and its children (a seccomp filter of its own: `execve` and `execveat` fail with EPERM), since one made by a raw system call is seen by no hook; it takes the variable out of the environment."},
	{Name: "LESSONS_STATS_NOWX", Kind: Library, ReadBy: "internal/exercise sets it for every judged run unless LESSONS_SANDBOX_WX=off; kernels/allocstats.cu reads it",
		Meaning: "When `1` (with `LESSONS_STATS_NOEXEC`), the library's own seccomp filter refuses memory both writable and executable, executable memory that is not private, memory made executable after it was mapped (`mprotect`, `pkey_mprotect`) and `personality`'s `READ_IMPLIES_EXEC` (EPERM), in the process and its children, as the grading sandbox's write-exec rule does: the kernel puts the outside witness's uprobes only into a private mapping of a file's code that is not writable, so a runtime's file mapped again so ran uncounted. It takes the variable out of the environment."},
	{Name: "LESSONS_STATS", Kind: Library, ReadBy: "internal/suspect; benchmark scripts",
		Meaning: "The record's file in the library's first versions, no longer read by lessons (the record comes over the pipe); benchmark scripts that preload the library by hand still set it, and a program that mentions it is marked for review."},

	// Between lessons' own processes.
	{Name: "LESSONS_REAL_NVCC", Kind: Internal, ReadBy: "internal/workspace (the nvcc wrapper), internal/classroom",
		Meaning: "The real nvcc behind the wrapper that lessons puts first on a cell's PATH."},
	{Name: "LESSONS_NVCC_VERSION", Kind: Internal, ReadBy: "internal/workspace (the nvcc wrapper), internal/classroom",
		Meaning: "The real nvcc's version, part of the compile cache's key, so the wrapper does not ask nvcc each time."},
	{Name: "LESSONS_SHARED_CACHE", Kind: Internal, ReadBy: "internal/workspace (the nvcc wrapper), internal/classroom",
		Meaning: "The class server's shared, content-addressed compile cache, for the builds of students' cells."},
	{Name: "LESSONS_BUILD_LOG", Kind: Internal, ReadBy: "internal/serve, internal/workspace",
		Meaning: "A file the nvcc wrapper appends `hit` or `miss` to for each build, so the page can say \"from the cache\"."},
	{Name: "LESSONS_TRACE_NVCC", Kind: Internal, ReadBy: "internal/classroom/cells, internal/workspace",
		Meaning: "A file the nvcc wrapper notes each build's times in, for the class server's trace."},
	{Name: "LESSONS_PILOT_CAPABILITY", Kind: Internal, ReadBy: "internal/classroom/pilot (lessons pilot)",
		Meaning: "Tells a class server's build node which GPU to build for."},
	{Name: "LESSONS_WORKSPACE", Kind: Internal, ReadBy: "internal/classroom/pilot",
		Meaning: "Written `@LESSONS_WORKSPACE@` in a cell's environment and arguments sent to a pilot: it stands for the workspace's folder on the node."},
	{Name: "LESSONS_SANDBOX_POLICY", Kind: Internal, ReadBy: "internal/sandbox",
		Meaning: "The policy the sandbox's helper applies before it becomes the judged program."},
	{Name: "LESSONS_SANDBOX_PROBE", Kind: Internal, ReadBy: "internal/sandbox",
		Meaning: "Makes the sandbox's helper a probe that tries each door of the sandbox it runs in (`lessons sandbox --verify`, the attack suite)."},
	{Name: "LESSONS_SANDBOX_PROBE_FORK", Kind: Internal, ReadBy: "internal/sandbox",
		Meaning: "Makes the helper the probe's second process, which tries a fork under the run's own process limit."},
	{Name: "LESSONS_SANDBOX_PIDNS_TRY", Kind: Internal, ReadBy: "internal/sandbox",
		Meaning: "Makes the helper try to mount a /proc in a new pid namespace and exit 0 when it could (is a pid namespace per run possible here?)."},
	{Name: "LESSONS_SANDBOX_HIDEPROC_TRY", Kind: Internal, ReadBy: "internal/sandbox",
		Meaning: "Makes the helper try to hide other processes' /proc entries and exit 0 when it could."},
	{Name: "LESSONS_SANDBOX_", Kind: Internal, Prefix: true, ReadBy: "internal/sandbox",
		Meaning: "The helper's own variables: the loader's variables are carried under this prefix through the helper and put back for the program alone."},
	{Name: "LESSONS_PY_FD", Kind: Internal, ReadBy: "internal/python, its driver.py",
		Meaning: "The descriptor the Python driver reads its requests from."},
	{Name: "LESSONS_PY_NONCE", Kind: Internal, ReadBy: "internal/python, its driver.py",
		Meaning: "The value that marks the Python driver's own lines in its output, so a cell cannot forge them."},
	{Name: "LESSONS_PY_", Kind: Internal, Prefix: true, ReadBy: "internal/notebook",
		Meaning: "The Python session's own variables: its `!` lines see them, but they are the session's, not the notebook's, and are left out of the environment a notebook keeps."},

	// Tests, benchmarks and scripts.
	{Name: "LESSONS_CHROMIUM", Kind: Test, ReadBy: "internal/browsertest",
		Meaning: "The Chromium the browser tests drive (else the first of chromium, chromium-browser, google-chrome on the PATH)."},
	{Name: "LESSONS_SCREENSHOTS", Kind: Test, ReadBy: "internal/render, internal/serve (browser tests)",
		Meaning: "A folder the browser tests save their screenshots to."},
	{Name: "LESSONS_TEST_BIN", Kind: Test, ReadBy: "internal/exercise (tests)",
		Meaning: "The test binary, which the fake nvcc's programs call to stand in for the statistics library."},
	{Name: "LESSONS_TEST_BUILT_PROGRAMS", Kind: Test, ReadBy: "internal/exercise (tests)",
		Meaning: "A folder of built CUDA programs (a GPU machine's build cache, `~/.cache/lessons`) that `TestBuiltProgramsHoldNoCopy` reads as the pre-run inspection does: none may be refused as holding the runtime's or the driver's code, and it logs the most of their 16-byte blocks at one distance (session 26 on the H200: 18 of CUDA 13's runtime over 864 bytes). Unset, the test is skipped."},
	{Name: "LESSONS_TEST_NVCC", Kind: Test, ReadBy: "internal/exercise (tests)",
		Meaning: "A real nvcc for the sandbox tests that build with one (e.g. `/usr/local/cuda/bin/nvcc`, as root on a GPU machine)."},
	{Name: "LESSONS_TEST_ARCH", Kind: Test, ReadBy: "internal/exercise (tests)",
		Meaning: "The architecture those tests build for."},
	{Name: "LESSONS_NVML_MEASURE", Kind: Test, ReadBy: "gpu (tests)",
		Meaning: "`N`: measure NVML's view of N runs of the shortest honest program (skipped when unset)."},
	{Name: "LESSONS_PAGE_BIN", Kind: Test, ReadBy: "internal/serve (GPU tests)",
		Meaning: "A lessons binary for TestPageOnGPU and BenchmarkFirstOutput to serve (they skip without it)."},
	{Name: "LESSONS_PAGE_COURSE", Kind: Test, ReadBy: "internal/serve (GPU tests)",
		Meaning: "The course (a copy: checks save progress) those tests serve."},
	{Name: "LESSONS_PAGE_LESSON", Kind: Test, ReadBy: "internal/serve (GPU tests)",
		Meaning: "The lesson those tests run (default 69)."},
	{Name: "LESSONS_PAGE_CELL", Kind: Test, ReadBy: "internal/serve (GPU tests)",
		Meaning: "The cell BenchmarkFirstOutput times (default 2)."},
	{Name: "LESSONS_PAGE_EXERCISE", Kind: Test, ReadBy: "internal/serve (GPU tests)",
		Meaning: "The exercise those tests check (default async-pipeline; `none` for none)."},
	{Name: "LESSONS_CLASS_CHILD", Kind: Test, ReadBy: "internal/classroom (tests)",
		Meaning: "Makes the test binary serve a class, for the test that kills it with SIGKILL."},
	{Name: "LESSONS_CLASS_COURSE", Kind: Test, ReadBy: "internal/classroom (tests)",
		Meaning: "The course that child serves."},
	{Name: "LESSONS_CLASS_DIR", Kind: Test, ReadBy: "internal/classroom (tests)",
		Meaning: "The class folder that child serves."},
	{Name: "LESSONS_SLURM_TEST", Kind: Test, ReadBy: "internal/classroom/pilot (tests)",
		Meaning: "Set where a Slurm controller must answer (CI's one-node cluster): the Slurm test fails instead of skipping."},
	{Name: "LESSONS_PILOT_TEST_WORKER", Kind: Test, ReadBy: "internal/classroom/pilot (tests)",
		Meaning: "Makes the test binary a pilot's worker in the Slurm test."},

	// Examples and placeholders.
	{Name: "LESSONS_BINARY", Kind: Example,
		Meaning: "A placeholder in benchmark scripts' usage lines: the path of a lessons binary."},
	{Name: "LESSONS_NODE", Kind: Example, ReadBy: "internal/classroom (tests)",
		Meaning: "A variable a test's fake node puts in a cell's environment, to see it reach the cell."},
	{Name: "LESSONS_WHICH", Kind: Example, ReadBy: "internal/notebook, internal/serve (tests)",
		Meaning: "A variable a test's kernel spec sets, to see which kernel ran a cell."},
	{Name: "LESSONS_X", Kind: Example, ReadBy: "internal/jupyter (tests)",
		Meaning: "A variable a cell sets with `%env` in a test."},
	{Name: "LESSONS_NOT_PYTHON", Kind: Example, ReadBy: "internal/python (tests)",
		Meaning: "An unset variable a test's `!` line echoes, to see the shell (not Python) expand it."},
})

func sorted(s []Setting) []Setting {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Kind != s[j].Kind {
			return s[i].Kind < s[j].Kind
		}
		return s[i].Name < s[j].Name
	})
	return s
}

// Lookup returns the setting of a name, and whether it is declared: a
// name declared whole, or one that starts with a declared prefix.
func Lookup(name string) (Setting, bool) {
	for _, s := range All {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range All {
		if s.Prefix && strings.HasPrefix(name, s.Name) {
			return s, true
		}
	}
	return Setting{}, false
}

// Markdown is the guide's reference page of settings.
func Markdown() []byte {
	var b strings.Builder
	b.WriteString("# Settings: every `LESSONS_*` environment variable\n\n")
	b.WriteString("Generated from `internal/settings` (`go test ./internal/settings -update`);\n")
	b.WriteString("a test fails when a `LESSONS_*` name in the sources is not declared there,\n")
	b.WriteString("or a declared one is no longer used.\n\n")
	for k := User; k <= Example; k++ {
		fmt.Fprintf(&b, "- [%s](#%s)\n", heading(k), anchor(heading(k)))
	}
	for k := User; k <= Example; k++ {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n| name | meaning | read by |\n| --- | --- | --- |\n", heading(k), intro[k])
		for _, s := range All {
			if s.Kind != k {
				continue
			}
			name := "`" + s.Name + "`"
			if s.Prefix {
				name = "`" + s.Name + "*`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, strings.ReplaceAll(s.Meaning, "|", `\|`), s.ReadBy)
		}
	}
	return []byte(b.String())
}

func heading(k Kind) string {
	return map[Kind]string{User: "User settings", Library: "The statistics library's protocol", Internal: "Between lessons' own processes", Test: "Test hooks", Example: "Examples only"}[k]
}

var intro = map[Kind]string{
	User:     "What a student, an instructor or an author may set.",
	Library:  "The statistics library's protocol: the grader sets these for the judged program; setting them by hand changes nothing a grade trusts.",
	Internal: "Passed between lessons' own processes (the nvcc wrapper, the sandbox's helper, the Python driver, a pilot); never set by hand.",
	Test:     "Hooks that tests, benchmarks and scripts set.",
	Example:  "Names that appear only as examples or placeholders; no code reads them.",
}

// anchor is the fragment a forge makes of a heading: lower case, spaces
// to hyphens, punctuation other than hyphens and underscores dropped.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
