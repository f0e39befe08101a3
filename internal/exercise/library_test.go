package exercise

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
)

// realToolkit is nvcc from the PATH, for tests that build the real
// statistics library and run programs that need no GPU (CI installs nvcc).
func realToolkit(t *testing.T) *Toolkit {
	t.Helper()
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("needs nvcc (the statistics library is built with it)")
	}
	t.Setenv("LESSONS_SANITIZER", "none")
	dir := t.TempDir()
	cache := &buildcache.Cache{Dir: filepath.Join(dir, "cache"), MaxBytes: 1 << 30}
	return NewToolkit(buildcache.Compiler{Path: nvcc, Version: "test"}, cache)
}

// gpuToolkit is realToolkit building for this machine's first GPU; it
// skips t where there is none (CI).
func gpuToolkit(t *testing.T) *Toolkit {
	t.Helper()
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	tk := realToolkit(t)
	tk.NVCC.Arch = info.Devices[0].Arch()
	return tk
}

// The real library, preloaded into a program that makes no CUDA call:
// its start and end frames verify, and each way a program can cut, forge
// or read the channel from inside fails the run with its reason.
func TestRealLibraryChannel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	src, _ := filepath.Abs("testdata/library/modes.cu")
	for _, tc := range []struct {
		mode   string
		pass   bool
		want   string // in a failed check's Got
		checks string // more checks
	}{
		{"plain", true, "", ""},
		{"key", true, "", ""},
		{"fork", true, "", "[[check]]\nstat = \"forks\"\nequals = 1\n[[check]]\nstat = \"children.exited\"\nequals = 0\n"},
		{"forkquiet", true, "", "[[check]]\nstat = \"forks\"\nequals = 1\n"},
		// The child's record comes beside the program's: its calls are the
		// child's, not the program's.
		{"forkcuda", true, "", "[[check]]\nstat = \"malloc_calls\"\nequals = 0\n[[check]]\nstat = \"children.malloc_calls\"\nequals = 1\n" +
			"[[check]]\nstat = \"all.malloc_calls\"\nequals = 1\n[[check]]\nstat = \"children.exited\"\nequals = 1\n"},
		// Where no check reads the children's statistics, a child's CUDA
		// calls are work no check sees: not trusted (fork_work.cu).
		{"forkcuda", false, "forked called CUDA", ""},
		{"forkcuda_exit", false, "child process", ""},
		// Programs started by exec are counted, not followed: a record
		// that counts one is not trusted (what ran there was not seen).
		{"forkexec", false, "started another program 1 time(s)", "[[check]]\nstat = \"children.execs\"\nequals = 1\n[[check]]\nstat = \"children.exited\"\nequals = 0\n[[check]]\nstat = \"execs\"\nequals = 0\n"},
		{"system", false, "started another program 1 time(s)", "[[check]]\nstat = \"execs\"\nequals = 1\n"},
		// A judged run's exec is refused (the library's own filter): the
		// program goes on, and its record counts the exec it tried.
		{"selfexec", false, "started another program 1 time(s)", ""},
		{"exit", false, "the program left without exiting normally", ""},
		{"quick", false, "the program left without exiting normally", ""},
		{"forge", false, "a frame the library did not write", ""},
		{"dup2", false, "the program left without exiting normally", ""},
		{"close", false, "the program left without exiting normally", ""},
		{"crash", false, "killed by signal 11", ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := spec(t, "args = [\""+tc.mode+"\"]\n[[check]]\nexit = 0\n[[check]]\nstat = \"exited\"\nequals = 1\n"+tc.checks)
			j := &Job{ID: "modes", Spec: s, Dir: t.TempDir(), Files: []File{{Name: "modes.cu", Path: src}}}
			v, err := Check(context.Background(), tk, Plain{}, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(v.Output, "FOUND") {
				t.Errorf("the program read the key: %q", v.Output)
			}
			if v.Passed() != tc.pass {
				t.Fatalf("passed = %v, want %v: %+v (output %q)", v.Passed(), tc.pass, v.Results, v.Output)
			}
			if tc.want != "" && !failedWith(v, tc.want) {
				t.Errorf("no failed check says %q: %+v", tc.want, v.Results)
			}
			if tc.mode == "crash" && failedWith(v, "statistics record") {
				t.Errorf("a crash is one failure, not two: %+v", v.Results)
			}
		})
	}
}

