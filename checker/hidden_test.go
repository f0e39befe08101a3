package checker

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const hiddenSpec = `args = ["12"]
env = { STREAMS = "4" }

[[check]]
contains = "12 iterations"

[[check]]
stat = "malloc_calls"
equals = 0
hidden = true

[[hidden_run]]
name = "big"
args = ["40"]
env = { STREAMS = "5" }

[[check]]
run = "big"
contains = "40 iterations on 5 streams"

[[equivalent_mutants]]
mutant = "async-pipeline:sync-twin@27"
reason = "the pool's threshold makes both the same here"
`

func TestHiddenRuns(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte(hiddenSpec))
	if err != nil {
		t.Fatal(err)
	}
	if s.Hidden() != 2 || len(s.Public().Checks) != 1 || len(s.Public().HiddenRuns) != 0 {
		t.Fatalf("hidden %d, public %+v", s.Hidden(), s.Public().Checks)
	}
	if got := strings.Join(s.Runs(), ","); got != ",big" {
		t.Errorf("runs = %q", got)
	}
	big := s.ForRun("big")
	if big.Args[0] != "40" || strings.Join(big.Environ(), " ") != "STREAMS=5" || s.ForRun("nope") != nil {
		t.Fatalf("ForRun: %+v", big)
	}
	out := &Run{Output: "40 iterations on 5 streams", Stats: &Stats{}}
	rs := big.Judge(out)
	if len(rs) != 1 || !rs[0].Pass || rs[0].Check.Run != "big" {
		t.Errorf("the hidden run judges %+v", rs)
	}
	if rs := s.ForRun("").Judge(out); len(rs) != 2 {
		t.Errorf("the public run (graded) judges %d checks, want 2", len(rs))
	}
	if rs := s.Public().Judge(out); len(rs) != 1 {
		t.Errorf("lessons check judges %d checks, want 1", len(rs))
	}
	if len(s.EquivalentMutants) != 1 {
		t.Errorf("equivalent mutants: %+v", s.EquivalentMutants)
	}
}

func TestHiddenErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"[[check]]\nexit = 0\nrun = \"big\"\n", "x.toml:3: check 1 judges run \"big\", which is not a hidden run of this spec"},
		{"[[check]]\nexit = 0\n[[hidden_run]]\nname = \"big\"\n", "x.toml:3: hidden run \"big\" has no checks"},
		{"[[check]]\nexit = 0\n[[hidden_run]]\nargs = [\"1\"]\n", "x.toml:3: hidden run 1 has no name"},
		{"env = { LD_PRELOAD = \"x\" }\n[[check]]\nexit = 0\n", "x.toml:1: environment variable LD_PRELOAD is the runner's"},
		{"[[check]]\nexit = 0\nhidden = true\n", "every check is hidden"},
		{"[[check]]\nexit = 0\n[[equivalent_mutants]]\nmutant = \"m\"\n", "x.toml:3: equivalent mutant m has no reason"},
		{"[[check]]\nexit = 0\n[[equivalent_mutants]]\nmutant = \"m\"\nreason = \"r\"\ndiff = \"@@ line 3 @@\\n    for (;;)\\n\"\n", "x.toml:3: equivalent mutant m has a diff line that is no change"},
		{"[[check]]\nexit = 0\n[[hidden_run]]\nname = \"both\"\nsettled_queries = true\npending_queries = true\n[[check]]\nrun = \"both\"\nexit = 0\n", "x.toml:6: hidden run \"both\" has both settled_queries and pending_queries"},
	} {
		_, err := ParseSpec("x.toml", []byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestSecret(t *testing.T) {
	pub, err := ParseSpec("x.toml", []byte("args = [\"12\"]\n[[check]]\ncontains = \"12 iterations\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	secret, err := ParseSecret("s.toml", []byte("[[check]]\nstat = \"device_syncs\"\nequals = 0\n[[hidden_run]]\nname = \"big\"\nargs = [\"40\"]\n[[check]]\nrun = \"big\"\ncontains = \"40 iterations\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.AddSecret(secret); err != nil {
		t.Fatal(err)
	}
	if pub.Hidden() != 2 || len(pub.Public().Checks) != 1 || pub.ForRun("big") == nil || pub.Args[0] != "12" {
		t.Errorf("after the secret: hidden %d, public %d", pub.Hidden(), len(pub.Public().Checks))
	}
	if err := pub.AddSecret(secret); err == nil || !strings.Contains(err.Error(), `hidden run "big" is also in x.toml`) {
		t.Errorf("twice: %v", err)
	}
	if _, err := ParseSecret("s.toml", []byte("[[equivalent_mutants]]\nmutant = \"m\"\nreason = \"r\"\n")); err != nil {
		t.Errorf("a secret of accepted mutants only: %v", err)
	}
	for _, tc := range []struct{ in, want string }{
		{"timeout = \"5s\"\n[[check]]\nexit = 0\n", "s.toml:1: a secret spec has only [[check]], [[hidden_run]] and [[equivalent_mutants]] tables"},
		{"[[check]]\nexit = 0\npoints = 3\n", "s.toml:1: a secret check earns no points of its own"},
	} {
		if _, err := ParseSecret("s.toml", []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// A hidden run's fail = [...] reaches the library only for that run, as
// one setting; entries that name no failable call or no call number are
// refused with their line.
func TestHiddenRunFails(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n[[hidden_run]]\nname = \"map fails\"\nfail = [\"cuMemMap:2\", \"cuMemCreate:1\"]\n"+
		"[[check]]\nrun = \"map fails\"\nstat = \"vmm_release_calls\"\nequal_to = \"vmm_create_calls\"\n[[check]]\nrun = \"map fails\"\nstat = \"injected_failures\"\nequals = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ForRun("map fails").Failures(); got != "cuMemMap:2,cuMemCreate:1" {
		t.Errorf("the hidden run's failures: %q", got)
	}
	if got := s.ForRun("").Failures() + s.Public().Failures(); got != "" {
		t.Errorf("the public run fails calls too: %q", got)
	}
	rs := s.ForRun("map fails").Judge(&Run{Stats: &Stats{VMMCreateCalls: 3, VMMReleaseCalls: 2, InjectedFailures: 1}})
	if len(rs) != 2 || rs[0].Pass || !rs[1].Pass {
		t.Errorf("a handle kept when a map failed: %+v", rs)
	}
	for _, tc := range []struct{ fail, want string }{
		{`"cuMemMap"`, `x.toml:5: hidden run "h": "cuMemMap" names no call number`},
		{`"printf:1"`, `"printf" is not a call a run can make fail`},
		{`"cudaMemPoolGetAttribute.NoSuch:1"`, `"cudaMemPoolGetAttribute.NoSuch" is not a call a run can make fail`},
		{`"cuMemMap:0"`, `"cuMemMap:0": the call's number is a whole number from 1 to 1000000`},
		{`"cuMemMap:+2"`, `the call's number is a whole number`},
		{`"a:1","b:1","c:1","d:1","e:1","f:1","g:1","h:1","i:1"`, `hidden run "h" makes 9 calls fail`},
	} {
		spec := "[[check]]\nexit = 0\n[[hidden_run]]\nname = \"h\"\nfail = [" + tc.fail + "]\n[[check]]\nrun = \"h\"\nexit = 0\n"
		if _, err := ParseSpec("x.toml", []byte(spec)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("fail = [%s]: %v, want %q", tc.fail, err, tc.want)
		}
	}
	// A pool's attribute set can fail (strict-pool: a policy the pool
	// refused must reach error()).
	if name, at, err := ParseFail("cudaMemPoolSetAttribute:1"); err != nil || name != "cudaMemPoolSetAttribute" || at != 1 {
		t.Errorf("cudaMemPoolSetAttribute:1 read as %s:%d, %v", name, at, err)
	}
}

// FuzzParseFail: a spec's fail entries are user input; any string gives
// a failable call and a number from 1, or an error.
func FuzzParseFail(f *testing.F) {
	for _, s := range []string{"cuMemMap:2", "cudaMallocAsync:1", "cudaEventRecord:1", "cudaMemPoolGetAttribute.ReleaseThreshold:2", "cudaMemPoolSetAttribute:1", "cudaMemPoolGetAttribute.NoSuch:1", "cudaDeviceGetAttribute.MemoryPoolSupportedHandleTypes:1", "x", ":", "cuMemMap:-1", "cuMemMap:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, at, err := ParseFail(s)
		if err == nil && (at < 1 || !slices.Contains(Failable, name) || s != name+":"+strconv.Itoa(at)) {
			t.Fatalf("%q read as %s:%d", s, name, at)
		}
	})
}

// A hidden run's device_heap reaches the library for that run only; a
// negative or absurd one is refused with its line.
func TestHiddenRunDeviceHeap(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n[[hidden_run]]\nname = \"small heap\"\ndevice_heap = 1048576\n[[check]]\nrun = \"small heap\"\nstat = \"device_faults\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h := s.ForRun("small heap").DeviceHeap(); h != 1<<20 {
		t.Errorf("the hidden run's heap: %d", h)
	}
	if h := s.ForRun("").DeviceHeap(); h != 0 {
		t.Errorf("the public run's heap: %d", h)
	}
	_, err = ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n[[hidden_run]]\nname = \"h\"\ndevice_heap = -1\n[[check]]\nrun = \"h\"\nexit = 0\n"))
	if err == nil || !strings.Contains(err.Error(), `x.toml:5: hidden run "h": device_heap -1 is out of range`) {
		t.Errorf("a negative heap: %v", err)
	}
}

// A hidden run with arranged judges its checks only when the output says
// the case was set up; otherwise each is skipped, says why, and marks the
// run for review (a pass in silence would hide a case never tried).
func TestHiddenRunArranged(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte(`
[[check]]
exit = 0

[[hidden_run]]
name = "taken"
args = ["1"]
arranged = "addresses taken: yes"

[[check]]
run = "taken"
contains = "moved: yes"
`))
	if err != nil {
		t.Fatal(err)
	}
	taken := s.ForRun("taken")
	for _, tc := range []struct {
		out              string
		pass, skipped    bool
		review, gotInGot string
	}{
		{"addresses taken: yes\nmoved: yes\n", true, false, "", ""},
		{"addresses taken: yes\nmoved: no\n", false, false, "", "it does not"},
		{"addresses taken: no\nmoved: no\n", true, true, `lacks "addresses taken: yes"`, "was not set up here"},
	} {
		rs := taken.Judge(&Run{Output: tc.out, Stats: &Stats{}})
		if len(rs) != 1 {
			t.Fatalf("%q: %d results, want 1", tc.out, len(rs))
		}
		r := rs[0]
		if r.Pass != tc.pass || r.Skipped != tc.skipped || !strings.Contains(r.Review, tc.review) || !strings.Contains(r.Got, tc.gotInGot) {
			t.Errorf("%q: pass %v skipped %v review %q got %q", tc.out, r.Pass, r.Skipped, r.Review, r.Got)
		}
		if tc.review == "" && r.Review != "" {
			t.Errorf("%q: marked for review: %q", tc.out, r.Review)
		}
	}
	// The public run has no such condition.
	if rs := s.ForRun("").Judge(&Run{Output: "addresses taken: no", Stats: &Stats{}}); len(rs) != 1 || rs[0].Skipped || !rs[0].Pass {
		t.Errorf("the public run: %+v", rs)
	}
}

