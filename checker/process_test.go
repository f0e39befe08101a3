package checker

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// proc makes the frames of one process as the library writes them: a
// start, snapshots, and an end when end is set, each with the process's
// pid and its parent's in the guard.
type proc struct {
	t           testing.TB
	pid, parent uint64
	seq         uint64
}

func (p *proc) frame(kind int, s *Stats) []byte {
	p.t.Helper()
	f, err := EncodeFrame(testKey, p.seq, kind, s, &Guard{RuntimeCopies: 1, DriverCopies: 1, Namespaces: 1, Pid: p.pid, ParentPid: p.parent})
	if err != nil {
		p.t.Fatal(err)
	}
	p.seq++
	return f
}

// TestChannelWantsEveryChildCounted: the program's own process says in
// its guard how many forked processes called CUDA (counted before each
// first call); a record with fewer children than that fails as a process
// not followed: a child's frames were kept from the grader (another file
// put at the channel's number between the library's look and its write).
// One with as many passes.
func TestChannelWantsEveryChildCounted(t *testing.T) {
	for _, sent := range []int{0, 1} {
		root := &proc{t: t, pid: 100}
		a := &proc{t: t, pid: 101, parent: 100}
		frames := [][]byte{root.frame(FrameStart, &Stats{})}
		if sent == 1 {
			frames = append(frames, a.frame(FrameStart, &Stats{}), a.frame(FrameEnd, &Stats{MallocCalls: 100}))
		}
		end, err := EncodeFrame(testKey, root.seq, FrameEnd, &Stats{MallocCalls: 1, Exited: 1}, &Guard{Version: guardVersion, RuntimeCopies: 1, DriverCopies: 1, Namespaces: 1, Pid: 100, CUDAChildren: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := NewChannel(testKey)
		c.Write(join(append(frames, end)...))
		got, err := c.Close()
		switch {
		case sent == 0 && (err == nil || !strings.Contains(err.Error(), Unfollowed) || !strings.Contains(err.Error(), "1 forked processes called CUDA, and 0 sent a record")):
			t.Errorf("a child counted but never heard from: %v, want it failed as not followed", err)
		case sent == 1 && (err != nil || got.Children == nil || got.Children.MallocCalls != 100):
			t.Errorf("a child counted and heard from: %v, %+v", err, got)
		}
	}
}

// TestChannelFollowsChildren: a child forked by the program sends frames
// of its own, interleaved with the program's and ending after it; the
// program's record is the one judged by plain names, the children's is
// merged beside it.
func TestChannelFollowsChildren(t *testing.T) {
	root := &proc{t: t, pid: 100}
	a := &proc{t: t, pid: 101, parent: 100}
	b := &proc{t: t, pid: 102, parent: 101} // a grandchild
	data := join(
		root.frame(FrameStart, &Stats{}),
		a.frame(FrameStart, &Stats{}),
		root.frame(FrameSnapshot, &Stats{PoolsCreated: 1}),
		a.frame(FrameSnapshot, &Stats{FreeCalls: 1}),
		b.frame(FrameStart, &Stats{}),
		b.frame(FrameEnd, &Stats{MallocCalls: 2, PeakLiveBytes: 10, Exited: 1, KernelSpanNs: 5}),
		root.frame(FrameEnd, &Stats{PoolsCreated: 1, MallocFromPoolCalls: 5, Forks: 1, Exited: 1}),
		a.frame(FrameEnd, &Stats{FreeCalls: 5, MallocCalls: 1, PeakLiveBytes: 30, Exited: 1, KernelSpanNs: 3, Forks: 1}),
	)
	c := NewChannel(testKey)
	for _, x := range data { // a byte at a time, as a pipe may hand them over
		c.Write([]byte{x})
	}
	got, err := c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got.Stats.MallocFromPoolCalls != 5 || got.Stats.FreeCalls != 0 || got.Frames != 8 || len(got.ChildGuards) != 2 {
		t.Fatalf("received %+v", got)
	}
	ch := got.Children
	if ch == nil || ch.FreeCalls != 5 || ch.MallocCalls != 3 || ch.PeakLiveBytes != 30 || ch.KernelSpanNs != 5 || ch.Exited != 1 || ch.Forks != 1 {
		t.Errorf("children merged: %+v", ch)
	}
	// The judge reads them by scope.
	spec, err := ParseSpec("s.toml", []byte(`
[[check]]
stat = "free_calls"
equals = 0
[[check]]
stat = "children.free_calls"
equals = 5
[[check]]
stat = "all.malloc_calls"
equals = 3
[[check]]
stat = "children.malloc_calls"
equal_to = "all.malloc_calls"
[[check]]
stat = "all.forks"
equals = 2
`))
	if err != nil {
		t.Fatal(err)
	}
	res := spec.Judge(&Run{Stats: got.Stats, Children: got.Children})
	for _, r := range res {
		if !r.Pass {
			t.Errorf("%s: got %s, want %s", r.Name, r.Got, r.Want)
		}
	}
	if !strings.Contains(res[1].Name, "in the child processes") {
		t.Errorf("a children. check reads %q", res[1].Name)
	}
	// Without children, children.NAME is 0 and all.NAME the program's.
	res = spec.Judge(&Run{Stats: &Stats{MallocCalls: 3, Forks: 0}})
	if res[1].Pass || !res[2].Pass || res[3].Pass || res[4].Pass {
		t.Errorf("without children: %+v", res)
	}
}

func TestChannelRejectsChildren(t *testing.T) {
	for _, tc := range []struct {
		name  string
		make  func(root, a *proc) [][]byte
		want  string
		cut   bool
		stats bool
	}{
		{"a child cut short (_exit after CUDA)", func(root, a *proc) [][]byte {
			return [][]byte{root.frame(FrameStart, &Stats{}), a.frame(FrameStart, &Stats{}), a.frame(FrameSnapshot, &Stats{}), root.frame(FrameEnd, &Stats{Exited: 1})}
		}, "child process 101 (forked by process 100) was cut short", true, true},
		{"a child's frame before its start", func(root, a *proc) [][]byte {
			a.seq = 1
			return [][]byte{root.frame(FrameStart, &Stats{}), a.frame(FrameSnapshot, &Stats{}), root.frame(FrameEnd, &Stats{Exited: 1})}
		}, "frame 1 of process 101, which never started", false, false},
		{"a child of a stranger", func(root, a *proc) [][]byte {
			a.parent = 7
			return [][]byte{root.frame(FrameStart, &Stats{}), a.frame(FrameStart, &Stats{}), a.frame(FrameEnd, &Stats{}), root.frame(FrameEnd, &Stats{Exited: 1})}
		}, "whose parent 7 is not one of the run's processes", false, false},
		{"a child's replayed frame", func(root, a *proc) [][]byte {
			s := a.frame(FrameStart, &Stats{})
			return [][]byte{root.frame(FrameStart, &Stats{}), s, a.frame(FrameSnapshot, &Stats{}), s, root.frame(FrameEnd, &Stats{Exited: 1})}
		}, "of child process 101 is out of sequence", false, false},
		{"a child's frame after its end", func(root, a *proc) [][]byte {
			return [][]byte{root.frame(FrameStart, &Stats{}), a.frame(FrameStart, &Stats{}), a.frame(FrameEnd, &Stats{}), a.frame(FrameSnapshot, &Stats{}), root.frame(FrameEnd, &Stats{Exited: 1})}
		}, "of child process 101 has a frame after its end-of-run frame", false, false},
		{"the program's frame after its end, a child still running", func(root, a *proc) [][]byte {
			return [][]byte{root.frame(FrameStart, &Stats{}), a.frame(FrameStart, &Stats{}), root.frame(FrameEnd, &Stats{Exited: 1}), root.frame(FrameSnapshot, &Stats{}), a.frame(FrameEnd, &Stats{})}
		}, "bytes after the library's end-of-run frame", false, false},
		{"bytes after every end", func(root, a *proc) [][]byte {
			return [][]byte{root.frame(FrameStart, &Stats{}), a.frame(FrameStart, &Stats{}), root.frame(FrameEnd, &Stats{Exited: 1}), a.frame(FrameEnd, &Stats{}), {0}}
		}, "bytes after the library's end-of-run frame", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, a := &proc{t: t, pid: 100}, &proc{t: t, pid: 101, parent: 100}
			got, err := verifyFrames(join(tc.make(root, a)...), testKey)
			var ce *ChannelError
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, tc.want) || ce.CutShort != tc.cut {
				t.Fatalf("err = %v (%+v), want %q (cut short %v)", err, ce, tc.want, tc.cut)
			}
			if tc.stats && (got == nil || got.Stats == nil) {
				t.Errorf("the program's record should be kept: %+v", got)
			}
		})
	}
}

