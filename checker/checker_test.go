package checker

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestLayoutMatchesLibrary compares the fields of struct Record in
// kernels/allocstats.cu with Stats, name for name and in order.
func TestLayoutMatchesLibrary(t *testing.T) {
	src, err := os.ReadFile("../kernels/allocstats.cu")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)struct Record \{(.*?)\n\};`).FindSubmatch(src)
	if body == nil {
		t.Fatal("struct Record not found")
	}
	var cNames []string
	for _, line := range strings.Split(string(body[1]), "\n") {
		line = strings.TrimSpace(regexp.MustCompile(`//.*`).ReplaceAllString(line, ""))
		if line == "" {
			continue
		}
		decl := strings.TrimSuffix(line, ";")
		decl = regexp.MustCompile(`^(uint64_t|Pool|char)\s+`).ReplaceAllString(decl, "")
		for _, n := range strings.Split(decl, ",") {
			n = strings.TrimSpace(regexp.MustCompile(`\[.*\]`).ReplaceAllString(n, ""))
			cNames = append(cNames, n)
		}
	}
	idx := statIndex()
	byField := map[int]string{}
	for name, i := range idx {
		byField[i] = name
	}
	var goNames []string
	st := Stats{}
	for i, f := range fields(st) {
		if n, ok := byField[i]; ok {
			goNames = append(goNames, n)
		} else {
			goNames = append(goNames, snake(f))
		}
	}
	if strings.Join(cNames, " ") != strings.Join(goNames, " ") {
		t.Errorf("layouts differ\nC:  %v\nGo: %v", cNames, goNames)
	}
	// The recorded runs are of version 2: their size is what Stats has
	// before the fields of version 3.
	rec, _ := os.ReadFile("testdata/runs/async_solution.bin")
	if len(rec) < 16 || binary.LittleEndian.Uint64(rec[8:]) != 2 {
		t.Fatalf("testdata/runs/async_solution.bin is not a version 2 record")
	}
	if v2Size != len(rec) {
		t.Errorf("Stats up to version 2 is %d bytes, the library wrote %d", v2Size, len(rec))
	}
	if got, want := v3Size-v2Size, 8*8; got != want {
		t.Errorf("version 3 adds %d bytes, want %d (eight figures)", got, want)
	}
	if got, want := v4Size-v3Size, 6*8; got != want {
		t.Errorf("version 4 adds %d bytes, want %d (six figures)", got, want)
	}
	if got, want := v5Size-v4Size, 12*8; got != want {
		t.Errorf("version 5 adds %d bytes, want %d (twelve figures)", got, want)
	}
	if got, want := v6Size-v5Size, 4*8+192; got != want {
		t.Errorf("version 6 adds %d bytes, want %d (four figures and the first use after free in words)", got, want)
	}
	if got, want := v7Size-v6Size, 7*8; got != want {
		t.Errorf("version 7 adds %d bytes, want %d (seven figures)", got, want)
	}
	if got, want := v8Size-v7Size, 8*8+192; got != want {
		t.Errorf("version 8 adds %d bytes, want %d (eight figures and the first unwaited result in words)", got, want)
	}
	if got, want := v9Size-v8Size, 10*8; got != want {
		t.Errorf("version 9 adds %d bytes, want %d (ten figures)", got, want)
	}
	if got, want := v10Size-v9Size, 4*8; got != want {
		t.Errorf("version 10 adds %d bytes, want %d (four figures)", got, want)
	}
	if got, want := v11Size-v10Size, 5*8; got != want {
		t.Errorf("version 11 adds %d bytes, want %d (five figures)", got, want)
	}
	if got, want := v12Size-v11Size, 2*8; got != want {
		t.Errorf("version 12 adds %d bytes, want %d (two figures)", got, want)
	}
	if got, want := v13Size-v12Size, 1*8; got != want {
		t.Errorf("version 13 adds %d bytes, want %d (one figure)", got, want)
	}
	if got, want := v14Size-v13Size, 1*8; got != want {
		t.Errorf("version 14 adds %d bytes, want %d (one figure)", got, want)
	}
	if got, want := v15Size-v14Size, 2*8; got != want {
		t.Errorf("version 15 adds %d bytes, want %d (two figures)", got, want)
	}
	if got, want := v16Size-v15Size, 2*8; got != want {
		t.Errorf("version 16 adds %d bytes, want %d (two figures)", got, want)
	}
	if got, want := v17Size-v16Size, 1*8; got != want {
		t.Errorf("version 17 adds %d bytes, want %d (one figure)", got, want)
	}
	if got, want := v18Size-v17Size, 1*8; got != want {
		t.Errorf("version 18 adds %d bytes, want %d (one figure)", got, want)
	}
	if got, want := v19Size-v18Size, 2*8; got != want {
		t.Errorf("version 19 adds %d bytes, want %d (two figures)", got, want)
	}
	if got, want := v20Size-v19Size, 5*8; got != want {
		t.Errorf("version 20 adds %d bytes, want %d (five figures)", got, want)
	}
	if got, want := v21Size-v20Size, 2*8; got != want {
		t.Errorf("version 21 adds %d bytes, want %d (two figures)", got, want)
	}
	if got, want := v22Size-v21Size, 1*8; got != want {
		t.Errorf("version 22 adds %d bytes, want %d (one figure)", got, want)
	}
	if got, want := binary.Size(st)-v22Size, 1*8; got != want {
		t.Errorf("version 23 adds %d bytes, want %d (one figure)", got, want)
	}
}

// TestLibraryWritesThisVersion: every place the library stamps a record
// (a process's first record, a forked child's fresh one) writes
// statsVersion. A library left a version behind would have its record
// read as the older one's, the newer figures 0: version 22's
// vmm_retain_attempts 0 would fail every honest retain against the
// outside witness's count.
func TestLibraryWritesThisVersion(t *testing.T) {
	src, err := os.ReadFile("../kernels/allocstats/channel.h")
	if err != nil {
		t.Fatal(err)
	}
	stamps := regexp.MustCompile(`rec->version = ([0-9]+);`).FindAllSubmatch(src, -1)
	if len(stamps) < 2 {
		t.Fatalf("kernels/allocstats/channel.h stamps %d records with a version; want the first record's and the forked child's", len(stamps))
	}
	for _, m := range stamps {
		if string(m[1]) != fmt.Sprint(statsVersion) {
			t.Errorf("kernels/allocstats/channel.h writes version %s, checker reads up to %d: bump both together", m[1], statsVersion)
		}
	}
	rec, err := os.ReadFile("../kernels/allocstats.cu")
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, m := range regexp.MustCompile(`// version ([0-9]+)[: ]`).FindAllSubmatch(rec, -1) {
		last = string(m[1])
	}
	if last != fmt.Sprint(statsVersion) {
		t.Errorf("struct Record's last group says version %s, checker reads up to %d", last, statsVersion)
	}
}