// stream-pools' hidden run "1 round" is there for the overflow round's
// watchers, a line a harness from before them does not print: that run
// is then marked for review, not failed (a correct pool in an older file
// failed it), and a harness that prints the line is judged by it.
func TestStreamPoolsOneRoundArranged(t *testing.T) {
	data, err := os.ReadFile("../solutions/day087/stream_pools.toml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec("stream_pools.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	run := s.ForRun("1 round")
	older := "overflow: 4096 of 8192 requests failed, 4096 counted by the pools, offsets within capacity: yes, high-water marks at capacity: 4 of 4\n"
	watched := func(n int) string {
		return older + fmt.Sprintf("high-water marks seen going down while the overflow round asked: %d\n", n)
	}
	for _, tc := range []struct {
		name, out     string
		pass, skipped bool
	}{
		{"an older harness", older, true, true},
		{"the mark never went down", watched(0), true, false},
		{"the mark went down", watched(3), false, false},
	} {
		rs := run.Judge(&Run{Output: tc.out, Stats: &Stats{}})
		if len(rs) < 2 {
			t.Fatalf("%s: %d results", tc.name, len(rs))
		}
		pass := true
		for _, r := range rs {
			pass = pass && r.Pass
			if r.Skipped != tc.skipped {
				t.Errorf("%s: %q skipped %v, want %v", tc.name, r.Name, r.Skipped, tc.skipped)
			}
			if tc.skipped && r.Review == "" {
				t.Errorf("%s: %q skipped but not marked for review", tc.name, r.Name)
			}
		}
		if pass != tc.pass {
			t.Errorf("%s: passed %v, want %v: %+v", tc.name, pass, tc.pass, rs)
		}
	}
}

// review/blind7's holes closed by hidden runs that judge a line of the
// harness: stream-pools' gapped round must refuse exactly 2112 of 6144
// requests (a straddling warp served in part refuses fewer, however it
// counts them), and heap-vs-pool's run "lists that fit kept in their
// slice" asks that no block sent to the heap a list its slice had room
// for; a harness from before that line is marked for review, not failed.
func TestBlind7HiddenRunsJudgeTheirLines(t *testing.T) {
	judge := func(spec, run, out string) (pass, skipped bool) {
		t.Helper()
		data, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		// The public spec says timed; the secret one is read alone here.
		data = append([]byte("timed = true\n"), data...)
		s, err := ParseSpec(filepath.Base(spec), data)
		if err != nil {
			t.Fatal(err)
		}
		pass = true
		for _, r := range s.ForRun(run).Judge(&Run{Output: out, Stats: &Stats{}}) {
			pass = pass && r.Pass
			skipped = skipped || r.Skipped
		}
		return pass, skipped
	}
	const pools = "../solutions/day087/stream_pools.toml"
	gapped := func(failed int) string {
		return fmt.Sprintf("gapped round: 24 of 32 lanes of each warp ask\ngapped round: %d of 6144 requests failed, %d counted by the pools\n", failed, failed)
	}
	if pass, _ := judge(pools, "warps with gaps refused", gapped(2112)); !pass {
		t.Errorf("stream-pools: 2112 of 6144 refused, all counted: failed, want passed")
	}
	if pass, _ := judge(pools, "warps with gaps refused", gapped(2048)); pass {
		t.Errorf("stream-pools: 2048 of 6144 refused (a straddling warp served in part), all counted: passed, want failed")
	}
	const heap = "../solutions/day086/heap_vs_pool.toml"
	const line = "blocks that sent a list to the heap while their slice had room for it: "
	for _, tc := range []struct {
		out           string
		pass, skipped bool
	}{
		{"lists from the heap: some\n", true, true},
		{line + "0\n", true, false},
		{line + "78\n", false, false},
	} {
		pass, skipped := judge(heap, "lists that fit kept in their slice", tc.out)
		if pass != tc.pass || skipped != tc.skipped {
			t.Errorf("heap-vs-pool on %q: passed %v, skipped %v; want %v, %v", tc.out, pass, skipped, tc.pass, tc.skipped)
		}
	}
}

// A hidden run's settled_queries reaches the library for that run only
// ($LESSONS_STATS_SETTLED_QUERIES, set by internal/exercise).
func TestHiddenRunSettlesQueries(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n[[hidden_run]]\nname = \"late host\"\nsettled_queries = true\n[[hidden_run]]\nname = \"plain\"\n"+
		"[[check]]\nrun = \"late host\"\nexit = 0\n[[check]]\nrun = \"plain\"\nexit = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.ForRun("late host").SettledQueries() {
		t.Error("the hidden run's queries are not settled")
	}
	if s.ForRun("").SettledQueries() || s.Public().SettledQueries() || s.ForRun("plain").SettledQueries() {
		t.Error("a run without settled_queries has its queries settled")
	}
}