// Code that runs before the library's constructor could take the key: a
// program with some is not trusted, whatever its record says.
func TestRealLibraryRefusesPreinit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	src, _ := filepath.Abs("testdata/library/preinit.cu")
	j := &Job{ID: "preinit", Spec: spec(t, "[[check]]\nexit = 0\n"), Dir: t.TempDir(), Files: []File{{Name: "preinit.cu", Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() || !failedWith(v, ".preinit_array") {
		t.Errorf("results %+v (output %q)", v.Results, v.Output)
	}
}

func failedWith(v *Verdict, want string) bool {
	for _, r := range v.Results {
		if !r.Pass && strings.Contains(r.Got, want) {
			return true
		}
	}
	return false
}

// What inspect finds in programs built by nvcc, without running them.
func TestInspect(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("needs nvcc")
	}
	for file, want := range map[string]string{
		"../../solutions/day069/async_pipeline.cu": "",
		"testdata/hostile/static_runtime.cu":       "its own CUDA runtime",
		"testdata/hostile/per_thread_stream.cu":    "per-thread default stream",
		"testdata/hostile/ifunc_key.cu":            "IFUNC",
		"testdata/hostile/preinit_key.cu":          ".preinit_array",
		"testdata/library/environ_copy.cu":         "",
		"testdata/hostile/environ_own.cu":          "defines environ (a variable)",
	} {
		args := []string{"-cudart", "shared"}
		if file == "testdata/hostile/static_runtime.cu" {
			args = append(args, "-cudart", "static")
		}
		prog := filepath.Join(t.TempDir(), "prog")
		if out, err := exec.Command(nvcc, append(args, "-o", prog, file)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, out)
		}
		if got := inspect(prog, "", ""); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}

// The same channel through the grading sandbox (a user of its own when
// root, Landlock, rlimits, a cgroup): an honest program's record ends,
// one that leaves by _exit does not.
func TestRealLibraryChannelSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	src, _ := filepath.Abs("testdata/library/modes.cu")
	sb, err := TempSandbox("lessons-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, tc := range []struct {
		mode string
		pass bool
	}{{"plain", true}, {"fork", true}, {"exit", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			s := spec(t, "args = [\""+tc.mode+"\"]\n[[check]]\nexit = 0\n[[check]]\nstat = \"exited\"\nequals = 1\n")
			j := &Job{ID: "modes", Spec: s, Hash: tc.mode, Files: []File{{Name: "modes.cu", Path: src}}}
			v, err := Check(context.Background(), tk, sb, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed() != tc.pass {
				t.Fatalf("passed = %v, want %v: %+v (output %q)", v.Passed(), tc.pass, v.Results, v.Output)
			}
		})
	}
}

// A program that swaps its own file during the run is judged by the file
// that was built: the grader reads the program before it runs (it read
// the copy in the run's folder after, and found /bin/true there), in the
// plain runner and the grading sandbox alike.
func TestRealLibraryRefusesSelfSwap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	src, _ := filepath.Abs("testdata/library/preinit_swap.cu")
	sb, err := TempSandbox("lessons-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for name, r := range map[string]Runner{"plain": Plain{}, "sandbox": sb} {
		t.Run(name, func(t *testing.T) {
			j := &Job{ID: "swap", Spec: spec(t, "[[check]]\nexit = 0\n"), Dir: t.TempDir(), Hash: name, Files: []File{{Name: "swap.cu", Path: src}}}
			v, err := Check(context.Background(), tk, r, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed() || !failedWith(v, ".preinit_array") {
				t.Errorf("a program that swapped itself: %+v (output %q)", v.Results, v.Output)
			}
		})
	}
}