// TestChannelChildStartsLate: a child the program left running may call
// CUDA after the program's end; its record is taken.
func TestChannelChildStartsLate(t *testing.T) {
	root, a := &proc{t: t, pid: 100}, &proc{t: t, pid: 101, parent: 100}
	got, err := verifyFrames(join(root.frame(FrameStart, &Stats{}), root.frame(FrameEnd, &Stats{Forks: 1, Exited: 1}),
		a.frame(FrameStart, &Stats{}), a.frame(FrameEnd, &Stats{MallocCalls: 1, Exited: 1})), testKey)
	if err != nil || got.Children == nil || got.Children.MallocCalls != 1 {
		t.Fatalf("%+v, %v", got, err)
	}
}

// TestChannelLimitsProcesses: a fork bomb's records are refused past
// MaxProcesses, not kept.
func TestChannelLimitsProcesses(t *testing.T) {
	root := &proc{t: t, pid: 1}
	fs := [][]byte{root.frame(FrameStart, &Stats{})}
	for i := 0; i < MaxProcesses; i++ {
		fs = append(fs, (&proc{t: t, pid: uint64(10 + i), parent: 1}).frame(FrameStart, &Stats{}))
	}
	_, err := verifyFrames(join(fs...), testKey)
	if err == nil || !strings.Contains(err.Error(), "forked more than 63 processes") {
		t.Fatalf("err = %v", err)
	}
}