// A hidden run's pending_queries reaches the library for that run only.
func TestHiddenRunPendingQueries(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n[[hidden_run]]\nname = \"late GPU\"\npending_queries = true\n[[hidden_run]]\nname = \"plain\"\n"+
		"[[check]]\nrun = \"late GPU\"\nexit = 0\n[[check]]\nrun = \"plain\"\nexit = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.ForRun("late GPU").PendingQueries() || s.ForRun("late GPU").SettledQueries() {
		t.Error("the hidden run's first queries are not answered pending")
	}
	if s.ForRun("").PendingQueries() || s.Public().PendingQueries() || s.ForRun("plain").PendingQueries() {
		t.Error("a run without pending_queries has its first queries answered pending")
	}
}

// review/blind25's pool-reuse: the run with buffers of 33 MiB asks for
// the narrow phase's used mark as a number (a finish that restarts the
// marks, as that set's correct design's does, leaves the record's
// pool_used_high 0), and the run past 4 GiB asks that the wide phase's
// second round find its 4160 MiB (a held() that keeps the spare in an
// unsigned finds none).
func TestPoolReuseBlind25JudgesItsLines(t *testing.T) {
	data, err := os.ReadFile("../solutions/day069/pool_reuse.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The public spec's checks are left out: one visible check in their
	// place, for the secret spec read alone.
	s, err := ParseSpec("pool_reuse.toml", append([]byte("[[check]]\nexit = 0\n"), data...))
	if err != nil {
		t.Fatal(err)
	}
	judge := func(run, out string) (pass bool, failed []string) {
		t.Helper()
		// Stats{}: the library read no mark from the pool (it was 0 at
		// its destroy).
		rs := s.ForRun(run).Judge(&Run{Output: out, Stats: &Stats{}})
		if len(rs) == 0 {
			t.Fatalf("run %q: no checks", run)
		}
		pass = true
		for _, r := range rs {
			if r.Skipped {
				t.Errorf("run %q: %q skipped", run, r.Name)
			}
			if !r.Pass {
				pass = false
				failed = append(failed, r.Name)
			}
		}
		return pass, failed
	}
	thirtyThree := func(wideUsed, narrowUsed int) string {
		return "measured wide: one round reserves 160 MiB\nmeasured narrow: one round reserves 64 MiB\n" +
			"entering wide: reserved 0 MiB, its rounds reserve 160 MiB\n" +
			"wide: 2 of 3 rounds found their 132 MiB already reserved\n" +
			fmt.Sprintf("phase wide: used high %d MiB, reserved high 160 MiB, threshold 160 MiB\n", wideUsed) +
			"entering narrow: reserved 64 MiB, its rounds reserve 64 MiB\n" +
			"narrow: 3 of 3 rounds found their 33 MiB already reserved\n" +
			fmt.Sprintf("phase narrow: used high %d MiB, reserved high 64 MiB, threshold 64 MiB\n", narrowUsed) +
			"after the trim: reserved 0 MiB\n"
	}
	if pass, failed := judge("buffers of 33 MiB", thirtyThree(132, 33)); !pass {
		t.Errorf("buffers of 33 MiB, the marks restarted by finish: failed %q, want passed", failed)
	}
	if pass, _ := judge("buffers of 33 MiB", thirtyThree(132, 64)); pass {
		t.Errorf("buffers of 33 MiB, the narrow report's used figure the reserved mark: passed, want failed")
	}
	pastFour := func(found int) string {
		return "the wide phase asks for 4160 MiB at once, past 4 GiB\n" +
			"measured wide: one round reserves 4160 MiB\nmeasured narrow: one round reserves 520 MiB\n" +
			"entering wide: reserved 0 MiB, its rounds reserve 4160 MiB\n" +
			fmt.Sprintf("wide: %d of 2 rounds found their 4160 MiB already reserved\n", found) +
			"phase wide: used high 4160 MiB, reserved high 4160 MiB, threshold 4160 MiB\n" +
			"entering narrow: reserved 520 MiB, its rounds reserve 520 MiB\n" +
			"narrow: 2 of 2 rounds found their 520 MiB already reserved\n" +
			"phase narrow: used high 520 MiB, reserved high 520 MiB, threshold 520 MiB\n" +
			"after the trim: reserved 0 MiB\n"
	}
	if pass, failed := judge("8 buffers of 520 MiB", pastFour(1)); !pass {
		t.Errorf("8 buffers of 520 MiB, the second wide round found: failed %q, want passed", failed)
	}
	if pass, failed := judge("8 buffers of 520 MiB", pastFour(0)); pass || !slices.ContainsFunc(failed, func(n string) bool { return strings.Contains(n, "of 2 rounds found") }) {
		t.Errorf("8 buffers of 520 MiB, no wide round found (a 32-bit spare): passed %v, failed %q; want the rounds found failed", pass, failed)
	}
}

// python-handoff's bound on what is live at once (review/blind26): a
// pipeline that keeps a fixed few batches in flight passes it with 12
// batches and with 17, whatever the depth it chose (the lesson names
// none); one that keeps its tensors to the end fails both, and one that
// keeps one tensor in three fails the 17-batch run. The peaks are the
// H200's (the solution's 64 MiB, blind26's window of three 117444716
// bytes) or counted from them (16 MiB a tensor; 32 MiB the sum's float64
// copy; the few KiB of the sums and the scalars).
func TestPythonHandoffPeakGrowsNotWithTheBatches(t *testing.T) {
	s := courseSpec(t, "../exercises/day077/handoff.toml", "../solutions/day077/handoff.toml")
	// passes says whether the run's peak checks pass; every other check
	// is left out.
	passes := func(run string, peak uint64) bool {
		t.Helper()
		n, pass := 0, true
		for _, r := range s.ForRun(run).Judge(&Run{Stats: &Stats{PeakLiveBytes: peak}}) {
			if r.Check != nil && r.Check.Stat == "peak_live_bytes" {
				n++
				pass = pass && r.Pass
			}
		}
		if n != 1 {
			t.Fatalf("run %q: %d checks of peak_live_bytes, want 1", run, n)
		}
		return pass
	}
	const mib, small = 1 << 20, 4204
	tensors := func(n uint64) uint64 { return n*16*mib + 32*mib + small }
	for _, tc := range []struct {
		design        string
		twelve, seven uint64 // peaks with 12 and 17 batches
		pass12, pass7 bool
	}{
		{"the solution (record_stream)", tensors(2), tensors(2), true, true},
		{"dropped one batch late (blind_correct)", tensors(3), tensors(3), true, true},
		{"blind26's window of three", 117444716, 117444716, true, true},
		{"a window of five", tensors(7), tensors(7), true, true},
		{"one tensor in three kept to the end", tensors(6), tensors(8), true, false},
		{"every tensor kept to the end (keep_all)", tensors(13), tensors(18), false, false},
	} {
		if got := passes("", tc.twelve); got != tc.pass12 {
			t.Errorf("%s, 12 batches (%d bytes): passed %v, want %v", tc.design, tc.twelve, got, tc.pass12)
		}
		if got := passes("17 batches", tc.seven); got != tc.pass7 {
			t.Errorf("%s, 17 batches (%d bytes): passed %v, want %v", tc.design, tc.seven, got, tc.pass7)
		}
	}
}

// DiffLines are the changed lines of an equivalent mutant's diff as
// verify shows it or as a TOML string wraps it: the head, blank lines and
// the indentation left out (round 26).
func TestDiffLines(t *testing.T) {
	shown := "@@ line 132 @@\n-    for (int i = 0; i < n; i++) f(i);\n+    for (int i = 0; i <= n; i++) f(i);\n"
	written := "\n-  for (int i = 0; i < n; i++) f(i);\n\n+\tfor (int i = 0; i <= n; i++) f(i);  \n"
	if a, b := DiffLines(shown), DiffLines(written); !slices.Equal(a, b) || len(a) != 2 {
		t.Errorf("%q and %q differ", a, b)
	}
	if !diffLinesOK("-a\n+b\n... 3 more lines\n") || diffLinesOK("-a\n b\n") {
		t.Errorf("a long diff's tail, or a line that is no change, misjudged")
	}
	if a, b := DiffLines(shown), DiffLines("+    for (int i = 0; i <= n; i++) f(i);\n"); slices.Equal(a, b) {
		t.Errorf("a change without its removed line taken as the change: %q", b)
	}
}

// graph-alloc's produce factors and its run of 1 MiB (review/blind27).
// The harness now prints, after produce's total, what factor each launch
// of produce ran with: the check of it passes the line of a correct
// design and a file from before the line (its total followed by the
// graph memory line), and fails factors counted down, whose totals are
// right. The hidden run "2 launches of 1 MiB" asks for the end of the
// run: sums on a grid rounded down to 0 stop the program there.
func TestGraphAllocFactorsInOrderAndOneMiB(t *testing.T) {
	s := courseSpec(t, "../exercises/day074/graph_alloc.toml", "../solutions/day074/graph_alloc.toml")
	// passes says whether the run's checks named name pass on output and
	// exit status code; every other check is left out.
	passes := func(run, name, output string, code int) bool {
		t.Helper()
		n, pass := 0, true
		for _, r := range s.ForRun(run).Judge(&Run{Output: output, ExitCode: code, Stats: &Stats{}}) {
			if r.Check != nil && r.Check.Name == name {
				n++
				pass = pass && r.Pass
			}
		}
		if n != 1 {
			t.Fatalf("run %q: %d checks named %q, want 1", run, n, name)
		}
		return pass
	}
	const factors = "produce's k-th launch scales by k"
	head := "step total 838860800 (expected 838860800)\nproduce total 230686720 (expected 230686720)\n"
	tail := "graph memory: used high 64 MiB, reserved 64 MiB\nafter the trim: graph memory reserved 0 MiB, used 0 MiB\n"
	for _, tc := range []struct {
		design, line string
		pass         bool
	}{
		{"a correct design", "produce's launches: each scaled by its number\n", true},
		{"a file from before the line", "", true},
		{"factors counted down (blind27)", "produce's launches: launch 1 scaled by 10, not by its number\n", false},
		{"a launch missing", "produce's launches: 9 seen, for 10 launches\n", false},
	} {
		for _, run := range []string{"", "2 launches of 1 MiB"} {
			if got := passes(run, factors, head+tc.line+tail, 0); got != tc.pass {
				t.Errorf("%s, run %q: passed %v, want %v", tc.design, run, got, tc.pass)
			}
		}
	}
	if !passes("2 launches of 1 MiB", "runs to the end", head+tail, 0) {
		t.Error("a correct design's run of 1 MiB does not pass runs to the end")
	}
	stopped := "step graph: 2 allocation nodes, 2 free nodes\ngraph_alloc.cu:245: operation failed due to a previous error during capture\n"
	if passes("2 launches of 1 MiB", "runs to the end", stopped, 1) {
		t.Error("sums on a grid of 0 (exit status 1) pass runs to the end in the run of 1 MiB")
	}
}

// courseSpec is a course's exercise spec at public with the secret spec
// at secret added, as the grader reads them.
func courseSpec(t *testing.T, public, secret string) *Spec {
	t.Helper()
	s, err := LoadSpec(public)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(secret)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := ParseSecret(filepath.Base(secret), data)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddSecret(sec); err != nil {
		t.Fatal(err)
	}
	return s
}