// TestRealLibraryRefusesInterposers: a program that defines a function
// the statistics library calls (memcpy, as the record is copied into its
// frame) is called in the library's stead, and could change the record
// before it is signed: such a program is not trusted, whatever its record
// says.
func TestRealLibraryRefusesInterposers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	for file, name := range map[string]string{"interpose.cu": "memcpy", "interpose_var.cu": "_r_debug"} {
		src, _ := filepath.Abs("testdata/library/" + file)
		j := &Job{ID: "interpose", Spec: spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"pools_created\"\nequals = 1\n"), Dir: t.TempDir(), Files: []File{{Name: file, Path: src}}}
		v, err := Check(context.Background(), tk, Plain{}, j, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v.Passed() || !failedWith(v, name) {
			t.Errorf("a program that defines %s passed a check of its record: %+v (output %q)", name, v.Results, v.Output)
		}
	}
}

// The real library's bookkeeping of version 6, on a machine without a
// GPU: testdata/library/fake stands in for the runtime and the driver
// (libcuda.so.1), and its program frees, uses after the free, allocates
// the block again at the same address, and makes and destroys events.
// The library's own timing events, made through the stand-in too, are
// not the program's; the stand-in's cudaEventCreateWithFlags calls the
// hooked cudaEventCreate, from inside the library's lock when the library
// makes its timing events (a non-recursive lock once waited for itself
// there: this test hung).
func TestRealLibraryUsesAfterFreeAndEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	lib, dir := fakeRuntime(t, "program.cc")
	rec, _ := runOverFake(t, lib, dir, nil)
	want := map[string]float64{
		"uses_after_free": 4, "events_created": 3, "events_destroyed": 2, "leaked_events": 1,
		"malloc_async_calls": 3, "kernel_launches": 3, "launches_inspected": 3, "exited": 1,
	}
	wantStats(t, rec.Stats, want)
	if note, want := rec.Stats.RaceNote("uses_after_free"), "kernel k on stream 2 used a 4 KiB buffer that cudaFreeAsync on stream 1 had freed before it was queued"; note != want {
		t.Errorf("the first use after free: %q, want %q", note, want)
	}
}

// The same program, with a stand-in driver that, while the library asks
// it something for itself (records or reads a timing event, asks whether
// a stream is capturing, describes a kernel), waits for a thread of its
// own that enters a hooked function. A library that held its lock across
// such a call hung here for good (the intermittent hang of graded runs on
// the H100 had that shape); the run must end, with the same record.
func TestRealLibraryDriverThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	lib, dir := fakeRuntime(t, "program.cc")
	rec, _ := runOverFake(t, lib, dir, []string{"FAKE_DRIVER_THREAD=1"})
	wantStats(t, rec.Stats, map[string]float64{
		"uses_after_free": 4, "events_created": 3, "events_destroyed": 2, "leaked_events": 1,
		"malloc_async_calls": 3, "kernel_launches": 3, "launches_inspected": 3, "exited": 1,
	})
}

// Memory handed out by other calls than a plain allocation, at the
// address of a block freed before (record version 7): pitched
// allocations, a pointer imported from another process's pool, a graph's
// allocation node at each launch. Their uses are no use after free; an
// allocation the library does not hook is learnt at its free (its size
// asked of the driver), so a use of it after that is. The driver's own
// look-up of an entry point gets the real function, the program's the
// hook.
func TestRealLibraryUnhookedAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	lib, dir := fakeRuntime(t, "program7.cc")
	rec, out := runOverFake(t, lib, dir, nil)
	if !strings.Contains(out, "done") {
		t.Fatalf("the program failed: %q", out)
	}
	wantStats(t, rec.Stats, map[string]float64{
		"malloc_calls": 3, "malloc_bytes": 1<<16 + 2*4096, "free_calls": 4,
		"pool_imports": 1, "pool_import_bytes": 4096, "pool_import_frees": 1, "leaked_pool_imports": 0,
		"graph_allocs": 3, "graph_alloc_bytes": 2*4096 + 16384, "unknown_frees": 1,
		"uses_after_free": 2, "leaked_allocs": 0, "live_bytes": 0, "free_async_calls": 4, "exited": 1,
	})
	if note, want := rec.Stats.RaceNote("uses_after_free"), "kernel k on stream 1 used a 8 KiB buffer that cudaFree had freed before it was queued"; note != want {
		t.Errorf("the first use after free: %q, want %q", note, want)
	}
	if rec.Guard.Redirected != 1 {
		t.Errorf("%d look-ups answered with a hook, want 1 (the program's, not the driver's)", rec.Guard.Redirected)
	}
}