// TestChildGuardProblem: a child that loaded a private runtime makes the
// run's record untrustworthy too.
func TestChildGuardProblem(t *testing.T) {
	r := Received{Guard: Guard{RuntimeCopies: 1}, ChildGuards: []Guard{{Pid: 9, RuntimeCopies: 2}}}
	if p := r.Problem(); !strings.Contains(p, "in child process 9") || !strings.Contains(p, "2 copies of the CUDA runtime") {
		t.Errorf("problem %q", p)
	}
}

func TestMergeStats(t *testing.T) {
	a := &Stats{MallocCalls: 2, PeakLiveBytes: 5, Exited: 1, MaxConcurrentStreams: 4, KernelBusyNs: 10, PoolCount: 1, Version: 5}
	a.Pools[0].Handle = 1
	b := &Stats{MallocCalls: 3, PeakLiveBytes: 7, Exited: 0, MaxConcurrentStreams: 2, KernelBusyNs: 5, PoolCount: 1, Version: 5}
	b.Pools[0].Handle = 2
	copy(b.UseRace[:], "kernel k on stream 2 ...")
	m := MergeStats(a, b)
	if m.MallocCalls != 5 || m.PeakLiveBytes != 7 || m.Exited != 0 || m.MaxConcurrentStreams != 4 || m.KernelBusyNs != 15 ||
		m.PoolCount != 2 || m.Pools[1].Handle != 2 || m.RaceNote("unordered_uses") != "kernel k on stream 2 ..." || m.Version != 5 {
		t.Errorf("merged %+v", m)
	}
	if a.MallocCalls != 2 || MergeStats(nil, nil) != nil || MergeStats(nil, b).MallocCalls != 3 {
		t.Error("MergeStats changed its input or mishandled nil")
	}
}