func fields(Stats) []string {
	rt := reflectType()
	out := make([]string, rt.NumField())
	for i := range out {
		out[i] = rt.Field(i).Name
	}
	return out
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// recorded is what each recorded program did besides its output, and
// whether it should pass (every solution, and the correct variants).
var recorded = map[string]struct {
	spec   string
	exit   int
	ended  string
	passes bool
}{
	"async_solution":          {"async_pipeline", 0, "", true},
	"async_stub":              {"async_pipeline", 0, "", false},
	"async_print_only":        {"async_pipeline", 0, "", false},
	"async_sync_malloc":       {"async_pipeline", 0, "", false},
	"async_never_frees":       {"async_pipeline", 0, "", false},
	"async_default_stream":    {"async_pipeline", 0, "", false},
	"async_crash_after_alloc": {"async_pipeline", -1, "killed by signal 11 (segmentation fault)", false},
	"cross_solution":          {"cross_stream", 0, "", true},
	"cross_stub":              {"cross_stream", 1, "", false},
	"cross_no_free_wait":      {"cross_stream", 1, "", false},
	"cross_event_before_fill": {"cross_stream", 0, "", false},
	"cross_host_sync":         {"cross_stream", 0, "", true},
	"pool_solution":           {"pool_reuse", 0, "", true},
	"pool_stub":               {"pool_reuse", 0, "", false},
	"pool_default_pool":       {"pool_reuse", 0, "", false},
	"block_pool_solution":     {"block_pool", 0, "", true},
	"block_pool_stub":         {"block_pool", 1, "", false},
	"vmm_solution":            {"growable", 0, "", true},
	"vmm_stub":                {"growable", 1, "", false},
	"resource_solution":       {"pool_resource", 0, "", true},
	"resource_stub":           {"pool_resource", 0, "", false},
	"stream_pools_solution":   {"stream_pools", 0, "", true},
	"stream_pools_stub":       {"stream_pools", 1, "", false},
}

// specFiles are the specs the runs were recorded against, kept beside
// them: the course's own specs have moved on since (issue 29 rewrote the
// exercises), and a recorded run is judged by the spec of its program.
var specFiles = map[string]string{
	"async_pipeline": "testdata/runs/specs/async_pipeline.toml",
	"cross_stream":   "testdata/runs/specs/cross_stream.toml",
	"pool_reuse":     "testdata/runs/specs/pool_reuse.toml",
	"block_pool":     "testdata/runs/specs/block_pool.toml",
	"growable":       "testdata/runs/specs/growable.toml",
	"stream_pools":   "testdata/runs/specs/stream_pools.toml",
	"pool_resource":  "testdata/runs/specs/pool_resource.toml",
}

// TestRecordedRuns judges the runs recorded on the H100 and expects the
// verdicts given there.
func TestRecordedRuns(t *testing.T) {
	var verdicts map[string][]bool
	data, err := os.ReadFile("testdata/runs/verdicts.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &verdicts); err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != len(recorded) {
		t.Fatalf("%d verdicts for %d recorded runs", len(verdicts), len(recorded))
	}
	for name, rc := range recorded {
		t.Run(name, func(t *testing.T) {
			spec, err := LoadSpec(specFiles[rc.spec])
			if err != nil {
				t.Fatal(err)
			}
			stats, err := readStats(filepath.Join("testdata/runs", name+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := os.ReadFile(filepath.Join("testdata/runs", name+".txt"))
			run := &Run{Output: string(out), ExitCode: rc.exit, Ended: rc.ended, Stats: stats}
			if log, err := os.ReadFile(filepath.Join("testdata/runs", name+".memcheck")); err == nil {
				run.Sanitizers = map[string]*SanitizerReport{"memcheck": ParseSanitizer("memcheck", log)}
			}
			res := spec.Judge(run)
			if rc.ended != "" {
				if res[0].Check != nil || res[0].Pass || res[0].Got != rc.ended {
					t.Fatalf("a run that ended with %q should fail \"ends by itself\" first: %+v", rc.ended, res[0])
				}
				res = res[1:]
			}
			want := verdicts[name]
			for i, r := range res {
				if r.Pass != want[i] {
					t.Errorf("check %d (%s): pass = %v, the H100 said %v (got %s)", i+1, r.Name, r.Pass, want[i], r.Got)
				}
			}
			if Passed(res) != rc.passes {
				t.Errorf("passed = %v", Passed(res))
			}
		})
	}
}

func TestStatsAgreeWithCUDA(t *testing.T) {
	s, err := readStats("testdata/runs/async_solution.bin")
	if err != nil {
		t.Fatal(err)
	}
	// The solution prints the default pool's UsedMemHigh as CUDA reports it.
	out, _ := os.ReadFile("testdata/runs/async_solution.txt")
	if !strings.Contains(string(out), "high watermark: 4194304 bytes") {
		t.Fatalf("output = %q", out)
	}
	if v, _ := s.Value("pool_used_high"); v != 4194304 {
		t.Errorf("pool_used_high = %v, the program read 4194304 from CUDA", v)
	}
	for name, want := range map[string]float64{
		"malloc_async_calls": 12, "free_async_calls": 12, "malloc_async_bytes": 12 * 4194304,
		"async_streams": 4, "leaked_allocs": 0, "exited": 1, "malloc_calls": 0,
	} {
		if v, _ := s.Value(name); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
}

func TestVMMStatistics(t *testing.T) {
	s, err := readStats("testdata/runs/vmm_solution.bin")
	if err != nil {
		t.Fatal(err)
	}
	// 1 MiB rounded to the 2 MiB granularity, then 100 MiB: two chunks.
	for name, want := range map[string]float64{
		"vmm_reserve_calls": 1, "vmm_reserve_bytes": 1 << 30, "vmm_create_calls": 2, "vmm_create_bytes": 100 << 20,
		"vmm_map_calls": 2, "vmm_map_bytes": 100 << 20, "vmm_set_access_calls": 2, "vmm_unmap_calls": 2, "vmm_release_calls": 2,
		"malloc_calls": 0, "exited": 1,
	} {
		if v, _ := s.Value(name); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
}

// TestRaces: the races the cross-stream variants make are counted and
// told in words; the correct ones, with events or host synchronisations,
// have none.
func TestRaces(t *testing.T) {
	for name, want := range map[string][3]string{
		"cross_solution":          {"0", "0", ""},
		"cross_host_sync":         {"0", "0", ""},
		"cross_stub":              {"6", "6", "kernel sum on stream 2 used a 16 MiB buffer before its cudaMallocAsync on stream 1 was ordered before it"},
		"cross_no_free_wait":      {"0", "6", "cudaFreeAsync on stream 1 freed a 16 MiB buffer that kernel sum on stream 2 may still be using"},
		"cross_event_before_fill": {"6", "0", "kernel sum on stream 2 used memory of a 16 MiB allocation that kernel fill on stream 1 may still be using"},
		"resource_solution":       {"0", "0", ""},
		"resource_stub":           {"14", "0", "kernel fill on stream 2 used memory of a 16 MiB allocation that kernel sum on stream 1 may still be using"},
	} {
		s, err := readStats(filepath.Join("testdata/runs", name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		uses, frees := fmt.Sprint(s.UnorderedUses), fmt.Sprint(s.UnorderedFrees)
		if uses != want[0] || frees != want[1] {
			t.Errorf("%s: unordered uses %s, frees %s; want %s, %s", name, uses, frees, want[0], want[1])
		}
		note := s.RaceNote("unordered_uses") + s.RaceNote("unordered_frees")
		if !strings.Contains(note, want[2]) || (want[2] == "") != (note == "") {
			t.Errorf("%s: race note %q, want %q", name, note, want[2])
		}
		// 6 (or 8) rounds of fill and sum, each launch's arguments seen.
		if s.KernelLaunches < 12 || s.LaunchesInspected != s.KernelLaunches || s.BufferUses < s.KernelLaunches {
			t.Errorf("%s: launches %d, inspected %d, buffer uses %d", name, s.KernelLaunches, s.LaunchesInspected, s.BufferUses)
		}
	}
}

// TestPoolFiguresAgreeWithCUDA: what the program read from its pool's
// attributes, what the library read from them when the pool was
// destroyed, and what it counted itself, agree.
func TestPoolFiguresAgreeWithCUDA(t *testing.T) {
	s, err := readStats("testdata/runs/pool_solution.bin")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile("testdata/runs/pool_solution.txt")
	if !strings.Contains(string(out), "reserved 32 MiB (high 32 MiB), used high 32 MiB") {
		t.Fatalf("output = %q", out)
	}
	high, _ := s.Value("pool_used_high")
	reserved, _ := s.Value("pool_reserved_high")
	if high != 32<<20 || reserved != 32<<20 || float64(s.PeakLiveBytes) != high {
		t.Errorf("pool used high %v, reserved high %v, peak live %d; the program read 32 MiB", high, reserved, s.PeakLiveBytes)
	}
	if s.ReleaseThreshold != 64<<20 || s.PoolTrims != 1 || s.MallocFromPoolCalls != 8 {
		t.Errorf("threshold %d, trims %d, allocations %d", s.ReleaseThreshold, s.PoolTrims, s.MallocFromPoolCalls)
	}
}

// TestVersion3Statistics: the figures of version 3 are read by name from
// a record of version 3, are 0 in a record of version 2 (the runs recorded
// on the H100 before them), and a version 3 record cut at version 2's
// size is short.
func TestVersion3Statistics(t *testing.T) {
	names := []string{"sync_memsets", "sync_memcpys", "waits_between_async_allocs", "async_stream_syncs",
		"default_stream_ops", "kernel_allocs_used", "kernel_addresses_used", "event_pairs"}
	var s Stats
	for i, n := range names {
		if err := s.Set(n, uint64(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if v, ok := got.Value(n); !ok || v != float64(10+i) {
			t.Errorf("%s = %v, %v; want %d", n, v, ok, 10+i)
		}
		if !slices.Contains(StatNames(), n) {
			t.Errorf("StatNames lacks %s", n)
		}
		if describe(n) == strings.ReplaceAll(n, "_", " ") {
			t.Errorf("%s has no words of its own", n)
		}
	}
	if got.SyncMemsets != 10 || got.EventPairs != 17 {
		t.Errorf("fields: %+v", got)
	}
	if _, err := DecodeStats(s.Encode()[:v2Size]); err == nil {
		t.Error("a version 3 record cut at version 2's size decoded")
	}
	v2, err := readStats("testdata/runs/stream_pools_solution.bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if v, _ := v2.Value(n); v != 0 {
			t.Errorf("%s = %v in a version 2 record", n, v)
		}
	}
	if v2.MallocCalls != 4 {
		t.Errorf("the version 2 record reads malloc_calls %d", v2.MallocCalls)
	}
	// A spec may bound them, and a failed check says what they count.
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"sync_memsets\"\nequals = 2\n[[check]]\nstat = \"event_pairs\"\nat_least = 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := spec.Judge(&Run{Stats: &Stats{SyncMemsets: 3, EventPairs: 7}})
	if len(res) != 2 || res[0].Pass || !res[1].Pass || !strings.Contains(res[0].Got, "cudaMemset") {
		t.Errorf("results: %+v", res)
	}
}

// TestVersion1Records: records written before the race figures existed
// still decode, with those figures 0.
func TestVersion1Records(t *testing.T) {
	s := Stats{MallocCalls: 3, UnorderedUses: 9}
	data := s.Encode()[:v1Size]
	binary.LittleEndian.PutUint64(data[8:], 1)
	got, err := DecodeStats(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.MallocCalls != 3 || got.UnorderedUses != 0 {
		t.Errorf("decoded %+v", got)
	}
	if _, err := DecodeStats(data[:v1Size-1]); err == nil {
		t.Error("a short version 1 record decoded")
	}
	binary.LittleEndian.PutUint64(data[8:], 4)
	if _, err := DecodeStats(data); err == nil {
		t.Error("a record of an unknown version decoded")
	}
	// A record the version 1 library wrote on the H100 (the async-pipeline
	// solution, before the race figures).
	s1, err := readStats("testdata/async_solution_v1.bin")
	if err != nil {
		t.Fatal(err)
	}
	if s1.Version != 1 || s1.MallocAsyncCalls != 12 || s1.AsyncStreams != 4 || s1.UnorderedUses != 0 {
		t.Errorf("version 1 record: %+v", s1)
	}
}

func TestCrashKeepsWhatWasRecorded(t *testing.T) {
	s, err := readStats("testdata/runs/async_crash_after_alloc.bin")
	if err != nil {
		t.Fatal(err)
	}
	if s.MallocCalls != 3 || s.MallocBytes != 3<<20 || s.Exited != 0 || s.LiveAllocs != 3 {
		t.Errorf("record after a crash = %+v", s)
	}
}

func TestSpecErrors(t *testing.T) {
	for name, tc := range map[string]struct{ spec, want string }{
		"unknown key":     {"[[check]]\nexit = 0\nfoo = 1\n", `s.toml:3: unknown key "check.foo"`},
		"unknown stat":    {"[[check]]\nstat = \"mallocs\"\nat_least = 1\n", `s.toml:2: unknown statistic "mallocs"`},
		"bad regex":       {"[[check]]\nexit = 0\n[[check]]\nregex = \"([0-9\"\n", `s.toml:4: regex "([0-9" does not compile`},
		"no bound":        {"[[check]]\nstat = \"malloc_calls\"\n", "s.toml:1: check of malloc_calls has no bound"},
		"two kinds":       {"[[check]]\nexit = 0\ncontains = \"x\"\n", "s.toml:1: check 1 has 2 kinds"},
		"bound on text":   {"[[check]]\ncontains = \"x\"\nat_least = 2\n", "s.toml:1: check 1 has bounds but no figure to bound"},
		"no group":        {"[[check]]\nregex = \"Speedup\"\nat_least = 2\n", "s.toml:2: regex \"Speedup\" captures 0 groups"},
		"no checks":       {"points = 3\n", "s.toml:1: the spec has no checks"},
		"bad timeout":     {"timeout = \"soon\"\n[[check]]\nexit = 0\n", `s.toml:1: timeout "soon" is not a duration`},
		"bad equal_to":    {"[[check]]\nstat = \"free_calls\"\nequal_to = \"frees\"\n", `s.toml:3: unknown statistic "frees"`},
		"toml syntax":     {"[[check]\n", "s.toml:1: cannot read s.toml: toml: expected"},
		"group to itself": {"[[check]]\nregex = 'a ([0-9]+) b ([0-9]+)'\nequal_to_group = 1\n", "s.toml:3: regex \"a ([0-9]+) b ([0-9]+)\" captures 2 groups; equal_to_group 1 is not another one"},
		"group missing":   {"[[check]]\nregex = 'a ([0-9]+)'\nequal_to_group = 2\n", "s.toml:3: regex \"a ([0-9]+)\" captures 1 groups; equal_to_group 2 is not another one"},
		"group no regex":  {"[[check]]\nstat = \"free_calls\"\nequal_to_group = 2\n", "s.toml:3: check 1 has equal_to_group but no regex"},
		"unit alone":      {"[[check]]\nregex = 'a ([0-9]+)'\nat_least = 1\nunit = 1024\n", "s.toml:4: check 1 has unit = 1024"},
		"unit negative":   {"[[check]]\nregex = 'a ([0-9]+)'\nequal_to = \"free_calls\"\nunit = -1\n", "s.toml:4: check 1 has unit = -1"},
		"unit of a count": {"[[check]]\nregex = 'a ([0-9]+)'\nequal_to = \"free_calls\"\nunit = 1024\n", "s.toml:4: check 1 has unit = 1024, but free_calls is a count"},
		"unit on a stat":  {"[[check]]\nstat = \"peak_live_bytes\"\nequal_to = \"pool_used_high\"\nunit = 1024\n", "s.toml:4: check 1 has unit = 1024"},
		"timed not bool":  {"timed = \"yes\"\n[[check]]\nexit = 0\n", "s.toml:1: timed is a TOML string here, but must be true or false"},
		"points disagree": {"points = 10\n[[check]]\nexit = 0\npoints = 3\n[[check]]\ncontains = \"x\"\npoints = 4\n", "s.toml:1: points = 10, but the checks' points add up to 7"},
		"points word":     {"[[check]]\nexit = 0\npoints = \"three\"\n", "s.toml:3: points is a TOML string here, but must be a whole number"},
		"bound word":      {"[[check]]\nstat = \"free_calls\"\nat_least = \"12\"\n", "s.toml:3: at_least is a TOML string here, but must be a number"},
		"negative points": {"[[check]]\nexit = 0\npoints = -1\n", "s.toml:3: check 1 has -1 points"},
	} {
		_, err := ParseSpec("s.toml", []byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v\nwant it to contain %s", name, err, tc.want)
		}
	}
}

func TestSpecTimed(t *testing.T) {
	for data, want := range map[string]bool{
		"timed = true\n[[check]]\nexit = 0\n": true,
		"[[check]]\nexit = 0\n":               false,
	} {
		s, err := ParseSpec("s.toml", []byte(data))
		if err != nil || s.Timed != want {
			t.Errorf("%q: timed %v, %v; want %v", data, s != nil && s.Timed, err, want)
		}
	}
}

func TestScore(t *testing.T) {
	partial, err := ParseSpec("s.toml", []byte("[[check]]\nexit = 0\npoints = 2\n[[check]]\ncontains = \"done\"\npoints = 3\n[[check]]\nnot_contains = \"error\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ParseSpec("s.toml", []byte("points = 10\n[[check]]\nexit = 0\n[[check]]\ncontains = \"done\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !partial.Partial() || partial.Points != 5 || whole.Partial() {
		t.Fatalf("partial %v (points %d), whole %v", partial.Partial(), partial.Points, whole.Partial())
	}
	for _, tc := range []struct {
		name       string
		run        Run
		part, full int
	}{
		{"every check", Run{Output: "done\n"}, 5, 10},
		{"the exit only", Run{Output: "half\n"}, 2, 0},
		{"a check without points fails", Run{Output: "done, error\n"}, 5, 10},
		{"nothing", Run{Output: "error\n", ExitCode: 1}, 0, 0},
		// A program stopped at its limit earns nothing, whatever it printed.
		{"did not end", Run{Output: "done\n", Ended: "timed out after 10s and was stopped"}, 0, 0},
	} {
		if got := partial.Score(partial.Judge(&tc.run)); got != tc.part {
			t.Errorf("%s: partial credit %d, want %d", tc.name, got, tc.part)
		}
		if got := whole.Score(whole.Judge(&tc.run)); got != tc.full {
			t.Errorf("%s: all or nothing %d, want %d", tc.name, got, tc.full)
		}
	}
	// A hidden run's result that is no check of the spec's (RunAll's
	// RunCheck) leaves the attempt nothing too, whatever else passed.
	hidden := append(partial.Judge(&Run{Output: "done\n"}), Result{Name: "[big] ends by itself", Check: RunCheck("[big] ends by itself", "big")})
	if got := partial.Score(hidden); got != 0 {
		t.Errorf("a hidden run stopped at its limit: partial credit %d, want 0", got)
	}
	if got := partial.Score(append(partial.Judge(&Run{Output: "done\n"}), Result{Name: "[big] ends by itself", Check: RunCheck("[big] ends by itself", "big"), Pass: true})); got != 5 {
		t.Errorf("a hidden run's passed RunCheck: partial credit %d, want 5", got)
	}
	// As a class server gets them from a pilot's node: the results sent
	// as JSON and scored there.
	var sent []Result
	if data, err := json.Marshal(hidden); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(data, &sent); err != nil {
		t.Fatal(err)
	}
	if got := partial.Score(sent); got != 0 {
		t.Errorf("a hidden run stopped at its limit, its results sent from a node as JSON: partial credit %d, want 0", got)
	}
	compile := []Result{{Name: "compiles", Want: "the file to compile", Got: "compile error"}}
	if partial.Score(compile) != 0 || whole.Score(compile) != 0 || partial.Score(nil) != 0 {
		t.Error("a file that does not compile scores nothing")
	}
}

func TestJudgeWords(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte(`
[[check]]
regex = 'Speedup: ([0-9.]+)x'
at_least = 1.5
[[check]]
regex = 'sum = ([0-9.e+-]+)'
equals = 100
within = 0.001
[[check]]
stat = "malloc_async_calls"
at_least = 10
message = "the pipeline should allocate once per iteration (10)"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Stats{}
	res := spec.Judge(&Run{Output: "Speedup: 1.2x\nsum = 100.05\n", Stats: s})
	if res[0].Pass || res[0].Want != "at least 1.5" || !strings.HasPrefix(res[0].Got, "1.2 (from") {
		t.Errorf("speedup: %+v", res[0])
	}
	if !res[1].Pass {
		t.Errorf("sum within 0.1%%: %+v", res[1])
	}
	if res[2].Pass || res[2].Got != "cudaMallocAsync was called 0 times" || res[2].Want != "the pipeline should allocate once per iteration (10)" {
		t.Errorf("stat: %+v", res[2])
	}
}

// TestEqualToGroup compares two numbers of one line, with a tolerance.
func TestEqualToGroup(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte(`
[[check]]
regex = 'sum ([0-9.]+) \(expected ([0-9.]+)\)'
equal_to_group = 2
within = 0.001
[[check]]
regex = 'high ([0-9]+) of ([0-9]+)'
at_least = 10
equal_to_group = 2
`))
	if err != nil {
		t.Fatal(err)
	}
	res := spec.Judge(&Run{Output: "sum 100.05 (expected 100)\nhigh 12 of 16\n"})
	if !res[0].Pass {
		t.Errorf("within 0.1%%: %+v", res[0])
	}
	if res[1].Pass || res[1].Want != "at least 10 and equal to 16 (group 2)" || !strings.HasPrefix(res[1].Got, "12 (from") {
		t.Errorf("12 against 16: %+v", res[1])
	}
	res = spec.Judge(&Run{Output: "sum 100.5 (expected 100)\n"})
	if res[0].Pass || res[0].Want != "100 within 0.1% (group 2)" {
		t.Errorf("100.5 against 100: %+v", res[0])
	}
}

// TestEqualToUnit: a number printed in MiB against a statistic in bytes,
// whole (rounded down or to the nearest) or within the tolerance, and a
// count of decimal megabytes refused once the two units part by more than
// one.
func TestEqualToUnit(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte(`
[[check]]
regex = 'peak ([0-9.]+) MiB'
equal_to = "pool_used_high"
unit = 1048576
within = 0.01
`))
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	for _, c := range []struct {
		out  string
		high uint64
		pass bool
	}{
		{"peak 48 MiB", 48*mib + 600, true},        // >> 20
		{"peak 49 MiB", 48*mib + mib*6/10, true},   // round()
		{"peak 48 MiB", 48*mib + mib*6/10, true},   // >> 20
		{"peak 48.6 MiB", 48*mib + mib*6/10, true}, // within 1%
		{"peak 50 MiB", 48*mib + 600, false},       // 48 MiB in MB: 50.33
		{"peak 33 MiB", 32*mib + 600, false},       // 32 MiB in MB: 33.55
		{"peak 16 MiB", 16*mib + 600, true},        // 16.78 MB shows as 16: one unit apart, seen by nothing
		{"peak 26 MiB", 25*mib + mib/2, true},      // 26.74 MB cut down to 26 is also 25.5 rounded: seen by nothing below about 30 MiB
		{"peak 27 MiB", 25*mib + mib/2, false},     // 26.74 MB rounded
		{"peak 0 MiB", 48 * mib, false},
		{"peak 47 MiB", 48*mib + 600, false},
	} {
		res := spec.Judge(&Run{Output: c.out + "\n", Stats: usedHigh(c.high)})
		if res[0].Pass != c.pass {
			t.Errorf("%q against %d bytes: pass %v, want %v (%+v)", c.out, c.high, res[0].Pass, c.pass, res[0])
		}
	}
	res := spec.Judge(&Run{Output: "peak 50 MiB\n", Stats: usedHigh(48 * mib)})
	if want := "equal to pool_used_high / 1048576 (48, printed whole 48, or within 1%)"; res[0].Want != want {
		t.Errorf("want %q, got %+v", want, res[0])
	}
	res = spec.Judge(&Run{Output: "peak 50 MiB\n", Stats: usedHigh(48*mib + mib*6/10)})
	if want := "equal to pool_used_high / 1048576 (48.6, printed whole 48 or 49, or within 1%)"; res[0].Want != want {
		t.Errorf("want %q, got %+v", want, res[0])
	}
	res = spec.Judge(&Run{Output: "peak 48 MiB\n"})
	if res[0].Pass {
		t.Errorf("passes with no record: %+v", res[0])
	}
	// A time printed in seconds against the kernels' milliseconds.
	ms, err := ParseSpec("s.toml", []byte("[[check]]\nregex = 'span ([0-9.]+) s'\nequal_to = \"kernel_span_ms\"\nunit = 1000\nwithin = 0.01\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := ms.Judge(&Run{Output: "span 2.5 s\n", Stats: &Stats{KernelSpanNs: 2_500_000_000}}); !res[0].Pass {
		t.Errorf("2.5 s against 2500 ms: %+v", res[0])
	}
}

// usedHigh is a record of one pool whose UsedMemHigh was high.
func usedHigh(high uint64) *Stats {
	s := &Stats{PoolCount: 1}
	s.Pools[0].UsedHigh = high
	return s
}

func FuzzParseSpec(f *testing.F) {
	for _, file := range specFiles {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte("[[check]]\nregex = '(x'\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("s.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		s.Judge(&Run{Output: "x 1\n", Stats: &Stats{}})
		s.Judge(&Run{Output: "", Stats: nil})
	})
}

// FuzzDecodeStats: the record is written by the student's program's
// process, so it is untrusted: any bytes give a record or an error, and
// every statistic and race note of a record can be read.
func FuzzDecodeStats(f *testing.F) {
	for _, name := range []string{"async_solution", "cross_stub", "resource_stub"} {
		data, err := os.ReadFile(filepath.Join("testdata/runs", name+".bin"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeStats(data)
		if err != nil {
			return
		}
		for _, n := range StatNames() {
			if _, ok := s.Value(n); !ok {
				t.Errorf("statistic %s cannot be read", n)
			}
		}
		_ = s.RaceNote("unordered_uses") + s.RaceNote("unordered_frees")
	})
}

// Without a record there is no number to compare with: the words say so,
// never "equal to malloc_async_calls (NaN)"; a record that could not be
// read says why.
func TestEqualToWithoutRecord(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"free_async_calls\"\nequal_to = \"malloc_async_calls\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []*Run{{}, {StatsErr: "the statistics record is short: not built with -cudart shared"}} {
		res := spec.Judge(run)
		if len(res) != 1 || res[0].Pass {
			t.Fatalf("results: %+v", res)
		}
		for _, s := range []string{res[0].Name, res[0].Want, res[0].Got} {
			if strings.Contains(s, "NaN") {
				t.Errorf("NaN in %q", s)
			}
		}
		if !strings.Contains(res[0].Name, "equal to malloc_async_calls") {
			t.Errorf("name %q", res[0].Name)
		}
		if run.StatsErr != "" && res[0].Got != run.StatsErr {
			t.Errorf("got %q, want the record's error", res[0].Got)
		}
	}
	// With a record, the other statistic's value is named.
	s := &Stats{}
	s.Set("malloc_async_calls", 12)
	res := spec.Judge(&Run{Stats: s})
	if res[0].Pass || !strings.Contains(res[0].Want, "equal to malloc_async_calls (12)") {
		t.Errorf("with a record: %+v", res[0])
	}
}

// TestVersion6Statistics: a use after free and the events made and
// destroyed are read by name, quoted when a check fails, merged over
// processes, and read as 0 from a version 5 record.
func TestVersion6Statistics(t *testing.T) {
	s := &Stats{UsesAfterFree: 1, EventsCreated: 4, EventsDestroyed: 3, LeakedEvents: 1}
	copy(s.AfterFreeUse[:], "kernel square on stream 2 used a 16 MiB buffer that cudaFreeAsync on stream 1 had freed before it was queued")
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"uses_after_free": 1, "events_created": 4, "events_destroyed": 3, "leaked_events": 1}
	for n, w := range want {
		if v, ok := got.Value(n); !ok || v != w {
			t.Errorf("%s = %v, %v; want %v", n, v, ok, w)
		}
		if describe(n) == strings.ReplaceAll(n, "_", " ") {
			t.Errorf("%s has no words of its own", n)
		}
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"uses_after_free\"\nequals = 0\n[[check]]\nstat = \"leaked_events\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := spec.Judge(&Run{Stats: got})
	if res[0].Pass || !strings.Contains(res[0].Got, "; the first: kernel square on stream 2") {
		t.Errorf("uses_after_free: %+v", res[0])
	}
	if res[1].Pass {
		t.Errorf("leaked_events: %+v", res[1])
	}
	m := MergeStats(&Stats{EventsCreated: 1}, got)
	if m.EventsCreated != 5 || m.RaceNote("uses_after_free") != got.RaceNote("uses_after_free") {
		t.Errorf("merged: %d events, note %q", m.EventsCreated, m.RaceNote("uses_after_free"))
	}
	v5 := s.Encode()[:v5Size]
	v5[8] = 5
	old, err := DecodeStats(v5)
	if err != nil {
		t.Fatal(err)
	}
	for n := range want {
		if v, _ := old.Value(n); v != 0 {
			t.Errorf("%s = %v in a version 5 record", n, v)
		}
	}
	if _, err := DecodeStats(s.Encode()[:v5Size]); err == nil {
		t.Error("a version 6 record cut at version 5's size decoded")
	}
}

// TestVersion7Statistics: the imports, the graphs' allocations and the
// frees of memory no hooked call allocated are read by name, merged over
// processes (an importer is often a forked child), and read as 0 from a
// version 6 record, which still decodes.
func TestVersion7Statistics(t *testing.T) {
	s := &Stats{PoolImports: 2, PoolImportBytes: 8 << 20, PoolImportFrees: 1, LeakedPoolImports: 1, GraphAllocs: 3, GraphAllocBytes: 3 << 20, UnknownFrees: 1}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"pool_imports": 2, "pool_import_bytes": 8 << 20, "pool_import_frees": 1, "leaked_pool_imports": 1,
		"graph_allocs": 3, "graph_alloc_bytes": 3 << 20, "unknown_frees": 1}
	for n, w := range want {
		if v, ok := got.Value(n); !ok || v != w {
			t.Errorf("%s = %v, %v; want %v", n, v, ok, w)
		}
		if describe(n) == strings.ReplaceAll(n, "_", " ") {
			t.Errorf("%s has no words of its own", n)
		}
	}
	if m := MergeStats(&Stats{PoolImportFrees: 1}, got); m.PoolImportFrees != 2 {
		t.Errorf("merged: %d frees of imports, want 2", m.PoolImportFrees)
	}
	v6 := s.Encode()[:v6Size]
	v6[8] = 6
	old, err := DecodeStats(v6)
	if err != nil {
		t.Fatal(err)
	}
	for n := range want {
		if v, _ := old.Value(n); v != 0 {
			t.Errorf("%s = %v in a version 6 record", n, v)
		}
	}
	if _, err := DecodeStats(s.Encode()[:v6Size]); err == nil {
		t.Error("a version 7 record cut at version 6's size decoded")
	}
}

// TestVersion8Statistics: polls, results read before their wait, pool
// settings on a pool nothing came from and a graph's relaunch frees are
// read by name, have words of their own, quote the first unwaited result
// when a check fails, merge over processes, and read as 0 from a version
// 7 record, which still decodes.
func TestVersion8Statistics(t *testing.T) {
	s := &Stats{HostPolls: 120, PollWaits: 2, UnwaitedResults: 1, PoolSettingsUnused: 1, GraphRelaunchFrees: 3, VMMUnmapBytes: 4 << 20, VMMUnmapsUnwaited: 1, DevicePoolSets: 1}
	note := "cudaMemcpyAsync brought 4 MiB to the host before the host waited for stream 2 (the program exited without waiting for it)"
	copy(s.ResultRace[:], note)
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"host_polls": 120, "poll_waits": 2, "unwaited_results": 1, "pool_settings_unused": 1, "graph_relaunch_frees": 3, "vmm_unmap_bytes": 4 << 20, "vmm_unmaps_unwaited": 1, "device_pool_sets": 1}
	for n, w := range want {
		if v, ok := got.Value(n); !ok || v != w {
			t.Errorf("%s = %v, %v; want %v", n, v, ok, w)
		}
		if describe(n) == strings.ReplaceAll(n, "_", " ") {
			t.Errorf("%s has no words of its own", n)
		}
		if !KnownStat("all." + n) {
			t.Errorf("all.%s is not known", n)
		}
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"unwaited_results\"\nequals = 0\n[[check]]\nstat = \"host_polls\"\nequals = 0\n[[check]]\nstat = \"pool_settings_unused\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := spec.Judge(&Run{Stats: got})
	if res[0].Pass || !strings.Contains(res[0].Got, "; the first: "+note) {
		t.Errorf("unwaited_results: %+v", res[0])
	}
	if res[1].Pass || !strings.Contains(res[1].Got, "polling") {
		t.Errorf("host_polls: %+v", res[1])
	}
	if res[2].Pass {
		t.Errorf("pool_settings_unused: %+v", res[2])
	}
	m := MergeStats(&Stats{HostPolls: 1}, got)
	if m.HostPolls != 121 || m.RaceNote("unwaited_results") != note {
		t.Errorf("merged: %d polls, note %q", m.HostPolls, m.RaceNote("unwaited_results"))
	}
	v7 := s.Encode()[:v7Size]
	v7[8] = 7
	old, err := DecodeStats(v7)
	if err != nil {
		t.Fatal(err)
	}
	for n := range want {
		if v, _ := old.Value(n); v != 0 {
			t.Errorf("%s = %v in a version 7 record", n, v)
		}
	}
	if _, err := DecodeStats(s.Encode()[:v7Size]); err == nil {
		t.Error("a version 8 record cut at version 7's size decoded")
	}
}

// TestVersion15Statistics: a mapping past the end of its reservation
// (review/blind7's move into a range twice the old whatever the request)
// is read by name, has words of its own, fails a spec that asks for none,
// adds up over processes, and reads as 0 from a version 14 record, which
// still decodes.
func TestVersion15Statistics(t *testing.T) {
	s := &Stats{VMMMapsPastReservation: 2, ExportFreesEarly: 1}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value("vmm_maps_past_reservation"); !ok || v != 2 {
		t.Errorf("vmm_maps_past_reservation = %v, %v; want 2", v, ok)
	}
	if describe("vmm_maps_past_reservation") == "vmm maps past reservation" {
		t.Error("vmm_maps_past_reservation has no words of its own")
	}
	if !KnownStat("all.vmm_maps_past_reservation") {
		t.Error("all.vmm_maps_past_reservation is not known")
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"vmm_maps_past_reservation\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := spec.Judge(&Run{Stats: got}); res[0].Pass || !strings.Contains(res[0].Name, "past the end of the addresses reserved") {
		t.Errorf("vmm_maps_past_reservation: %+v", res[0])
	}
	if m := MergeStats(&Stats{VMMMapsPastReservation: 1}, got); m.VMMMapsPastReservation != 3 {
		t.Errorf("merged: %d maps past a reservation, want 3", m.VMMMapsPastReservation)
	}
	v14 := s.Encode()[:v14Size]
	v14[8] = 14
	old, err := DecodeStats(v14)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Value("vmm_maps_past_reservation"); v != 0 {
		t.Errorf("vmm_maps_past_reservation = %v in a version 14 record", v)
	}
	if v, _ := old.Value("export_frees_early"); v != 1 {
		t.Errorf("export_frees_early = %v in a version 14 record, want 1", v)
	}
	if _, err := DecodeStats(s.Encode()[:v14Size]); err == nil {
		t.Error("a version 15 record cut at version 14's size decoded")
	}
}

// TestVersion19KernelHostLaunches: kernels given page-locked host memory
// (review/blind13's async-pipeline whose scale kernel reads its input
// through cudaHostAllocMapped memory instead of a copy) are read by name,
// have words of their own, fail a spec that asks for none, add up over
// processes, and read as 0 from a version 18 record.
func TestVersion19KernelHostLaunches(t *testing.T) {
	s := &Stats{KernelHostLaunches: 12, WriteCombinedCopies: 1}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value("kernel_host_launches"); !ok || v != 12 {
		t.Errorf("kernel_host_launches = %v, %v; want 12", v, ok)
	}
	if describe("kernel_host_launches") == "kernel host launches" {
		t.Error("kernel_host_launches has no words of its own")
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"kernel_host_launches\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := spec.Judge(&Run{Stats: got}); res[0].Pass || !strings.Contains(res[0].Name, "page-locked host memory") {
		t.Errorf("kernel_host_launches: %+v", res[0])
	}
	if m := MergeStats(&Stats{KernelHostLaunches: 1}, got); m.KernelHostLaunches != 13 {
		t.Errorf("merged: %d, want the sum, 13", m.KernelHostLaunches)
	}
	v18 := s.Encode()[:v18Size]
	v18[8] = 18
	old, err := DecodeStats(v18)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Value("kernel_host_launches"); v != 0 {
		t.Errorf("kernel_host_launches = %v in a version 18 record", v)
	}
	if v, _ := old.Value("write_combined_copies"); v != 1 {
		t.Errorf("write_combined_copies = %v in a version 18 record, want 1", v)
	}
	if _, err := DecodeStats(s.Encode()[:v18Size]); err == nil {
		t.Error("a version 19 record cut at version 18's size decoded")
	}
}

// TestVersion18WriteCombinedCopies: copies of device results into
// write-combined host memory (review/blind12's async-pipeline whose output
// and sums are cudaHostAllocWriteCombined) are read by name, have words of
// their own, fail a spec that asks for none, add up over processes, and
// read as 0 from a version 17 record.
func TestVersion18WriteCombinedCopies(t *testing.T) {
	s := &Stats{WriteCombinedCopies: 24, RegisteredUnmapped: 1}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value("write_combined_copies"); !ok || v != 24 {
		t.Errorf("write_combined_copies = %v, %v; want 24", v, ok)
	}
	if describe("write_combined_copies") == "write combined copies" {
		t.Error("write_combined_copies has no words of its own")
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"write_combined_copies\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := spec.Judge(&Run{Stats: got}); res[0].Pass || !strings.Contains(res[0].Name, "write-combined") {
		t.Errorf("write_combined_copies: %+v", res[0])
	}
	if m := MergeStats(&Stats{WriteCombinedCopies: 1}, got); m.WriteCombinedCopies != 25 {
		t.Errorf("merged: %d, want the sum, 25", m.WriteCombinedCopies)
	}
	v17 := s.Encode()[:v17Size]
	v17[8] = 17
	old, err := DecodeStats(v17)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Value("write_combined_copies"); v != 0 {
		t.Errorf("write_combined_copies = %v in a version 17 record", v)
	}
	if v, _ := old.Value("registered_unmapped"); v != 1 {
		t.Errorf("registered_unmapped = %v in a version 17 record, want 1", v)
	}
	if _, err := DecodeStats(s.Encode()[:v17Size]); err == nil {
		t.Error("a version 18 record cut at version 17's size decoded")
	}
}

// TestVersion17RegisteredUnmapped: host ranges given back while page-locked
// (review/blind10's async-pipeline that frees its buffers before their
// cudaHostUnregister) are read by name, have words of their own, fail a
// spec that asks for none, add up over processes, and read as 0 from a
// version 16 record.
func TestVersion17RegisteredUnmapped(t *testing.T) {
	s := &Stats{RegisteredUnmapped: 2, MaxUnorderedStreams: 3}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value("registered_unmapped"); !ok || v != 2 {
		t.Errorf("registered_unmapped = %v, %v; want 2", v, ok)
	}
	if describe("registered_unmapped") == "registered unmapped" {
		t.Error("registered_unmapped has no words of its own")
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"registered_unmapped\"\nequals = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := spec.Judge(&Run{Stats: got}); res[0].Pass || !strings.Contains(res[0].Name, "freed or unmapped before their cudaHostUnregister") {
		t.Errorf("registered_unmapped: %+v", res[0])
	}
	if m := MergeStats(&Stats{RegisteredUnmapped: 1}, got); m.RegisteredUnmapped != 3 {
		t.Errorf("merged: %d, want the sum, 3", m.RegisteredUnmapped)
	}
	v16 := s.Encode()[:v16Size]
	v16[8] = 16
	old, err := DecodeStats(v16)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Value("registered_unmapped"); v != 0 {
		t.Errorf("registered_unmapped = %v in a version 16 record", v)
	}
	if v, _ := old.Value("max_unordered_streams"); v != 3 {
		t.Errorf("max_unordered_streams = %v in a version 16 record, want 3", v)
	}
	if _, err := DecodeStats(s.Encode()[:v16Size]); err == nil {
		t.Error("a version 17 record cut at version 16's size decoded")
	}
}

// TestVersion16Overlap: the most streams the program's ordering left
// free to run at once (review/blind8's pipeline whose load stream waits
// for the copy of the chunk before) is read by name, has words of its
// own, fails a spec that asks for at least 3, is the larger of two
// processes' (not their sum), and reads as 0 from a version 15 record.
func TestVersion16Overlap(t *testing.T) {
	s := &Stats{MaxUnorderedStreams: 2, VMMMapsPastReservation: 1}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value("max_unordered_streams"); !ok || v != 2 {
		t.Errorf("max_unordered_streams = %v, %v; want 2", v, ok)
	}
	if describe("max_unordered_streams") == "max unordered streams" {
		t.Error("max_unordered_streams has no words of its own")
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"max_unordered_streams\"\nat_least = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := spec.Judge(&Run{Stats: got}); res[0].Pass || !strings.Contains(res[0].Name, "left free to run at once") {
		t.Errorf("max_unordered_streams: %+v", res[0])
	}
	if m := MergeStats(&Stats{MaxUnorderedStreams: 4}, got); m.MaxUnorderedStreams != 4 {
		t.Errorf("merged: %d, want the larger, 4", m.MaxUnorderedStreams)
	}
	v15 := s.Encode()[:v15Size]
	v15[8] = 15
	old, err := DecodeStats(v15)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Value("max_unordered_streams"); v != 0 {
		t.Errorf("max_unordered_streams = %v in a version 15 record", v)
	}
	if v, _ := old.Value("vmm_maps_past_reservation"); v != 1 {
		t.Errorf("vmm_maps_past_reservation = %v in a version 15 record, want 1", v)
	}
	if _, err := DecodeStats(s.Encode()[:v15Size]); err == nil {
		t.Error("a version 16 record cut at version 15's size decoded")
	}
}

// TestVersion9Statistics: the figures of several devices (a device's
// current pool asked for, access to a pool given to another device,
// allocations per device and across devices, peer copies) are read by
// name, with words of their own, and read as 0 from a version 8 record.
func TestVersion9Statistics(t *testing.T) {
	s := &Stats{DevicePoolGets: 2, SetPoolAllocs: 5, PoolPeerGrants: 1, PeerAccessEnables: 0,
		CrossDeviceAllocs: 5, Device0AsyncAllocs: 5, Device1AsyncAllocs: 5, PeerCopies: 5, PeerCopyBytes: 20 << 20, DevicesUsed: 2}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"device_pool_gets": 2, "set_pool_allocs": 5, "pool_peer_grants": 1,
		"peer_access_enables": 0, "cross_device_allocs": 5, "device0_async_allocs": 5, "device1_async_allocs": 5,
		"peer_copies": 5, "peer_copy_bytes": 20 << 20, "devices_used": 2}
	for n, w := range want {
		if v, ok := got.Value(n); !ok || v != w {
			t.Errorf("%s = %v, %v; want %v", n, v, ok, w)
		}
		if describe(n) == strings.ReplaceAll(n, "_", " ") {
			t.Errorf("%s has no words of its own", n)
		}
		if _, v := StatMeaning(n); v != 9 {
			t.Errorf("%s is of record version %d, want 9", n, v)
		}
	}
	if _, v := StatMeaning("device_pool_sets"); v != 8 {
		t.Errorf("device_pool_sets is of record version %d, want 8", v)
	}
	v8 := s.Encode()[:v8Size]
	v8[8] = 8
	old, err := DecodeStats(v8)
	if err != nil {
		t.Fatal(err)
	}
	for n := range want {
		if v, _ := old.Value(n); v != 0 {
			t.Errorf("%s = %v in a version 8 record", n, v)
		}
	}
	if _, err := DecodeStats(s.Encode()[:v8Size]); err == nil {
		t.Error("a version 9 record cut at version 8's size decoded")
	}
}

// readStats reads a record the statistics library wrote (a fixture).
func readStats(file string) (*Stats, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return DecodeStats(data)
}

// An interprocess event's maker and its opener are different processes:
// all.ipc_events_destroyed_open reads the program's first destroy of an
// event it made against its children's last close of one they opened (0:
// never destroyed); a child's own event is not the program's to order.
func TestIPCEventsDestroyedOpenAcrossProcesses(t *testing.T) {
	for _, tc := range []struct {
		name          string
		parent, child Stats
		own, all      float64
	}{
		{"the maker destroys after the opener closed", Stats{IPCMadeDestroyFirstNs: 300}, Stats{IPCOpenedCloseLastNs: 200}, 0, 0},
		{"the maker destroys while the opener still has it", Stats{IPCMadeDestroyFirstNs: 100}, Stats{IPCOpenedCloseLastNs: 200}, 0, 1},
		{"the child made it, the parent opened it: the harness's order", Stats{IPCOpenedCloseLastNs: 500}, Stats{IPCMadeDestroyFirstNs: 400}, 0, 0},
		{"never destroyed by its maker", Stats{}, Stats{IPCOpenedCloseLastNs: 200}, 0, 0},
	} {
		r := &Run{Stats: &tc.parent, Children: &tc.child}
		own, _ := r.Stats.Value("ipc_events_destroyed_open")
		st, name := r.scoped("all.ipc_events_destroyed_open")
		all, _ := st.Value(name)
		if own != tc.own || all != tc.all {
			t.Errorf("%s: own %g, all %g; want %g, %g", tc.name, own, all, tc.own, tc.all)
		}
	}
}

// pools_destroyed counts the pool slots whose handle the library cleared
// when the program destroyed the pool; a pool left at exit keeps its
// handle, and the slots past PoolCount are not read.
func TestPoolsDestroyed(t *testing.T) {
	s := &Stats{PoolsCreated: 3, PoolCount: 3}
	s.Pools[0].Handle, s.Pools[1].Handle, s.Pools[2].Handle = 0, 0x5000, 0
	if v, ok := s.Value("pools_destroyed"); !ok || v != 2 {
		t.Errorf("pools_destroyed = %v, %v; want 2", v, ok)
	}
	spec, err := ParseSpec("x.toml", []byte("[[check]]\nstat = \"pools_destroyed\"\nequal_to = \"pools_created\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rs := spec.Judge(&Run{Stats: s}); len(rs) != 1 || rs[0].Pass {
		t.Errorf("a pool left at exit passes: %+v", rs)
	}
	s.Pools[1].Handle = 0
	if rs := spec.Judge(&Run{Stats: s}); len(rs) != 1 || !rs[0].Pass {
		t.Errorf("every pool destroyed fails: %+v", rs)
	}
}

// host_waits adds the host's waits of every kind, so that a spec can bound
// how often a program waits whatever it waits with: a drain that waits for
// an event recorded on each stream counts as one that waits for each
// stream, and one poll that ended counts as a wait too.
func TestHostWaits(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"host_waits\"\nat_most = 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    Stats
		want float64
	}{
		{"streams", Stats{StreamSyncs: 4}, 4},
		{"events", Stats{EventSyncs: 4}, 4},
		{"device", Stats{DeviceSyncs: 1}, 1},
		{"both", Stats{StreamSyncs: 4, EventSyncs: 4}, 8},
		{"a poll too", Stats{StreamSyncs: 4, PollWaits: 1}, 5},
	} {
		got, err := DecodeStats(c.s.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := got.Value("host_waits"); !ok || v != c.want {
			t.Errorf("%s: host_waits = %v, %v; want %v", c.name, v, ok, c.want)
		}
		res := spec.Judge(&Run{Stats: got})
		if res[0].Pass != (c.want <= 4) {
			t.Errorf("%s: %+v", c.name, res[0])
		}
		if c.want > 4 && !strings.Contains(res[0].Got, "host waits of every kind") {
			t.Errorf("%s: got %q, want the statistic's words", c.name, res[0].Got)
		}
	}
	if !KnownStat("all.host_waits") {
		t.Error("all.host_waits is not known")
	}
	if m, v := StatMeaning("host_waits"); m == "" || v != 8 {
		t.Errorf("StatMeaning(host_waits) = %q, %d", m, v)
	}
}

// TestVersion16Statistics: stale_ipc_waits (an importer's waits that can
// take only a record older than the block's writes) is read by name, with
// words of its own, summed over the program and its children by all.,
// judged with the spec's message, and read as 0 from a version 15 record.
func TestVersion16Statistics(t *testing.T) {
	parent, child := &Stats{}, &Stats{StaleIPCWaits: 5}
	got, err := DecodeStats(child.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Value("stale_ipc_waits"); !ok || v != 5 {
		t.Errorf("stale_ipc_waits = %v, %v; want 5", v, ok)
	}
	if describe("stale_ipc_waits") == "stale ipc waits" {
		t.Error("stale_ipc_waits has no words of its own")
	}
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"all.stale_ipc_waits\"\nequals = 0\nmessage = \"the parent sent the block before recording the event after its fill\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := spec.Judge(&Run{Stats: parent, Children: got})
	if len(res) != 1 || res[0].Pass || !strings.Contains(res[0].Name+res[0].Want, "the parent sent the block before recording") || !strings.Contains(res[0].Got, "5") {
		t.Errorf("all.stale_ipc_waits with 5 in the child: %+v", res)
	}
	if res := spec.Judge(&Run{Stats: parent, Children: &Stats{}}); !res[0].Pass {
		t.Errorf("no stale waits: %+v", res[0])
	}
	v15 := child.Encode()[:v15Size]
	v15[8] = 15
	old, err := DecodeStats(v15)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Value("stale_ipc_waits"); v != 0 {
		t.Errorf("stale_ipc_waits = %v in a version 15 record", v)
	}
	if _, err := DecodeStats(child.Encode()[:v15Size]); err == nil {
		t.Error("a version 16 record cut at version 15's size decoded")
	}
}