// The mistakes of record version 8 and their correct twins (program8.cc):
// polls counted and counted as waits, races on a cudaMalloc arena by
// address range (a cudaMemset on the legacy stream, a sub-range cleared
// by another stream; two reads are none), a graph's allocation freed by
// its next launch, a pool setting nothing used, and results brought to
// the host before the stream that wrote them was waited for; and one
// cuMemUnmap undoing two mappings, counted by the bytes, made before the
// host waited for the work queued (and one after); and mappings past the
// end of the addresses reserved for them (two ranges side by side are
// one; a mapping in no reservation is not judged).
func TestRealLibraryMistakesOfAKind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	lib, dir := fakeRuntime(t, "program8.cc")
	rec, out := runOverFake(t, lib, dir, nil)
	if !strings.Contains(out, "done") {
		t.Fatalf("the program failed: %q", out)
	}
	wantStats(t, rec.Stats, map[string]float64{
		"host_polls": 5, "poll_waits": 2, "stream_syncs": 1, "event_syncs": 0,
		"unordered_uses": 3, "unwaited_results": 2, "unordered_frees": 1,
		"graph_relaunch_frees": 2, "graph_allocs": 3, "graph_launches": 3,
		"pool_settings_unused": 1, "pools_created": 3, "pool_attr_sets": 4, "device_pool_sets": 1,
		"sync_memsets": 1, "sync_memcpys": 1, "default_stream_ops": 0, "uses_after_free": 0, "exited": 1,
		"vmm_map_calls": 7, "vmm_unmap_calls": 4, "vmm_map_bytes": 22 << 20, "vmm_unmap_bytes": 22 << 20, "vmm_unmaps_unwaited": 1,
		"vmm_maps_past_reservation": 2, "vmm_reserve_calls": 2, "vmm_address_free_calls": 1, "vmm_free_while_mapped": 0,
	})
	for stat, want := range map[string]string{
		"unordered_uses":   "used memory at offset 4096 of a 64 KiB allocation that cudaMemset on stream 0 may still be using",
		"unordered_frees":  "a launch of its graph on stream",
		"unwaited_results": "cudaMemcpy brought 8 KiB to the host before the host waited for stream",
	} {
		if note := rec.Stats.RaceNote(stat); !strings.Contains(note, want) {
			t.Errorf("the first of %s: %q, want it to say %q", stat, note, want)
		}
	}
}

// Two devices (record version 9, program9.cc): a pool made on each
// device and set as its current pool, device 1 given access to device 0's
// pool (the owner's own access is no grant), device 0's blocks allocated
// on device 1's stream (from the program's pool and from the default
// pool, whose device is the one it was asked of), blocks of the current
// pools, and copies: between devices by cudaMemcpyPeerAsync and by
// addresses, and one between two blocks of device 0, which is no peer copy;
// the bytes on each device, and a kernel launched and a copy queued on
// device 1's stream with device 0 current (record version 20).
func TestRealLibraryTwoDevices(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	lib, dir := fakeRuntime(t, "program9.cc")
	rec, out := runOverFake(t, lib, dir, nil)
	if !strings.Contains(out, "done") {
		t.Fatalf("the program failed: %q", out)
	}
	wantStats(t, rec.Stats, map[string]float64{
		"pools_created": 2, "device_pool_sets": 2, "pool_peer_grants": 1, "peer_access_enables": 1,
		"cross_device_allocs": 2, "set_pool_allocs": 2, "device0_async_allocs": 3, "device1_async_allocs": 1,
		"peer_copies": 3, "peer_copy_bytes": 4096 + 1024 + 256, "devices_used": 2,
		"malloc_from_pool_calls": 2, "malloc_async_calls": 2, "leaked_allocs": 0, "exited": 1,
		"device0_async_bytes": 4096 + 4096 + 8192, "device1_async_bytes": 4096,
		"kernel_launches": 2, "launches_off_device": 1, "copies_off_device": 1,
	})
}