// TestScopedStatsInSpecs: a scope goes before any statistic; an unknown
// name under it is refused, and so is a scope compared with a baseline.
func TestScopedStatsInSpecs(t *testing.T) {
	if _, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"children.nope\"\nequals = 1\n")); err == nil || !strings.Contains(err.Error(), "unknown statistic") {
		t.Errorf("children.nope: %v", err)
	}
	if _, err := ParseSpec("s.toml", []byte("[[check]]\nstat = \"kernels_timed\"\nequal_to = \"all.nope\"\n")); err == nil {
		t.Error("equal_to all.nope accepted")
	}
	spec := `[[hidden_run]]
name = "base"
[[hidden_run]]
name = "pool"
[[check]]
run = "pool"
stat = "all.malloc_calls"
relative_to = "base"
equals = 1
`
	if _, err := ParseSpec("s.toml", []byte(spec)); err == nil || !strings.Contains(err.Error(), "several processes") {
		t.Errorf("a scoped relative check: %v", err)
	}
}

// TestProbeRecord: the record of checker/testdata/record5/probe.cu on the
// H100 (the program's own process; probe.txt has the run's lines, the
// child's included) has every figure of version 5 the probe expects.
func TestProbeRecord(t *testing.T) {
	s, err := readStats("testdata/record5/probe.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"host_alloc_calls": 2, "malloc_host_calls": 3, "free_host_calls": 2, "host_leaked_allocs": 1, "host_leaked_bytes": 3 << 20,
		"vmm_address_free_calls": 2, "vmm_free_while_mapped": 1, "vmm_failed_calls": 1, "vmm_address_free_bytes": 4 << 20,
		"graph_launches": 3, "graph_kernel_nodes": 12, "graphs_timed": 3, "kernels_timed": 1, "max_concurrent_streams": 2, "forks": 1, "execs": 1,
	}
	for n, w := range want {
		if v, _ := s.Value(n); v != w {
			t.Errorf("%s = %v, want %v", n, v, w)
		}
	}
	// The graph ran beside the 5 ms kernel on the other stream.
	if v, _ := s.Value("kernel_overlap_ms"); v < 4 {
		t.Errorf("kernel_overlap_ms = %v, want about 5", v)
	}
}

// TestProbeRecord7: the record of checker/testdata/record7/probe.cu on the
// H100 (record version 7) has every figure the probe expects: the
// exporter's pitched and 3D allocations, its graphs' allocation nodes and
// the one use after a graph's free node in its own record; the forked
// importer's imported block, used and freed there, in the child's line of
// probe.txt (the record command writes the program's own record only).
func TestProbeRecord7(t *testing.T) {
	s, err := readStats("testdata/record7/probe.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"malloc_calls": 2, "malloc_bytes": 819200, "graph_allocs": 4, "graph_alloc_bytes": 6 << 20, "uses_after_free": 1,
		"unknown_frees": 0, "pool_imports": 0, "leaked_allocs": 0, "malloc_async_calls": 2, "free_async_calls": 5, "forks": 1,
	}
	for n, w := range want {
		if v, _ := s.Value(n); v != w {
			t.Errorf("%s = %v, want %v", n, v, w)
		}
	}
	if got, want := s.RaceNote("uses_after_free"), "a free node of a graph launched on stream 1"; !strings.Contains(got, want) {
		t.Errorf("the use after free: %q, want it to name %q", got, want)
	}
	txt, err := os.ReadFile("testdata/record7/probe.txt")
	if err != nil {
		t.Fatal(err)
	}
	var child string
	for _, line := range strings.Split(string(txt), "\n") {
		if strings.Contains(line, "1 child processes:") {
			child = line + " "
		}
	}
	for _, f := range []string{"pool_imports=1 ", "pool_import_bytes=1.048576e+06 ", "pool_import_frees=1 ", "free_async_calls=1 ", "exited=1 "} {
		if !strings.Contains(child, " "+f) {
			t.Errorf("the child's line has no %q: %q", f, child)
		}
	}
	for _, f := range []string{"unknown_frees=", "leaked_pool_imports=", "leaked_allocs="} {
		if strings.Contains(child, " "+f) {
			t.Errorf("the child's line has %q (want 0): %q", f, child)
		}
	}
}

