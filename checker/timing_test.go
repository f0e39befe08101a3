package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestTimingStatistics: the kernels' times are read by name in
// milliseconds from a version 4 record's nanoseconds, are listed and have
// words, and are 0 in a record of version 3 (cut at its size).
func TestTimingStatistics(t *testing.T) {
	s := Stats{KernelsTimed: 16, MaxConcurrentStreams: 4, KernelSpanNs: 4_250_000, KernelBusyNs: 16_000_000,
		StreamKernelNsMax: 4_000_000, KernelOverlapNs: 3_500_000}
	got, err := DecodeStats(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"kernels_timed": 16, "max_concurrent_streams": 4, "kernel_span_ms": 4.25,
		"kernel_busy_ms": 16, "stream_kernel_ms_max": 4, "kernel_overlap_ms": 3.5, "kernel_concurrency": 16 / 4.25}
	for n, w := range want {
		if v, ok := got.Value(n); !ok || v != w {
			t.Errorf("%s = %v, %v; want %v", n, v, ok, w)
		}
		if !slices.Contains(StatNames(), n) {
			t.Errorf("StatNames lacks %s", n)
		}
		if describe(n) == strings.ReplaceAll(n, "_", " ") {
			t.Errorf("%s has no words of its own", n)
		}
	}
	v3 := s.Encode()[:v3Size]
	v3[8] = 3
	old, err := DecodeStats(v3)
	if err != nil {
		t.Fatal(err)
	}
	for n := range want {
		if v, _ := old.Value(n); v != 0 {
			t.Errorf("%s = %v in a version 3 record", n, v)
		}
	}
	if _, err := DecodeStats(s.Encode()[:v3Size]); err == nil {
		t.Error("a version 4 record cut at version 3's size decoded")
	}
}

const relativeSpec = `timed = true

[[check]]
exit = 0

[[hidden_run]]
name = "baseline"
args = ["--baseline"]

[[hidden_run]]
name = "timed"

[[check]]
run = "baseline"
stat = "kernels_timed"
at_least = 1

[[check]]
run = "timed"
stat = "kernel_span_ms"
relative_to = "baseline"
at_most = 1.2
`

func TestRelativeTo(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte(relativeSpec))
	if err != nil {
		t.Fatal(err)
	}
	timed := s.ForRun("timed")
	base := &Stats{KernelSpanNs: 10_000_000}
	for _, tc := range []struct {
		span   uint64
		before map[string]*Stats
		pass   bool
		got    string
	}{
		{11_000_000, map[string]*Stats{"baseline": base}, true, "1.1 times run baseline's (11 here, 10 there)"},
		{13_000_000, map[string]*Stats{"baseline": base}, false, "1.3 times run baseline's (13 here, 10 there)"},
		{1_000_000, map[string]*Stats{"baseline": {}}, false, "is 0 in run baseline"},
		{1_000_000, map[string]*Stats{"baseline": nil}, false, "run baseline, the baseline, recorded no statistics"},
		{1_000_000, nil, false, "recorded no statistics"},
	} {
		rs := timed.Judge(&Run{Stats: &Stats{KernelSpanNs: tc.span}, Before: tc.before})
		if len(rs) != 1 {
			t.Fatalf("judged %d checks", len(rs))
		}
		r := rs[0]
		if r.Pass != tc.pass || !strings.Contains(r.Got, tc.got) {
			t.Errorf("span %d: pass %v, got %q; want %v, %q", tc.span, r.Pass, r.Got, tc.pass, tc.got)
		}
		if !strings.Contains(r.Name, "as a multiple of run baseline's: at most 1.2") {
			t.Errorf("name %q", r.Name)
		}
	}
}

// TestRelativeTimesNeedTimed: a spec that compares times between runs
// must be timed (its runs alone on the GPU); a secret spec's such checks
// are refused when added to a spec that is not.
func TestRelativeTimesNeedTimed(t *testing.T) {
	runs := "[[hidden_run]]\nname = \"a\"\n[[hidden_run]]\nname = \"b\"\n[[check]]\nrun = \"a\"\nexit = 0\n"
	kernels := "[[check]]\nrun = \"b\"\nstat = \"kernels_timed\"\nrelative_to = \"a\"\nequals = 1\n"
	span := "[[check]]\nrun = \"b\"\nstat = \"kernel_span_ms\"\nrelative_to = \"a\"\nat_most = 1.1\n"
	if _, err := ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n"+runs+kernels)); err != nil {
		t.Errorf("a count compared between runs needs no timed: %v", err)
	}
	_, err := ParseSpec("x.toml", []byte("[[check]]\nexit = 0\n"+runs+span))
	if err == nil || !strings.Contains(err.Error(), "check 3 compares kernel_span_ms between runs, but the spec is not timed") {
		t.Errorf("error %v", err)
	}
	if _, err := ParseSpec("x.toml", []byte("timed = true\n[[check]]\nexit = 0\n"+runs+span)); err != nil {
		t.Error(err)
	}
	secret, err := ParseSecret("s.toml", []byte(runs+span))
	if err != nil {
		t.Fatal(err)
	}
	for _, timed := range []bool{false, true} {
		s, err := ParseSpec("x.toml", []byte(fmt.Sprintf("timed = %v\n[[check]]\nexit = 0\n", timed)))
		if err != nil {
			t.Fatal(err)
		}
		err = s.AddSecret(secret)
		if timed != (err == nil) || !timed && !strings.Contains(err.Error(), "check compares kernel_span_ms with run a's, but x.toml is not timed") {
			t.Errorf("timed %v: %v", timed, err)
		}
	}
}

func TestRelativeToErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"[[check]]\nexit = 0\n[[hidden_run]]\nname = \"b\"\n[[check]]\nrun = \"b\"\nstat = \"kernel_span_ms\"\nrelative_to = \"b\"\nat_most = 1\n",
			`x.toml:8: check 2 is relative to run "b", which is not made before the run it judges`},
		{"[[check]]\nstat = \"kernel_span_ms\"\nrelative_to = \"b\"\nat_most = 1\n[[hidden_run]]\nname = \"b\"\n[[check]]\nrun = \"b\"\nexit = 0\n",
			`check 1 is relative to run "b", which is not made before the run it judges`},
		{"[[check]]\nexit = 0\n[[hidden_run]]\nname = \"a\"\n[[check]]\nrun = \"a\"\nstat = \"kernel_span_ms\"\nrelative_to = \"nope\"\nat_most = 1\n",
			`check 2 is relative to run "nope", which is not a hidden run of this spec`},
		{"[[check]]\nexit = 0\n[[hidden_run]]\nname = \"a\"\n[[hidden_run]]\nname = \"b\"\n[[check]]\nrun = \"a\"\nexit = 0\n[[check]]\nrun = \"b\"\nexit = 0\nrelative_to = \"a\"\n",
			"check 3 has relative_to but no stat"},
	} {
		_, err := ParseSpec("x.toml", []byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("spec\n%s\nerror %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestTimedRuns: the records of checker/testdata/timing/streams.cu on the
// H100 (record.sh) tell four streams that overlap from the same kernels
// serialised (a wait after each launch, one stream, the default stream),
// cudaDeviceReset before exit keeps what was timed, and a graph captured
// in the global mode is captured (its kernels are not timed; a launch on
// another stream during the capture and the plain launch after it are).
func TestTimedRuns(t *testing.T) {
	read := func(name string) *Stats {
		t.Helper()
		s, err := readStats("testdata/timing/" + name + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		if s.Version != 4 {
			t.Fatalf("%s is a version %d record", name, s.Version)
		}
		return s
	}
	concurrent := read("concurrent")
	if c, _ := concurrent.Value("kernel_concurrency"); c < 3 || c > 4 {
		t.Errorf("concurrent: kernel_concurrency %v, want about 3.7", c)
	}
	if c, _ := read("serial").Value("kernel_concurrency"); c > 1 {
		t.Errorf("serial: kernel_concurrency %v, want at most 1", c)
	}
	if concurrent.KernelsTimed != 16 || concurrent.MaxConcurrentStreams != 4 || concurrent.KernelOverlapNs == 0 ||
		2*concurrent.KernelSpanNs > concurrent.KernelBusyNs {
		t.Errorf("concurrent: %+v", concurrent)
	}
	if r := read("reset"); r.KernelsTimed != 16 || r.MaxConcurrentStreams != 4 {
		t.Errorf("cudaDeviceReset before exit: %+v", r)
	}
	for _, name := range []string{"one", "default", "serial"} {
		s := read(name)
		if s.KernelsTimed != 16 || s.MaxConcurrentStreams != 1 || s.KernelOverlapNs != 0 || s.KernelSpanNs < s.KernelBusyNs {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if g := read("graph"); g.KernelLaunches != 18 || g.KernelsTimed != 2 || g.EventRecords != 4 {
		t.Errorf("graph: %d launches, %d timed, %d event records", g.KernelLaunches, g.KernelsTimed, g.EventRecords)
	}
	if m := read("many"); m.KernelsTimed != 20000 {
		t.Errorf("many: %d timed", m.KernelsTimed)
	}
	// Thousands of launches ahead of the GPU: every one timed still.
	if b := read("backlog"); b.KernelsTimed != 4096 || b.MaxConcurrentStreams != 4 {
		t.Errorf("backlog: %d timed, %d streams at once", b.KernelsTimed, b.MaxConcurrentStreams)
	}
	spec, err := ParseSpec("x.toml", []byte("[[check]]\nstat = \"max_concurrent_streams\"\nat_least = 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rs := spec.Judge(&Run{Stats: concurrent}); !Passed(rs) {
		t.Errorf("concurrent: %+v", rs)
	}
	rs := spec.Judge(&Run{Stats: read("one")})
	if Passed(rs) || rs[0].Got != "the most streams running kernels at one instant: 1" {
		t.Errorf("one stream: %+v", rs)
	}
}

// TestFixedFiles: fixed names files of the spec's files (a harness a grade
// always takes from the exercise), and nothing else.
func TestFixedFiles(t *testing.T) {
	s, err := ParseSpec("x.toml", []byte("files = [\"bench.cu\", \"pool.h\"]\nfixed = [\"./bench.cu\"]\n[[check]]\nexit = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsFixed("bench.cu") || s.IsFixed("pool.h") {
		t.Errorf("fixed: %v", s.Fixed)
	}
	_, err = ParseSpec("x.toml", []byte("files = [\"pool.h\"]\nfixed = [\"bench.cu\"]\n[[check]]\nexit = 0\n"))
	if err == nil || !strings.Contains(err.Error(), `x.toml:2: fixed file "bench.cu" is not one of the spec's files`) {
		t.Errorf("error %v", err)
	}
	if _, err := ParseSecret("s.toml", []byte("fixed = [\"bench.cu\"]\n")); err == nil {
		t.Error("a secret spec with fixed files was accepted")
	}
}