// fakeRuntime builds the statistics library, the stand-in runtime of
// testdata/library/fake as libcuda.so.1, and a program of that folder
// linked with it; it returns the library and the folder of the two.
func fakeRuntime(t *testing.T, program string) (lib, dir string) {
	tk := realToolkit(t)
	lib, err := tk.StatsLibrary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, args := range [][]string{
		{"-x", "c++", "-shared", "-Xcompiler", "-fPIC", "-cudart", "none", "-Xlinker", "-soname=libcuda.so.1",
			"-o", filepath.Join(dir, "libcuda.so.1"), "testdata/library/fake/fakecuda.cc", "testdata/library/fake/fakegraph.cc",
			"testdata/library/fake/fakepeer.cc"},
		{"-x", "c++", "-cudart", "none", "-o", filepath.Join(dir, "program"), "testdata/library/fake/" + program,
			"-L" + dir, "-l:libcuda.so.1", "-Xlinker", "-rpath=" + dir},
	} {
		if out, err := exec.Command(tk.NVCC.Path, args...).CombinedOutput(); err != nil {
			t.Fatalf("nvcc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return lib, dir
}

// runOverFake runs the program fakeRuntime built, with the library
// preloaded and env added, and returns its record and output. A run that
// has not ended in a minute is stopped: it hung.
func runOverFake(t *testing.T, lib, dir string, env []string) (*checker.Received, string) {
	ch, err := checker.OpenPipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "program"))
	cmd.Env = append(append([]string{"LD_PRELOAD=" + lib}, ch.Env()...), env...)
	cmd.ExtraFiles = []*os.File{ch.W}
	out, runErr := cmd.CombinedOutput()
	rec, err := ch.Finish(drainGrace)
	if ctx.Err() != nil {
		t.Fatalf("the program hung (stopped after a minute); output %q", out)
	}
	if runErr != nil || err != nil {
		t.Fatalf("run: %v, record: %v (output %q)", runErr, err, out)
	}
	return rec, string(out)
}

func wantStats(t *testing.T, s *checker.Stats, want map[string]float64) {
	t.Helper()
	for n, w := range want {
		if v, ok := s.Value(n); !ok || v != w {
			t.Errorf("%s = %v, want %v", n, v, w)
		}
	}
}

// An event recorded with cudaEventRecordWithFlags orders the streams as
// one recorded with cudaEventRecord does: PyTorch 2 records every
// torch.cuda.Event (and so Stream.wait_stream) that way, and on the H200 a
// correct two-stream script failed unordered_uses (12) while the library
// saw only the wait.
func TestRealLibraryEventRecordWithFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	lib, dir := fakeRuntime(t, "eventflags.cc")
	for _, tc := range []struct {
		mode           string
		records, pairs float64
		unordered      float64
	}{
		{"flags", 1, 1, 0},
		{"plain", 1, 1, 0},
		{"", 0, 0, 1},
	} {
		rec, out := runOverFake(t, lib, dir, []string{"FAKE_RECORD=" + tc.mode})
		if !strings.Contains(out, "done") {
			t.Fatalf("%q: the program failed: %q", tc.mode, out)
		}
		wantStats(t, rec.Stats, map[string]float64{
			"event_records": tc.records, "event_pairs": tc.pairs, "unordered_uses": tc.unordered,
			"stream_wait_events": 1, "kernel_launches": 2,
		})
	}
}