// TestProbeRecord8: the record of checker/testdata/record8/probe.cu on the
// H200 (record version 8) has every figure the probe expects: a poll of a
// stream and of an event, a cudaMalloc arena cleared by cudaMemset on the
// legacy stream and used by a non-blocking stream, a graph that frees its
// allocation at its next launch while another stream may still use it
// (and once after that stream's event), a setting on a pool nothing came
// from, one cuMemUnmap of two mappings, and results brought to the host
// before the stream that wrote them was waited for; each first race in
// words.
func TestProbeRecord8(t *testing.T) {
	s, err := readStats("testdata/record8/probe.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"poll_waits": 2, "unordered_uses": 2, "unordered_frees": 1, "graph_relaunch_frees": 2, "pool_settings_unused": 1,
		"vmm_map_calls": 2, "vmm_unmap_calls": 1, "vmm_unmaps_unwaited": 0, "unwaited_results": 2, "default_stream_ops": 0,
		"sync_memsets": 1, "sync_memcpys": 1, "device_pool_sets": 0, "exited": 1,
	}
	for n, w := range want {
		if v, _ := s.Value(n); v != w {
			t.Errorf("%s = %v, want %v", n, v, w)
		}
	}
	if v, _ := s.Value("host_polls"); v == 0 {
		t.Error("host_polls = 0: the loops on cudaStreamQuery and cudaEventQuery polled")
	}
	if m, u := s.VMMMapBytes, s.VMMUnmapBytes; m == 0 || m != u {
		t.Errorf("vmm_map_bytes %d, vmm_unmap_bytes %d: want them equal", m, u)
	}
	for stat, want := range map[string]string{
		"unordered_uses":   "cudaMemset on stream 0",
		"unordered_frees":  "a launch of its graph on stream",
		"unwaited_results": "cudaMemcpy brought 4 MiB to the host before the host waited for stream",
	} {
		if got := s.RaceNote(stat); !strings.Contains(got, want) {
			t.Errorf("the first of %s: %q, want it to say %q", stat, got, want)
		}
	}
}

// TestProbeRecord10: the record of checker/testdata/record10/probe.cu on a
// GPU (record version 10), run with two calls made to fail: the second
// cudaMallocAsync and the first cuMemMap fail without being made, the
// program gives back what it made, and a kernel's fault is seen in the
// synchronisation after it. The fixture is recorded on the GPU machine
// (carry/judge/run.sh writes it); until it is here the test skips.
func TestProbeRecord10(t *testing.T) {
	if _, err := os.Stat("testdata/record10/probe.bin"); err != nil {
		t.Skip("testdata/record10/probe.bin is recorded on a GPU machine (carry/judge/run.sh)")
	}
	s, err := readStats("testdata/record10/probe.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"injected_failures": 2, "failed_allocs": 1, "vmm_failed_calls": 1, "leaked_allocs": 0, "malloc_async_calls": 3, "exited": 1}
	for n, w := range want {
		if v, _ := s.Value(n); v != w {
			t.Errorf("%s = %v, want %v", n, v, w)
		}
	}
	if s.DeviceFaults == 0 {
		t.Error("device_faults = 0: the synchronisation after the kernel that wrote through a null pointer returned its fault")
	}
}
