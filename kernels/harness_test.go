package kernels_test

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/wrong"
)

// harnessRig is the statistics library and the stand-in runtime of
// testdata/stub built for programs nvcc builds with -cudart shared: a
// course's harness, its solution completed, runs on a machine without a
// GPU, its kernels never running and every event answering done, and its
// record shows what the library's model of the run says.
type harnessRig struct{ dir, nvcc string }

func buildHarnessRig(t *testing.T) harnessRig {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a dozen programs with nvcc")
	}
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("no nvcc here")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler here")
	}
	dir := t.TempDir()
	writeLibrary(t, dir)
	stub, _ := filepath.Abs("testdata/stub")
	libraryInto(t, nvcc, dir)
	run(t, dir, cc, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", "libcuda.so.1", filepath.Join(stub, "driver.c"))
	// The stand-in runtime takes the name nvcc's programs ask for
	// (libcudart.so.11.0 with CUDA 11.8), and loads the stand-in driver,
	// as the real runtime loads libcuda.
	probe := filepath.Join(dir, "probe.cu")
	if err := os.WriteFile(probe, []byte("int main() { return 0; }\n__global__ void k() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nvcc, "-cudart", "shared", "-o", "probe", probe)
	f, err := elf.Open(filepath.Join(dir, "probe"))
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := f.ImportedLibraries()
	f.Close()
	soname := ""
	for _, l := range libs {
		if strings.HasPrefix(l, "libcudart.so") {
			soname = l
		}
	}
	if soname == "" {
		t.Fatalf("a program nvcc built with -cudart shared needs no libcudart: %v", libs)
	}
	run(t, dir, cc, "-shared", "-fPIC", "-o", soname, filepath.Join(stub, "nvcc.c"), "-Wl,--no-as-needed", filepath.Join(dir, "libcuda.so.1"), "-Wl,-rpath,"+dir)
	return harnessRig{dir, nvcc}
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// build builds the course file main (its path from the course's root),
// with the course's files of its folder and of replace's beside it, the
// file at replace holding content, and nvcc's flags added; it returns the
// program.
func (h harnessRig) build(t *testing.T, name, main, replace string, content []byte, flags ...string) string {
	t.Helper()
	src := filepath.Join(h.dir, name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Dir(main), filepath.Dir(replace)} {
		entries, err := os.ReadDir(filepath.Join("..", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); ext != ".cu" && ext != ".h" {
				continue
			}
			data, err := os.ReadFile(filepath.Join("..", dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(src, filepath.Base(replace)), content, 0o644); err != nil {
		t.Fatal(err)
	}
	// For the course's GPU (an H200), as the grader builds for the GPU it
	// finds: nvcc's default architecture lacks what a student may use
	// (review/blind22's stream-pools used __reduce_add_sync, sm_80 on).
	args := append([]string{"-std=c++17", "-arch=sm_90", "-cudart", "shared", "-o", "prog", filepath.Base(main)}, flags...)
	prog := filepath.Join(src, "prog")
	// A program nvcc built before in this package's run, from the same
	// files with the same flags, is copied: the tests of one exercise
	// build its solution and each right alternative again and again.
	kept := filepath.Join(built.dir, "programs", programKey(t, src, args))
	if _, err := os.Stat(kept); err == nil {
		copyFile(t, kept, prog)
		return prog
	}
	run(t, src, h.nvcc, args...)
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		t.Fatal(err)
	}
	// Written whole, then named: a reader sees the program or nothing.
	copyFile(t, prog, kept+".new")
	if err := os.Rename(kept+".new", kept); err != nil {
		t.Fatal(err)
	}
	return prog
}

// copyFile copies the file from to to, executable.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// programKey hashes what nvcc builds a program from: its flags and every
// file of its folder, by name and content.
func programKey(t *testing.T, src string, args []string) string {
	t.Helper()
	h := sha256.New()
	for _, a := range args {
		fmt.Fprintf(h, "%q\n", a)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "prog" || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%q %d\n", e.Name(), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// record runs prog with args, the library preloaded, and returns its
// verified record.
func (h harnessRig) record(t *testing.T, prog string, args ...string) *checker.Stats {
	t.Helper()
	s, _ := h.recordEnv(t, prog, nil, args...)
	return s
}

// recordEnv is record with env added to the program's environment; it
// returns the program's output too.
func (h harnessRig) recordEnv(t *testing.T, prog string, env []string, args ...string) (*checker.Stats, string) {
	t.Helper()
	got, out := h.recordAll(t, prog, env, args...)
	return got.Stats, out
}

// recordAll is recordEnv with the children's record too.
func (h harnessRig) recordAll(t *testing.T, prog string, env []string, args ...string) (*checker.Received, string) {
	t.Helper()
	return h.recordRun(t, prog, env, false, args...)
}

// recordFailing is record for a harness that checks its results and
// exits 1 on the stand-in runtime, whose kernels never run: what the
// record says of the run is still the run's.
func (h harnessRig) recordFailing(t *testing.T, prog string, args ...string) *checker.Stats {
	t.Helper()
	got, _ := h.recordRun(t, prog, nil, true, args...)
	return got.Stats
}

// recordRun runs prog and returns its verified record and output; a
// nonzero exit fails the test unless anyExit.
func (h harnessRig) recordRun(t *testing.T, prog string, env []string, anyExit bool, args ...string) (*checker.Received, string) {
	t.Helper()
	key := make([]byte, checker.KeySize)
	rand.Read(key)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append([]string{"LD_LIBRARY_PATH=" + h.dir, "LD_PRELOAD=" + filepath.Join(h.dir, "lib.so"), "LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(key)}, env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		if _, exited := err.(*exec.ExitError); !anyExit || !exited || cmd.ProcessState.ExitCode() < 0 {
			t.Fatalf("%s %v: %v\n%s", prog, args, err, out.Bytes())
		}
	}
	c := checker.NewChannel(key)
	c.Write(data)
	got, err := c.Close()
	if err != nil || got == nil || got.Stats == nil {
		t.Fatalf("%s %v: the record did not verify: %v", prog, args, err)
	}
	return got, out.String()
}

// patched is the solution sol (its path from the course's root) with the
// patch of the course at patch applied.
func patched(t *testing.T, sol, patch string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile(filepath.Join("..", patch))
	if err != nil {
		t.Fatal(err)
	}
	out, err := wrong.Apply(patch, p, sol, src)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mutated is the solution sol with the one line that holds old changed
// to hold new, as the mutant named makes it.
func mutated(t *testing.T, sol, old, new string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(src, []byte(old)) != 1 {
		t.Fatalf("%s holds %q %d times, want once: the mutant moved", sol, old, bytes.Count(src, []byte(old)))
	}
	return bytes.Replace(src, []byte(old), []byte(new), 1)
}

// One event standing for many, in the course's two pools (issue 36): a
// block handed out because another block's event, or another stream's,
// said done. The record's model of the run sees it in block-pool's runs
// (the harness clears each block it is given, a known write) and in
// pool-resource's three-stream run, and sees no race in the solutions or
// any of their correct alternatives, whatever the GPU's timing.
// review/blind24's block j of every class on one event is seen in
// block-pool's part 3e (session 27: two classes' blocks out at once,
// the other class's given back last on another stream); before it, no
// part had blocks of two classes out while they were used.
func TestHarnessesShowOneEventForMany(t *testing.T) {
	h := buildHarnessRig(t)
	type program struct {
		name    string
		content []byte // of the solution file
		race    bool
	}
	for _, ex := range []struct {
		main, sol, right, wrongDir string
		wrongs                     []string
		mutant                     [2]string
		runs                       [][]string
	}{
		{
			main: "solutions/day068/block_pool.cu", sol: "solutions/day068/block_pool.cu",
			right: "solutions/day068/right/block-pool", wrongDir: "solutions/day068/wrong/block-pool",
			wrongs: []string{"blind_one_event_per_class.patch", "immediate_reuse.patch", "blind24_events_shared_by_the_same_slot_of_every_class.patch"},
			mutant: [2]string{"if (cudaEventQuery(done_[b]) != cudaSuccess) continue;", "if (cudaEventQuery(done_[0]) != cudaSuccess) continue;"},
			runs:   [][]string{nil, {"5", "150", "256", "4097", "65536"}, {"12", "100", "64", "200"}},
		},
		{
			main: "exercises/day076/pool_resource.cu", sol: "solutions/day076/pool_resource.h",
			right: "solutions/day076/right/pool-resource", wrongDir: "solutions/day076/wrong/pool-resource",
			wrongs: []string{"blind_one_event_all_streams.patch", "blind_retag_every_stream.patch"},
			mutant: [2]string{"CHECK(cudaEventRecord(event_of(s), s));\n            b = Block", "CHECK(cudaEventRecord([&] { static cudaEvent_t lessons_first = event_of(s); return lessons_first; }(), s));\n            b = Block"},
			runs:   [][]string{{"8", "3"}},
		},
	} {
		sol, err := os.ReadFile(filepath.Join("..", ex.sol))
		if err != nil {
			t.Fatal(err)
		}
		programs := []program{{"solution", sol, false}}
		rights, err := os.ReadDir(filepath.Join("..", ex.right))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rights {
			programs = append(programs, program{"right/" + r.Name(), patched(t, ex.sol, filepath.Join(ex.right, r.Name())), false})
		}
		for _, w := range ex.wrongs {
			programs = append(programs, program{"wrong/" + w, patched(t, ex.sol, filepath.Join(ex.wrongDir, w)), true})
		}
		programs = append(programs, program{"mutant one-event", mutated(t, ex.sol, ex.mutant[0], ex.mutant[1]), true})
		for i, p := range programs {
			prog := h.build(t, filepath.Base(filepath.Dir(ex.sol))+"-"+string(rune('a'+i)), ex.main, ex.sol, p.content)
			for _, args := range ex.runs {
				s := h.record(t, prog, args...)
				if got := s.UnorderedUses > 0; got != p.race {
					t.Errorf("%s %s %v: unordered_uses %d (%s), want a race: %v", ex.sol, p.name, args, s.UnorderedUses, s.RaceNote("unordered_uses"), p.race)
				}
			}
		}
	}
}

// A free list moved to the stealing stream after one wait, with no record
// of that stream's event after it (RMM's merge_lists, rapidsai/rmm#2489;
// review/blind3, issue 36): a third stream that steals a moved block waits
// on an event older than the wait. pool-resource's three-stream phase
// (two streams take, one after the other, blocks the first freed) and
// stream-ordered-pool's hidden --handoff run (nine blocks) reach it; the
// solutions and their correct alternatives show no race there. And the
// waits stream-ordered-pool counts: at most one a block handed out where
// blocks change streams (its 3-block run), none where none does (its
// 16-block run), whichever correct design; the blind waits for every
// stream at a steal and for a stream's own event exceed them.
func TestHarnessesShowMovedListsAndNeedlessWaits(t *testing.T) {
	h := buildHarnessRig(t)
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	programs := func(sol, right, wrongDir string, wrongs ...string) []program {
		src, err := os.ReadFile(filepath.Join("..", sol))
		if err != nil {
			t.Fatal(err)
		}
		ps := []program{{"solution", src, false}}
		rights, err := os.ReadDir(filepath.Join("..", right))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rights {
			ps = append(ps, program{"right/" + r.Name(), patched(t, sol, filepath.Join(right, r.Name())), false})
		}
		for _, w := range wrongs {
			ps = append(ps, program{"wrong/" + w, patched(t, sol, filepath.Join(wrongDir, w)), true})
		}
		return ps
	}
	// blind3 is review/blind3's correct design of an exercise, written
	// without the spec: it must pass too.
	blind3 := func(file string) program {
		src, err := os.ReadFile(filepath.Join("..", "review", "blind3", file))
		if err != nil {
			t.Fatal(err)
		}
		return program{"review/blind3/" + file, src, false}
	}

	sol := "solutions/day076/pool_resource.h"
	for i, p := range append(programs(sol, "solutions/day076/right/pool-resource", "solutions/day076/wrong/pool-resource", "blind3_merge_lists_no_record.patch", "blind_retag_stale_event.patch"), blind3("pool-resource/correct.h")) {
		prog := h.build(t, "moved76-"+string(rune('a'+i)), "exercises/day076/pool_resource.cu", sol, p.content)
		s := h.record(t, prog, "8", "3")
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [8 3]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
	}

	sol = "solutions/day088/stream_ordered_pool.h"
	wrongs := []string{"blind3_merge_lists_no_record.patch", "blind3_steal_waits_every_stream.patch", "blind3_wait_on_own_reuse.patch"}
	for i, p := range append(programs(sol, "solutions/day088/right/stream-ordered-pool", "solutions/day088/wrong/stream-ordered-pool", wrongs...), blind3("stream-ordered-pool/correct.h")) {
		prog := h.build(t, "moved88-"+string(rune('a'+i)), "exercises/day088/bench.cu", sol, p.content)
		handoff := h.record(t, prog, "--handoff", "12", "9")
		small := h.record(t, prog, "9", "3")
		large := h.record(t, prog, "9", "16")
		// The hidden run whose fills spin 2 ms first: the stand-in runtime
		// runs no kernel, so it shows only that bench.cu takes the third
		// number and the run ends as the others do (on a GPU a block is
		// still in use there when another stream steals it, and a pool
		// that polls its event is seen: blind_poll_steal.patch).
		if slow := h.record(t, prog, "4", "3", "2000"); slow.Exited != 1 || slow.KernelLaunches != 48 || (!strings.HasPrefix(p.name, "wrong/") && slow.UnorderedUses != 0) {
			t.Errorf("%s %s [4 3 2000]: exited %d, %d launches (want 48), unordered_uses %d", sol, p.name, slow.Exited, slow.KernelLaunches, slow.UnorderedUses)
		}
		failed := map[string]bool{
			"blind3_merge_lists_no_record.patch":    handoff.UnorderedUses > 0,
			"blind3_steal_waits_every_stream.patch": small.StreamWaitEvents > 54,
			"blind3_wait_on_own_reuse.patch":        large.StreamWaitEvents > 0,
		}
		t.Logf("%s: --handoff 12 9: unordered_uses %d, %d waits; 9 3: %d waits; 9 16: %d waits", p.name, handoff.UnorderedUses, handoff.StreamWaitEvents, small.StreamWaitEvents, large.StreamWaitEvents)
		for w, got := range failed {
			if want := p.name == "wrong/"+w; got != want {
				t.Errorf("%s %s: fails %s's check: %v, want %v (unordered_uses %d on --handoff 12 9: %s; waits %d on 9 3, %d on 9 16)", sol, p.name, w, got, want,
					handoff.UnorderedUses, handoff.RaceNote("unordered_uses"), small.StreamWaitEvents, large.StreamWaitEvents)
			}
		}
	}
}

// Two free neighbours joined on one stream (review/blind4, issue 36): the
// joined block must carry the event recorded at the later free, which
// covers the work queued between the two. pool-resource's phase 6 (three
// streams) frees the lower block, uses the upper one, frees it, and
// hands the joined block to another stream, whose kernels on the upper
// half are given the address the first stream's last kernels had: a pool
// that keeps the older event shows a race there; the solution, its
// correct alternatives and the blind sets' correct designs do not
// (review/blind's is judged wrong since session 14, as
// blind_retag_stale_event.patch: phase 5 shows its race).
func TestHarnessesShowJoinsKeepingTheOlderEvent(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day076/pool_resource.h"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, false}}
	right := "solutions/day076/right/pool-resource"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		ps = append(ps, program{"right/" + r.Name(), patched(t, sol, filepath.Join(right, r.Name())), false})
	}
	for _, set := range []string{"blind3", "blind4"} {
		file := filepath.Join("review", set, "pool-resource", "correct.h")
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, program{file, b, false})
	}
	ps = append(ps, program{"wrong/blind4_join_keeps_older_event.patch", patched(t, sol, "solutions/day076/wrong/pool-resource/blind4_join_keeps_older_event.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "join76-"+string(rune('a'+i)), "exercises/day076/pool_resource.cu", sol, p.content)
		s := h.record(t, prog, "8", "3")
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [8 3]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
	}
}

// The rest of a block cut from another stream's free block (review/blind5,
// issue 36; rapidsai/rmm#2489): it stays free in the order of the stream
// that freed the block. A pool that lists it as the taker's, without
// recording the taker's event again after its wait, lets a third stream
// that takes the rest wait on the wrong event. pool-resource's phase 7
// (three streams) has C free 8 MiB, A take 4 MiB of it and B the rest:
// the blind file shows a race there; the solution, its correct
// alternatives and the blind sets' correct designs show none, and cut
// both blocks from C's.
func TestHarnessesShowStolenRestsListedAsTheTakers(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day076/pool_resource.h"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, false}}
	right := "solutions/day076/right/pool-resource"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		ps = append(ps, program{"right/" + r.Name(), patched(t, sol, filepath.Join(right, r.Name())), false})
	}
	for _, set := range []string{"blind3", "blind4", "blind5"} {
		file := filepath.Join("review", set, "pool-resource", "correct.h")
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, program{file, b, false})
	}
	blind := "review/blind5/pool-resource/wrong-rest-retagged-to-taker.h"
	b, err := os.ReadFile(filepath.Join("..", blind))
	if err != nil {
		t.Fatal(err)
	}
	ps = append(ps, program{blind, b, true})
	ps = append(ps, program{"wrong/blind5_rest_retagged_to_taker.patch", patched(t, sol, "solutions/day076/wrong/pool-resource/blind5_rest_retagged_to_taker.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "rest76-"+string(rune('a'+i)), "exercises/day076/pool_resource.cu", sol, p.content)
		s, out := h.recordEnv(t, prog, nil, "8", "3")
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [8 3]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
		t.Logf("%s: unordered_uses %d (%s)", p.name, s.UnorderedUses, s.RaceNote("unordered_uses"))
		if !strings.Contains(out, "both cut from C's block yes") {
			t.Errorf("%s %s [8 3]: phase 7 did not cut both blocks from C's:\n%s", sol, p.name, out)
		}
	}
}

// Whether the device has pools is its answer to
// cudaDevAttrMemoryPoolsSupported (review/blind4, issue 36): strict-pool's
// hidden run "a device without pools" makes that answer 0, as such a
// device says. The solution, its correct alternatives and every blind
// set's correct design stop there and make no pool; a pools_supported
// that guesses from the driver's version makes one.
func TestHarnessesAskTheDeviceForPools(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day071/strict_pool.cu"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, false}}
	right := "solutions/day071/right/strict-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		b := patched(t, sol, filepath.Join(right, r.Name()))
		if bytes.Contains(b, []byte("memoryPoolsSupported")) && !propsSayPools() {
			t.Logf("right/%s: not built here (this toolkit's cudaDeviceProp has no memoryPoolsSupported)", r.Name())
			continue
		}
		ps = append(ps, program{"right/" + r.Name(), b, false})
	}
	for _, set := range []string{"blind", "blind3", "blind4"} {
		file := filepath.Join("review", set, "strict-pool", "correct.cu")
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, program{file, b, false})
	}
	ps = append(ps, program{"wrong/blind4_supported_from_version.patch", patched(t, sol, "solutions/day071/wrong/strict-pool/blind4_supported_from_version.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "pools71-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := h.recordEnv(t, prog, []string{"LESSONS_STATS_FAIL=cudaDeviceGetAttribute.MemoryPoolsSupported=0:1"})
		stopped := s.PoolsCreated == 0 && strings.Contains(out, "does not support memory pools")
		t.Logf("%s: %d pools made, %d answers changed", p.name, s.PoolsCreated, s.InjectedFailures)
		if stopped == p.wrong {
			t.Errorf("%s %s on a device without pools: %d pools made, output %q; want it stopped: %v", sol, p.name, s.PoolsCreated, out, !p.wrong)
		}
		if s.InjectedFailures != 1 && !p.wrong {
			t.Errorf("%s %s: %d answers changed, want 1 (the device asked once)", sol, p.name, s.InjectedFailures)
		}
	}
}

// The parent's free of a block its child imported must be ordered after
// a wait on the child's event queued once the child's record covering its
// free of the import was made (review/blind4, issue 36): ipc-pool's
// harness, its records made 50 ms late as in the hidden run "records made
// late", shows export_frees_early for a free queued before that wait, and
// none for the solution, its correct alternatives and every blind set's
// correct design.
func TestHarnessesShowExportFreesBeforeTheImportersSignal(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day073/ipc_pool.cu"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, false}}
	right := "solutions/day073/right/ipc-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		b, err := os.ReadFile(filepath.Join("..", right, r.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(r.Name(), ".patch") {
			b = patched(t, sol, filepath.Join(right, r.Name()))
		}
		ps = append(ps, program{"right/" + r.Name(), b, false})
	}
	for _, set := range []string{"blind", "blind3", "blind4"} {
		file := filepath.Join("review", set, "ipc-pool", "correct.cu")
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, program{file, b, false})
	}
	for _, w := range []string{"blind4_free_before_wait_for_freed.patch", "public_exporter_frees_first.cu", "free_without_waiting.cu", "blind7_freed_on_the_answers_alone.patch"} {
		path := filepath.Join("solutions/day073/wrong/ipc-pool", w)
		b, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(w, ".patch") {
			b = patched(t, sol, path)
		}
		ps = append(ps, program{"wrong/" + w, b, true})
	}
	for i, p := range ps {
		prog := h.build(t, "export73-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := h.recordEnv(t, prog, []string{"LESSONS_STATS_IPC_DELAY=50"}, "4", "8")
		t.Logf("%s: export_frees_early %d", p.name, s.ExportFreesEarly)
		if got := s.ExportFreesEarly > 0; got != p.wrong {
			t.Errorf("%s %s [4 8, records 50 ms late]: export_frees_early %d, want some: %v\n%s", sol, p.name, s.ExportFreesEarly, p.wrong, out)
		}
	}
}

// A hand orders its stream after everything the other stream queued so
// far, not only its puts (review/blind6, issue 36): strict-pool's hidden
// run "A works on after its put" (LATE = 1) has A queue a kernel and the
// copy of a word after each put and before its hand, and B's round adds
// the word to its sum. The record's model sees B's use of the word race
// A's copy (a known write) when the
// pool's event is recorded at the put, and no race in the solution or
// any of its correct alternatives, whatever the GPU's timing.
func TestHarnessesShowHandsRecordedAtThePut(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day071/strict_pool.cu"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, false}}
	right := "solutions/day071/right/strict-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		b := patched(t, sol, filepath.Join(right, r.Name()))
		if bytes.Contains(b, []byte("memoryPoolsSupported")) && !propsSayPools() {
			t.Logf("right/%s: not built here (this toolkit's cudaDeviceProp has no memoryPoolsSupported)", r.Name())
			continue
		}
		ps = append(ps, program{"right/" + r.Name(), b, false})
	}
	ps = append(ps, program{"wrong/blind6_event_recorded_at_put.patch", patched(t, sol, "solutions/day071/wrong/strict-pool/blind6_event_recorded_at_put.patch"), true})
	// review/blind6's files, written from the student file, with its
	// harness as it is now (gen-a/strict_pool.py).
	for _, f := range []struct {
		name  string
		wrong bool
	}{{"correct.cu", false}, {"wrong-event-recorded-at-put-not-at-hand.cu", true}} {
		file := filepath.Join("review", "blind6", "strict-pool", f.name)
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, program{file, b, f.wrong})
	}
	for i, p := range ps {
		prog := h.build(t, "late71-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := h.recordEnv(t, prog, nil, "2", "1", "1")
		if !strings.Contains(out, "A queues more work after each put, before its hand") {
			t.Fatalf("%s %s [2 1 1]: the harness did not queue the late work:\n%s", sol, p.name, out)
		}
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [2 1 1]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
		t.Logf("%s: unordered_uses %d (%s)", p.name, s.UnorderedUses, s.RaceNote("unordered_uses"))
		if !p.wrong {
			if plain := h.record(t, prog, "2", "1"); plain.UnorderedUses != 0 || plain.KernelLaunches != 6 {
				t.Errorf("%s %s [2 1]: unordered_uses %d, %d launches (want 0 and 6: without LATE the rounds are as before)", sol, p.name, plain.UnorderedUses, plain.KernelLaunches)
			}
		}
	}
}

// A graph built by hand is judged at each launch as a launch on its
// stream is (issues 36 and 37): graph_node.cu of the GPU forgers, whose
// reader is a kernel node added with cudaGraphAddKernelNode and launched
// on another stream than the buffer's writer, is an unordered use; the
// same graph launched after a wait on an event recorded after the writer
// is not. So are memset and memcpy nodes: a memset node racing the
// writer, a memcpy node copying past its source's end, a memset node
// launched after its buffer was freed, and a memset node moved onto the
// writer's buffer in the executable graph (cudaGraphExecMemsetNodeSetParams,
// cudaGraphExecUpdate), and not once moved back after the update. A
// memset node after an event wait node on the
// writer's event is ordered (before, the wait node was not read and the
// memset raced the work it waited for), and so is the writer's next
// fill on its stream after a wait for the graph's event record node.
// A captured memset embedded as a child graph, or cloned, is not judged
// again at launch (it was at its capture). A graph launched again on
// another stream comes after its first launch, as CUDA orders them.
func TestHarnessesShowRacesInHandBuiltGraphs(t *testing.T) {
	h := buildHarnessRig(t)
	const forger = "internal/exercise/testdata/gpuforgers/graph_node.cu"
	src, err := os.ReadFile(filepath.Join("..", forger))
	if err != nil {
		t.Fatal(err)
	}
	race := h.record(t, h.build(t, "race", forger, forger, src))
	t.Logf("graph_node.cu: unordered_uses %d: %s", race.UnorderedUses, bytes.TrimRight(race.UseRace[:], "\x00"))
	if race.UnorderedUses == 0 || !strings.Contains(string(race.UseRace[:]), "kernel total in a graph on stream 2") {
		t.Errorf("graph_node.cu's kernel node: unordered_uses %d, want the node's race on stream 2", race.UnorderedUses)
	}
	launch := []byte("cudaGraphLaunch(e, b);")
	if bytes.Count(src, launch) != 1 {
		t.Fatalf("%s launches its graph other than once: the test moved", forger)
	}
	ordered := bytes.Replace(src, launch, []byte("cudaEvent_t ev; cudaEventCreate(&ev); cudaEventRecord(ev, a); cudaStreamWaitEvent(b, ev, 0);\n    for (int i = 0; i < 3; i++) cudaGraphLaunch(e, b);"), 1)
	ok := h.record(t, h.build(t, "ordered", forger, forger, ordered))
	if ok.UnorderedUses != 0 || ok.UsesAfterFree != 0 || ok.UnorderedFrees != 0 {
		t.Errorf("graph_node.cu ordered by an event: unordered_uses %d (%s), uses_after_free %d, unordered_frees %d, want none",
			ok.UnorderedUses, bytes.TrimRight(ok.UseRace[:], "\x00"), ok.UsesAfterFree, ok.UnorderedFrees)
	}
	if ok.BufferUses < race.BufferUses+4 {
		t.Errorf("three launches of the kernel node: buffer_uses %d, want at least %d (two pointers a launch)", ok.BufferUses, race.BufferUses+4)
	}
	const nodes = "kernels/testdata/stub/graph_nodes.cu"
	prog := h.build(t, "nodes", nodes, nodes, mustRead(t, filepath.Join("..", nodes)))
	for _, c := range []struct {
		arg                       string
		unordered, past, freedUse bool
	}{
		{"memset", true, false, false},
		{"ordered", false, false, false},
		{"copy", false, true, false},
		{"freed", false, false, true},
		{"setparams", true, false, false},
		{"update", true, false, false},
		{"updateback", false, false, false},
		{"waitnode", false, false, false},
		{"recordnode", false, false, false},
		{"child", false, false, false},
		{"clone", false, false, false},
		{"relaunch", false, false, false},
	} {
		s := h.record(t, prog, c.arg)
		t.Logf("%s: unordered_uses %d (%s), copies_past_end %d, uses_after_free %d (%s)", c.arg, s.UnorderedUses,
			bytes.TrimRight(s.UseRace[:], "\x00"), s.CopiesPastEnd, s.UsesAfterFree, bytes.TrimRight(s.AfterFreeUse[:], "\x00"))
		if (s.UnorderedUses > 0) != c.unordered || (s.CopiesPastEnd > 0) != c.past || (s.UsesAfterFree > 0) != c.freedUse {
			t.Errorf("%s: unordered_uses %d, copies_past_end %d, uses_after_free %d; want unordered %v, past the end %v, after free %v",
				c.arg, s.UnorderedUses, s.CopiesPastEnd, s.UsesAfterFree, c.unordered, c.past, c.freedUse)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// day074's graph-alloc on the stand-in runtime, which captures its
// graphs (kernel, allocation, free and memset nodes): its solution and
// its right answers show no race, use after free or copy past the end
// with a graph's nodes judged at each launch, captured ones included, as
// work of the launch's stream: each launch more adds the uses of the one
// kernel launched outside the graphs (sum: out is produce's allocation,
// totals the program's), of produce's kernel node (in; out is the
// graph's own) and of step's four kernel nodes (in twice, totals twice;
// the scratch buffers are the graph's own). A step graph launched on its
// branch stream s2 (review/blind7, ported as a wrong answer) is ordered
// after nothing s did before the loop, however the capture forked s2
// from s: its first launch's uses of in and totals race ones and the
// memset on s.
func TestHarnessesShowGraphAllocsGraphsWithoutFalseRaces(t *testing.T) {
	h := buildHarnessRig(t)
	const sol, right = "solutions/day074/graph_alloc.cu", "solutions/day074/right/graph-alloc"
	programs := map[string][]byte{"solution": mustRead(t, filepath.Join("..", sol))}
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		programs["right/"+r.Name()] = patched(t, sol, filepath.Join(right, r.Name()))
	}
	// review/blind7's correct design, written without the spec on the
	// harness as it is now (blind8's asks the graph for its root nodes,
	// which the stand-in runtime does not answer).
	programs["review/blind7"] = mustRead(t, filepath.Join("..", "review/blind7/graph-alloc/correct.cu"))
	// review/blind9's correct design frees every out on s before the
	// host's wait for the totals, and trims after the harness's busy
	// kernel is queued without waiting for it: the busy kernel holds no
	// memory, so the trim is not early (the H200 counted it before, and
	// printed reserved 0 MiB after it).
	programs["review/blind9"] = mustRead(t, filepath.Join("..", "review/blind9/graph-alloc/correct.cu"))
	for name, content := range programs {
		prog := h.build(t, strings.ReplaceAll(name, "/", "-"), sol, sol, content)
		one, out := h.recordEnv(t, prog, nil, "1", "1")
		three, _ := h.recordEnv(t, prog, nil, "3", "1")
		for _, s := range []*checker.Stats{one, three} {
			// A branch captured on s2 is the graph's, not work of s2's
			// the host must wait for: a trim after s is waited for is
			// not early (the H200 counted 1 while captures queued on s2).
			if s.TrimsUnwaited != 0 {
				t.Errorf("%s: trims_unwaited %d, want 0 (what a capture queues is no stream's work, and the busy kernel holds nothing a trim gives back)\n%s", name, s.TrimsUnwaited, out)
			}
			if s.UnorderedUses != 0 || s.UnorderedFrees != 0 || s.UsesAfterFree != 0 || s.CopiesPastEnd != 0 {
				t.Errorf("%s: unordered_uses %d (%s), unordered_frees %d (%s), uses_after_free %d (%s), copies_past_end %d, want none\n%s", name,
					s.UnorderedUses, bytes.TrimRight(s.UseRace[:], "\x00"), s.UnorderedFrees, bytes.TrimRight(s.FreeRace[:], "\x00"),
					s.UsesAfterFree, bytes.TrimRight(s.AfterFreeUse[:], "\x00"), s.CopiesPastEnd, out)
			}
		}
		// The spec bounds the host's waits of every kind (review/blind14
		// waits for an event recorded after the free of out, not for s;
		// review/blind17 for the device): at most two, whatever the number
		// of launches (blind9's design waits once: its trim needs no wait).
		for _, s := range []*checker.Stats{one, three} {
			if w, _ := s.Value("host_waits"); w > 2 || w != float64(s.EventSyncs+s.StreamSyncs+s.DeviceSyncs) {
				t.Errorf("%s: host_waits %v (stream_syncs %d, event_syncs %d, device_syncs %d), want at most 2: one for the totals, one before the trim\n%s", name, w, s.StreamSyncs, s.EventSyncs, s.DeviceSyncs, out)
			}
		}
		for _, s := range []*checker.Stats{one, three} {
			if s.GraphNodeParamsWritten != 0 {
				t.Errorf("%s: graph_node_params_written %d, want 0 (nothing writes what cudaGraphKernelNodeGetParams returned)\n%s", name, s.GraphNodeParamsWritten, out)
			}
		}
		t.Logf("%s: graph_launches %d and %d, buffer_uses %d and %d", name, one.GraphLaunches, three.GraphLaunches, one.BufferUses, three.BufferUses)
		if three.BufferUses-one.BufferUses != 2*7 {
			t.Errorf("%s: buffer_uses %d at 1 launch, %d at 3: want 7 more a launch (sum's two pointers, produce's node's in, step's four nodes' in and totals)", name, one.BufferUses, three.BufferUses)
		}
	}
	// The factor written into the node's own argument memory, as
	// cudaGraphKernelNodeGetParams returned it, and those parameters
	// passed to cudaGraphExecKernelNodeSetParams (review/blind5 and
	// blind23): the output is the solution's, and each launch whose k
	// differs from the value handed out (1, the captured factor) is a
	// write the library finds at the set-params call: 2 at 3 launches,
	// none at 1 (1 written over 1).
	solW := string(mustRead(t, filepath.Join("..", sol)))
	const setArgs = "        void* args[] = {&in, &out, (void*)&n, &k};\n        scale_params.kernelParams = args;\n"
	if !strings.Contains(solW, setArgs) {
		t.Fatalf("%s: TODO 3's argument array not found", sol)
	}
	inPlace := h.build(t, "factor-written-in-place", sol, sol, []byte(strings.Replace(solW, setArgs, "        *(int*)scale_params.kernelParams[3] = k;\n", 1)))
	for _, c := range []struct {
		launches string
		want     uint64
	}{{"1", 0}, {"3", 2}} {
		if s, out := h.recordEnv(t, inPlace, nil, c.launches, "1"); s.GraphNodeParamsWritten != c.want {
			t.Errorf("the factor written in place, %s launches: graph_node_params_written %d, want %d\n%s", c.launches, s.GraphNodeParamsWritten, c.want, out)
		}
	}
	// The trim the statistic was made for: TODO 4 queues the free of the
	// last out on s behind the busy kernel and waits for s2 instead of s,
	// so the free has not run when the trim comes.
	sol4 := string(mustRead(t, filepath.Join("..", sol)))
	const wait = "    CHECK(cudaFreeAsync(out, s));\n    CHECK(cudaGraphExecDestroy(step));\n    CHECK(cudaGraphExecDestroy(produce));\n    CHECK(cudaStreamSynchronize(s));\n"
	if !strings.Contains(sol4, wait) {
		t.Fatalf("%s: TODO 4's free, destroys and wait not found", sol)
	}
	early := h.build(t, "trim-waits-for-s2", sol, sol, []byte(strings.Replace(sol4, wait, strings.Replace(wait, "Synchronize(s)", "Synchronize(s2)", 1), 1)))
	if s, out := h.recordEnv(t, early, nil, "2", "1"); s.TrimsUnwaited != 1 {
		t.Errorf("TODO 4 waiting for s2 instead of s: trims_unwaited %d, want 1 (the free of out on s not yet run)\n%s", s.TrimsUnwaited, out)
	}
	// A graph launch not waited for holds its graph memory ("in use by a
	// graph that is either currently executing or scheduled to execute"):
	// blind9's design with one more launch of produce (an allocation node,
	// no free node) queued after the busy kernel, before its trim.
	b9 := string(mustRead(t, filepath.Join("..", "review/blind9/graph-alloc/correct.cu")))
	const destroy = "    CHECK(cudaGraphExecDestroy(step));\n"
	if !strings.Contains(b9, destroy) {
		t.Fatal("review/blind9/graph-alloc/correct.cu: TODO 4's destroy of step not found")
	}
	// A wait by event inside the loop (review/blind14's relaxation must
	// not let it through): the host waits at every launch, more than
	// twice at 3 launches, though cudaStreamSynchronize is called twice.
	const sum1 = "        sum<<<256, 256, 0, s>>>(out, n, totals + 1);\n"
	if !strings.Contains(sol4, sum1) {
		t.Fatalf("%s: TODO 3's sum not found", sol)
	}
	evloop := h.build(t, "event-wait-in-the-loop", sol, sol, []byte(strings.Replace(sol4, sum1, sum1+"        CHECK(cudaEventRecord(join, s));\n        CHECK(cudaEventSynchronize(join));\n", 1)))
	if s, out := h.recordEnv(t, evloop, nil, "3", "1"); s.StreamSyncs != 2 || s.EventSyncs != 3 {
		t.Errorf("an event waited for at every launch: stream_syncs %d, event_syncs %d, want 2 and 3 (host_waits 5, over the spec's 2)\n%s", s.StreamSyncs, s.EventSyncs, out)
	}
	launched := h.build(t, "trim-after-a-launch", sol, sol, []byte(strings.Replace(b9, destroy, "    CHECK(cudaGraphLaunch(produce, s));\n"+destroy, 1)))
	if s, out := h.recordEnv(t, launched, nil, "2", "1"); s.TrimsUnwaited != 1 {
		t.Errorf("a launch of produce queued before the trim: trims_unwaited %d, want 1 (the launch not yet run)\n%s", s.TrimsUnwaited, out)
	}
	// The last out freed on the idle s2 in TODO 4, then s waited for and
	// the trim (review/blind10's last-out-freed-on-the-branch-stream, and
	// the mutant other-stream@233/s2): the free on s2 is not waited for,
	// and the trim may come before it runs.
	s2free := h.build(t, "out-freed-on-s2", sol, sol, []byte(strings.Replace(sol4, wait, strings.Replace(wait, "cudaFreeAsync(out, s)", "cudaFreeAsync(out, s2)", 1), 1)))
	if s, out := h.recordEnv(t, s2free, nil, "2", "1"); s.TrimsUnwaited != 1 {
		t.Errorf("the last out freed on s2: trims_unwaited %d, want 1 (the free on s2 not waited for)\n%s", s.TrimsUnwaited, out)
	}
	for _, w := range []string{"blind7_step_launched_on_its_branch_stream.patch", "blind2_step_on_s2.patch"} {
		prog := h.build(t, w, sol, sol, patched(t, sol, filepath.Join("solutions/day074/wrong/graph-alloc", w)))
		s, out := h.recordEnv(t, prog, nil, "2", "1")
		race := string(bytes.TrimRight(s.UseRace[:], "\x00"))
		t.Logf("%s: unordered_uses %d (%s)", w, s.UnorderedUses, race)
		if s.UnorderedUses == 0 || !strings.Contains(race, "in a graph") {
			t.Errorf("%s: unordered_uses %d (%s), want a graph node's use that races s's work before the loop\n%s", w, s.UnorderedUses, race, out)
		}
	}
}

// graph-alloc with 1 MiB (review/blind27): the program takes any MIB from
// 1, and the stand-in refuses a launch with an empty grid, as the runtime
// does (invalid configuration, the thread's last error until read). The
// solution, its right alternatives and every blind set's correct design
// (whole, on the harness each was written on) reach the end of the run
// with 2 launches of 1 MiB wherever they reach it with 16 MiB; sums on
// scale's blocks / 2048, rounded down, get a grid of 0 at 1 MiB and stop
// at the check after the loop, and run to the end with 16 MiB.
func TestHarnessesShowGraphAllocsEmptyGridAtOneMiB(t *testing.T) {
	h := buildHarnessRig(t)
	const sol, right = "solutions/day074/graph_alloc.cu", "solutions/day074/right/graph-alloc"
	// Every correct design, review/blind's second graph-alloc folder's too.
	programs := correctDesigns(t, sol, right, "graph-alloc", "correct.cu")
	more, _ := filepath.Glob(filepath.Join("..", "review", "*", "graph-alloc-*", "correct.cu"))
	for _, f := range more {
		programs = append(programs, correctProgram{f, mustRead(t, f), true})
	}
	blinds := 0
	for _, p := range programs {
		if strings.HasPrefix(p.name, "../review/") {
			blinds++
		}
	}
	if blinds < 27 {
		t.Fatalf("%d blind correct designs of graph-alloc found, want 27 or more", blinds)
	}
	const end = "after the trim:"
	ends := func(prog string, args ...string) (bool, string) {
		_, out := h.recordRun(t, prog, nil, true, args...)
		return strings.Contains(out, end), out
	}
	for i, p := range programs {
		name := strings.TrimPrefix(p.name, "../")
		prog := h.build(t, fmt.Sprintf("onemib-%d", i), sol, sol, p.content)
		at16, out16 := ends(prog, "2", "16")
		at1, out1 := ends(prog, "2", "1")
		if !at16 {
			if !strings.HasPrefix(name, "review/") {
				t.Errorf("%s: with 16 MiB the run does not reach the end on the stand-in\n%s", name, out16)
			}
			t.Logf("%s: does not reach the end on the stand-in with 16 MiB either", name)
			continue
		}
		if !at1 {
			t.Errorf("%s: with 2 launches of 1 MiB the run stops before the end (it reaches it with 16 MiB)\n%s", name, out1)
		}
	}
	wrongSrc := patched(t, sol, "solutions/day074/wrong/graph-alloc/blind27_sum_grid_rounded_down.patch")
	prog := h.build(t, "onemib-grid-rounded-down", sol, sol, wrongSrc)
	if at16, out := ends(prog, "2", "16"); !at16 {
		t.Errorf("the sums' grid rounded down, 16 MiB: the run stops before the end, want it to reach it (a grid of 8)\n%s", out)
	}
	if at1, out := ends(prog, "2", "1"); at1 {
		t.Errorf("the sums' grid rounded down, 1 MiB: the run reaches the end, want it stopped (a grid of 0)\n%s", out)
	}
}

// The child's wait on the parent's event `filled` may take only an older
// record when the parent sent the block's export data before recording
// `filled` after the fill (review/blind's record-after-send, issue 36):
// ipc-pool's harness, with no delay and no GPU, shows stale_ipc_waits for
// it in every round, and none for the solution, its correct alternatives
// and every blind set's correct design. A record on another stream than
// the fill's (blind5's stream zero) covers no fill either.
func TestHarnessesShowWaitsThatCanTakeOnlyAnOlderRecord(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day073/ipc_pool.cu"
	type program struct {
		name    string
		content []byte
		want    uint64 // 0: none; else exactly
	}
	read := func(path string) []byte {
		if strings.HasSuffix(path, ".patch") {
			return patched(t, sol, path)
		}
		b, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ps := []program{{"solution", read(sol), 0}}
	right := "solutions/day073/right/ipc-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		ps = append(ps, program{"right/" + r.Name(), read(filepath.Join(right, r.Name())), 0})
	}
	// blind8's uses two pairs of events by turns (round r waits on pair
	// r % 2): the H200 counted its waits stale (4 of 5 rounds), each
	// judging the round before's import against a pair that never covered
	// it.
	for _, set := range []string{"blind", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8", "blind9"} {
		file := filepath.Join("review", set, "ipc-pool", "correct.cu")
		ps = append(ps, program{file, read(file), 0})
	}
	// Wrong for another reason: the child's host asks the event it
	// records itself (`freed`), after its import; not a wait on the fill.
	ps = append(ps, program{"wrong/blind_child_polls_event.patch", read("solutions/day073/wrong/ipc-pool/blind_child_polls_event.patch"), 0})
	// blind8's wrong ones share its two pairs: each is wrong for a reason
	// of its own (a drain for two rounds in flight, a free before its
	// wait, a wait on the wrong pair's freed, a pair never destroyed),
	// never for a stale wait.
	for _, w := range []string{"wrong-drain-assumes-two-rounds-in-flight", "wrong-drain-frees-before-its-wait", "wrong-freed-waited-on-the-previous-rounds-pair", "wrong-spare-event-pair-never-destroyed"} {
		file := filepath.Join("review", "blind8", "ipc-pool", w+".cu")
		ps = append(ps, program{file, read(file), 0})
	}
	ps = append(ps,
		program{"wrong/blind_record_after_send.patch", read("solutions/day073/wrong/ipc-pool/blind_record_after_send.patch"), 4},
		program{"review/blind/ipc-pool/wrong-record-after-send.cu", read("review/blind/ipc-pool/wrong-record-after-send.cu"), 4},
		program{"review/blind5/ipc-pool/wrong-filled-recorded-on-stream-zero.cu", read("review/blind5/ipc-pool/wrong-filled-recorded-on-stream-zero.cu"), 4},
		program{"review/blind9/ipc-pool/wrong-filled-recorded-after-the-block-is-sent.cu", read("review/blind9/ipc-pool/wrong-filled-recorded-after-the-block-is-sent.cu"), 4},
		// Round 25: the export data sent in two halves, so that no write
		// holds it whole (0 before: no send noted, no import judged).
		program{"wrong/attack25_block_sent_in_two_halves_before_filled_is_recorded.patch", read("solutions/day073/wrong/ipc-pool/attack25_block_sent_in_two_halves_before_filled_is_recorded.patch"), 4})
	for i, p := range ps {
		prog := h.build(t, "stale73-"+string(rune('a'+i)), sol, sol, p.content)
		got, out := h.recordAll(t, prog, nil, "4", "8")
		if got.Children == nil {
			t.Fatalf("%s: no record of the child\n%s", p.name, out)
		}
		n := got.Stats.StaleIPCWaits + got.Children.StaleIPCWaits
		t.Logf("%s: stale_ipc_waits %d", p.name, n)
		if n != p.want {
			t.Errorf("%s %s [4 8]: stale_ipc_waits %d, want %d\n%s", sol, p.name, n, p.want, out)
		}
	}
	// The record-late mutants (verify --mutants): the parent's record of
	// `filled` moved after its send shows in every round with no delay;
	// the child's record of `freed` moved after its answer is the parent's
	// early free in the run whose records are made 50 ms late.
	src, err := author.Parse(sol, read(sol))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, m := range author.Mutants(src, nil) {
		if m.Op != "record-late" {
			continue
		}
		found++
		prog := h.build(t, "stale73-"+strings.NewReplacer("@", "-", "/", "-").Replace(m.ID), sol, sol, m.Data)
		got, out := h.recordAll(t, prog, nil, "4", "8")
		late, _ := h.recordAll(t, prog, []string{"LESSONS_STATS_IPC_DELAY=50"}, "4", "8")
		stale := got.Stats.StaleIPCWaits + got.Children.StaleIPCWaits
		t.Logf("%s: stale_ipc_waits %d; records 50 ms late: export_frees_early %d", m.ID, stale, late.Stats.ExportFreesEarly)
		if stale == 0 && late.Stats.ExportFreesEarly == 0 {
			t.Errorf("%s survives: stale_ipc_waits 0, and export_frees_early 0 with the records made late\n%s\n%s", m.ID, m.Diff, out)
		}
	}
	if found != 2 {
		t.Errorf("%d record-late mutants of %s, want 2 (the parent's record of filled, the child's of freed)", found, sol)
	}
}

// An interprocess event's maker destroys it last (review/blind10, issue
// 36): all.ipc_events_destroyed_open counts a destroy while a handle of
// that very event is open in another process, or before one is opened
// at all (read at the maker's exit), and in ipc-pool's run whose records
// and closes of opened handles are made 50 ms late a child that closes
// its handles after its answer shows every time. The solution, its
// alternatives and blind10's correct design (a fresh pair of events a
// round) read 0 in both runs, as the socket orders each child's closes
// before the parent's destroys; blind10's two mistakes, as written and
// as ported, read 1 in the late run.
func TestHarnessesShowInterprocessEventsDestroyedFirst(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day073/ipc_pool.cu"
	read := func(path string) []byte {
		b, err := os.ReadFile(filepath.Join("..", path))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	ps := []program{{"solution", read(sol), false}, {"review/blind10/ipc-pool/correct.cu", read("review/blind10/ipc-pool/correct.cu"), false}}
	right := "solutions/day073/right/ipc-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		b := read(filepath.Join(right, r.Name()))
		if strings.HasSuffix(r.Name(), ".patch") {
			b = patched(t, sol, filepath.Join(right, r.Name()))
		}
		ps = append(ps, program{"right/" + r.Name(), b, false})
	}
	for _, w := range []string{"child_closes_its_event_handles_after_the_answer", "filled_destroyed_once_it_is_sent"} {
		path := "solutions/day073/wrong/ipc-pool/blind10_" + w + ".patch"
		ps = append(ps, program{path, patched(t, sol, path), true})
		file := "review/blind10/ipc-pool/wrong-" + strings.ReplaceAll(w, "_", "-") + ".cu"
		ps = append(ps, program{file, read(file), true})
	}
	// review/blind11: a second stream that frees (correct), and the
	// child's handles opened again every round, only the last pair closed.
	ps = append(ps, program{"review/blind11/ipc-pool/correct.cu", read("review/blind11/ipc-pool/correct.cu"), false})
	for _, path := range []string{"solutions/day073/wrong/ipc-pool/blind11_events_opened_again_every_round.patch"} {
		ps = append(ps, program{path, patched(t, sol, path), true})
	}
	ps = append(ps, program{"review/blind11/ipc-pool/wrong-events-opened-again-every-round.cu", read("review/blind11/ipc-pool/wrong-events-opened-again-every-round.cu"), true})
	destroyedOpen := func(got *checker.Received) float64 {
		all := checker.Stats{IPCMadeDestroyFirstNs: got.Stats.IPCMadeDestroyFirstNs}
		if got.Children != nil {
			all.IPCOpenedCloseLastNs = got.Children.IPCOpenedCloseLastNs
		}
		v, _ := all.Value("ipc_events_destroyed_open")
		return v
	}
	for i, p := range ps {
		prog := h.build(t, "events73-"+string(rune('a'+i)), sol, sol, p.content)
		late, out := h.recordAll(t, prog, []string{"LESSONS_STATS_IPC_DELAY=50"}, "2", "1")
		t.Logf("%s: ipc_events_destroyed_open %g with the closes made late", p.name, destroyedOpen(late))
		if got := destroyedOpen(late) == 1; got != p.wrong {
			t.Errorf("%s [2 1, records and closes 50 ms late]: ipc_events_destroyed_open %g, want 1: %v\n%s", p.name, destroyedOpen(late), p.wrong, out)
		}
		if p.wrong {
			continue
		}
		plain, out := h.recordAll(t, prog, nil, "2", "1")
		if v := destroyedOpen(plain); v != 0 {
			t.Errorf("%s [2 1]: ipc_events_destroyed_open %g, want 0\n%s", p.name, v, out)
		}
	}
}

// A parent may free a block its child imported on a second stream of its
// own, behind the child's event (review/blind11's ipc-pool correct
// design): the free is ordered after the parent's fill on its first
// stream through the child's stream, which waited on the parent's event
// recorded after the fill before it recorded its own. The record's model
// follows that order through the two processes' interprocess events and
// sees no unordered free in the solution, its correct alternatives and
// every blind set's correct design; without the child's wait on the
// fill's event, the free on the second stream is unordered.
func TestHarnessesOrderFreesThroughTheChildsEvents(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day073/ipc_pool.cu"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, false}}
	right := "solutions/day073/right/ipc-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		b, err := os.ReadFile(filepath.Join("..", right, r.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(r.Name(), ".patch") {
			b = patched(t, sol, filepath.Join(right, r.Name()))
		}
		ps = append(ps, program{"right/" + r.Name(), b, false})
	}
	blind := "review/blind11/ipc-pool/correct.cu"
	b, err := os.ReadFile(filepath.Join("..", blind))
	if err != nil {
		t.Fatal(err)
	}
	ps = append(ps, program{blind, b, false})
	wait := []byte("CHECK(cudaStreamWaitEvent(s, filled, 0));   // recorded before the data was sent")
	if bytes.Count(b, wait) != 1 {
		t.Fatalf("%s holds the child's wait on filled %d times, want once", blind, bytes.Count(b, wait))
	}
	ps = append(ps, program{blind + " without the child's wait on filled", bytes.Replace(b, wait, nil, 1), true})
	for i, p := range ps {
		prog := h.build(t, "back73-"+string(rune('a'+i)), sol, sol, p.content)
		got, out := h.recordAll(t, prog, nil, "4", "8")
		if got.Children == nil {
			t.Fatalf("%s: no record of the child", p.name)
		}
		s := got.Stats
		t.Logf("%s: unordered_frees %d (%s), free_other_stream %d", p.name, s.UnorderedFrees, s.RaceNote("unordered_frees"), s.FreeOtherStream)
		if got := s.UnorderedFrees > 0; got != p.wrong {
			t.Errorf("%s %s [4 8]: unordered_frees %d (%s), want some: %v\n%s", sol, p.name, s.UnorderedFrees, s.RaceNote("unordered_frees"), p.wrong, out)
		}
		if got.Children.UnorderedFrees != 0 {
			t.Errorf("%s %s [4 8]: the child's unordered_frees %d, want 0", sol, p.name, got.Children.UnorderedFrees)
		}
	}
}

// soProgram is a stream-ordered-pool design the harness tests build: a
// correct one, or a wrong one (a race, a leak expected).
type soProgram struct {
	name    string
	content []byte
	wrong   bool
}

const streamOrderedPoolSolution = "solutions/day088/stream_ordered_pool.h"

// streamOrderedPoolCorrect is every correct stream-ordered-pool design the
// course keeps: the solution, its right alternatives and every blind
// set's correct design.
func streamOrderedPoolCorrect(t *testing.T) []soProgram {
	t.Helper()
	sol := streamOrderedPoolSolution
	ps := []soProgram{{"solution", mustRead(t, filepath.Join("..", sol)), false}}
	right := "solutions/day088/right/stream-ordered-pool"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		ps = append(ps, soProgram{"right/" + r.Name(), patched(t, sol, filepath.Join(right, r.Name())), false})
	}
	sets, _ := filepath.Glob(filepath.Join("..", "review", "*", "stream-ordered-pool", "correct.h"))
	for _, file := range sets {
		ps = append(ps, soProgram{file, mustRead(t, file), false})
	}
	return ps
}

// A steal waits on the event whose last record was made where that very
// block was given back (review/blind11, issue 36): stream-ordered-pool's
// hidden run "9 rounds, 6 blocks" has more give-backs waiting at once than
// the harness has streams, so a pool that shares four events among them
// in turn (a ring) makes a steal wait on another stream's later record.
// The record's model sees the race there (with the default 8 blocks the
// waits it takes are ordered after the giver through other waits), and
// none in the solution, its correct alternatives and every blind set's
// correct design.
func TestHarnessesShowEventsSharedByWaitingGiveBacks(t *testing.T) {
	h := buildHarnessRig(t)
	sol := streamOrderedPoolSolution
	ps := streamOrderedPoolCorrect(t)
	ps = append(ps, soProgram{"wrong/blind11_events_a_ring_of_four_one_a_stream.patch", patched(t, sol, "solutions/day088/wrong/stream-ordered-pool/blind11_events_a_ring_of_four_one_a_stream.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "ring88-"+string(rune('a'+i)), "exercises/day088/bench.cu", sol, p.content)
		s := h.record(t, prog, "9", "6")
		t.Logf("%s: unordered_uses %d (%s)", p.name, s.UnorderedUses, s.RaceNote("unordered_uses"))
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [9 6]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
		if p.wrong {
			d := h.record(t, prog)
			t.Logf("%s [defaults]: unordered_uses %d", p.name, d.UnorderedUses)
		}
	}
}

// A record made only at the first give-back of a run of give-backs on
// one stream (review/blind23's one-record-for-a-run-of-give-backs): with
// bench.cu's --handoff a stream reads a block and gives it back, reads the
// next and gives it back, and a record holds only the work queued before
// it, so a thief of a later block of the run fills it while the giver may
// still read it. stream-ordered-pool's hidden run "blocks freed on the
// next stream, 3 blocks" (--handoff 9 3) shows the race; its run with 9
// blocks never did (no steal reaches such a block before the giver records
// again). The solution, every correct alternative and every blind set's
// correct design show none there, with one stream synchronize and no
// event synchronize, and print the run's line.
func TestHarnessesShowOneRecordForARunOfGiveBacks(t *testing.T) {
	h := buildHarnessRig(t)
	sol := streamOrderedPoolSolution
	ps := streamOrderedPoolCorrect(t)
	blind := filepath.Join("..", "review", "blind23", "stream-ordered-pool", "wrong-one-record-for-a-run-of-give-backs.h")
	b, err := os.ReadFile(blind)
	if err != nil {
		t.Fatal(err)
	}
	ps = append(ps, soProgram{blind, b, true})
	ps = append(ps, soProgram{"wrong/blind23_one_record_for_a_run_of_give_backs.patch", patched(t, sol, "solutions/day088/wrong/stream-ordered-pool/blind23_one_record_for_a_run_of_give_backs.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "runrec88-"+string(rune('a'+i)), "exercises/day088/bench.cu", sol, p.content)
		s, out := h.recordEnv(t, prog, nil, "--handoff", "9", "3")
		t.Logf("%s [--handoff 9 3]: unordered_uses %d (%s)", p.name, s.UnorderedUses, s.RaceNote("unordered_uses"))
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [--handoff 9 3]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
		if !strings.Contains(out, "9 rounds on 4 streams through the pool: 54 blocks used, errors: 0") || s.StreamSyncs > 1 || s.EventSyncs != 0 {
			t.Errorf("%s %s [--handoff 9 3]: %d stream synchronizes (at most 1), %d event synchronizes (want 0), output:\n%s", sol, p.name, s.StreamSyncs, s.EventSyncs, out)
		}
		if p.wrong {
			if d := h.record(t, prog, "--handoff", "12", "9"); d.UnorderedUses != 0 {
				t.Logf("%s [--handoff 12 9]: unordered_uses %d: the run with 9 blocks sees it too now", p.name, d.UnorderedUses)
			}
		}
	}
}

// A stream that adopts another stream's whole lane of blocks behind one
// wait, and records no fresh event of its own after it (review/blind24's
// adopted-blocks-given-on-without-a-fresh-record): the adopted blocks sit
// on its lane, and a third stream that adopts that lane in turn waits only
// on the adopter's event, whose last record predates the adopter's wait
// on the first giver. stream-ordered-pool's hidden run "blocks still
// handed out at the end, 6 blocks" (--keep 4 6) makes that chain: the last
// round gives nothing back, so no give-back records the adopter's event
// again between its adoption and the next one (stream 0 adopts stream 2's
// lane, stream 1 then adopts stream 0's and takes a block stream 2 read in
// the round before, one use unordered); with 8 blocks (--keep 4) and in
// every other run a give-back on the adopter comes first. RMM's
// merge_lists without a record (review/blind3, ported) races there too.
// The solution, every correct alternative and every blind set's correct
// design show none, print the run's line and make no host wait.
func TestHarnessesShowAdoptedLaneHandedOnWithoutARecord(t *testing.T) {
	h := buildHarnessRig(t)
	sol := streamOrderedPoolSolution
	ps := streamOrderedPoolCorrect(t)
	blind := filepath.Join("..", "review", "blind24", "stream-ordered-pool", "wrong-adopted-blocks-given-on-without-a-fresh-record.h")
	ps = append(ps, soProgram{blind, mustRead(t, blind), true})
	ps = append(ps, soProgram{"wrong/blind3_merge_lists_no_record.patch", patched(t, sol, "solutions/day088/wrong/stream-ordered-pool/blind3_merge_lists_no_record.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "adopt88-"+string(rune('a'+i)), "exercises/day088/bench.cu", sol, p.content)
		s, out := h.recordEnv(t, prog, nil, "--keep", "4", "6")
		t.Logf("%s [--keep 4 6]: unordered_uses %d (%s)", p.name, s.UnorderedUses, s.RaceNote("unordered_uses"))
		if got := s.UnorderedUses > 0; got != p.wrong {
			t.Errorf("%s %s [--keep 4 6]: unordered_uses %d (%s), want a race: %v", sol, p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), p.wrong)
		}
		if !strings.Contains(out, "4 rounds on 4 streams through the pool: 24 blocks used, errors: 0") || s.StreamSyncs > 1 || s.EventSyncs != 0 || s.HostPolls != 0 {
			t.Errorf("%s %s [--keep 4 6]: %d stream synchronizes (at most 1), %d event synchronizes (want 0), %d polls (want 0), output:\n%s", sol, p.name, s.StreamSyncs, s.EventSyncs, s.HostPolls, out)
		}
		if p.wrong {
			if d := h.record(t, prog, "--keep", "4"); d.UnorderedUses != 0 {
				t.Logf("%s [--keep 4]: unordered_uses %d: the run with 8 blocks sees it too now", p.name, d.UnorderedUses)
			}
		}
	}
}

// A pool that ends with blocks still handed out (bench.cu --keep, review/
// blind13, issue 36): the events a pool recycles through a spare list are
// all on the give-backs when every block used was given back, so a
// destructor that forgets the spare list leaks nothing in the harness's
// other runs; with the last round's six blocks kept out their events are
// spares. The solution, every correct alternative and every blind set's
// correct design destroy all they made there; blind13's port leaks.
// block-pool's harness had the same hole until review/blind15 (its
// harness now destroys the pool with blocks still handed out):
// TestHarnessesShowBlockPoolSpareEventsAndOneBlockAClass.
func TestHarnessesShowEventsLeftOnTheSpareList(t *testing.T) {
	h := buildHarnessRig(t)
	sol := streamOrderedPoolSolution
	ps := streamOrderedPoolCorrect(t)
	ps = append(ps, soProgram{"wrong/blind13_spare_events_never_destroyed.patch", patched(t, sol, "solutions/day088/wrong/stream-ordered-pool/blind13_spare_events_never_destroyed.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "keep88-"+string(rune('a'+i)), "exercises/day088/bench.cu", sol, p.content)
		kept := h.record(t, prog, "--keep", "4")
		t.Logf("%s: --keep 4: %d events made, %d never destroyed", p.name, kept.EventsCreated, kept.LeakedEvents)
		if kept.Exited != 1 || kept.KernelLaunches != 48 {
			t.Errorf("%s %s [--keep 4]: exited %d, %d launches (want 48)", sol, p.name, kept.Exited, kept.KernelLaunches)
		}
		if got := kept.LeakedEvents > 0; got != p.wrong {
			t.Errorf("%s %s [--keep 4]: leaked_events %d, want a leak: %v", sol, p.name, kept.LeakedEvents, p.wrong)
		}
		if p.wrong {
			if d := h.record(t, prog); d.LeakedEvents != 0 {
				t.Errorf("%s [defaults]: leaked_events %d: the public run sees the leak now, the hidden run's comment is out of date", p.name, d.LeakedEvents)
			}
		}
	}
}

// block-pool is built with -D_GLIBCXX_ASSERTIONS (its spec's flags,
// review/blind13, issue 36): libstdc++ then checks every index of a
// std::vector, so a table read one past its end aborts the run instead of
// reading whatever lies there (blind13's pool took the arena's end for a
// block and read its flag past the table: right by chance on the H200).
// The solution, its correct alternatives and every blind set's correct
// design run every run of the spec to the end with the checks on; the
// port aborts at the pointer just past the last block.
func TestHarnessesCheckBlockPoolTablesBounds(t *testing.T) {
	h := buildHarnessRig(t)
	sol := "solutions/day068/block_pool.cu"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	var ps []program
	for _, c := range blockPoolCorrect(t) {
		ps = append(ps, program{c.name, c.content, false})
	}
	ps = append(ps, program{"wrong/blind13_end_of_arena_compared_inclusively.patch", patched(t, sol, "solutions/day068/wrong/block-pool/blind13_end_of_arena_compared_inclusively.patch"), true})
	runs := [][]string{nil, {"5", "150", "256", "4097", "65536"}, {"12", "100", "64", "200"}, {"4", "96", "100", "256", "257", "1024", "5000", "8192"}, {"64", "256", "512", "4096"}, {"1", "60", "300", "5000"}}
	for i, p := range ps {
		prog := h.build(t, "bounds68-"+string(rune('a'+i)), sol, sol, p.content, "-D_GLIBCXX_ASSERTIONS")
		if !p.wrong {
			for _, args := range runs {
				h.record(t, prog, args...)
			}
			continue
		}
		// The library is not preloaded here: only the program's own end
		// is looked at.
		cmd := exec.Command(prog)
		cmd.Env = []string{"LD_LIBRARY_PATH=" + h.dir}
		// libstdc++'s failed check aborts (GCC 13 and later say which
		// first; GCC 12 says nothing), and the output still buffered for
		// the pipe is lost: the abort is all there is to see.
		out, err := cmd.CombinedOutput()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		aborted := ws.Signaled() && ws.Signal() == syscall.SIGABRT
		t.Logf("%s: %v, aborted: %v", p.name, err, aborted)
		if !aborted {
			t.Errorf("%s %s: %v, want an abort by libstdc++'s bounds check at the pointer just past the last block\n%s", sol, p.name, err, out)
		}
		// Built as before, without the checks, it reads past the table
		// and goes on.
		plain := h.build(t, "bounds68-plain", sol, sol, p.content)
		cmd = exec.Command(plain)
		cmd.Env = []string{"LD_LIBRARY_PATH=" + h.dir}
		out, _ = cmd.CombinedOutput()
		if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() || !strings.Contains(string(out), "pointer just past the last block refused") {
			t.Errorf("%s %s without -D_GLIBCXX_ASSERTIONS: %v, want it to go on past the pointer just past the last block\n%s", sol, p.name, cmd.ProcessState, out)
		}
	}
}

// A pool that joins neighbours freed on different streams and makes a
// taker wait for every stream of the joined block (review/blind14's
// pool-resource design, issue 36) races nothing, but waits for the other
// stream where the lesson's pool, joining only within a stream, needs no
// wait: the spec's count of cudaStreamWaitEvent (at most 4 in the
// default run) fails it for its waits, not for a race.
func TestHarnessesShowPoolJoinsAcrossStreamsWait(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day076/pool_resource.h"
	for i, p := range []struct {
		name    string
		content []byte
		many    bool
	}{
		{"solution", mustRead(t, filepath.Join("..", sol)), false},
		{"wrong/blind14_blocks_joined_across_streams_with_a_set_of_waits.patch", patched(t, sol, "solutions/day076/wrong/pool-resource/blind14_blocks_joined_across_streams_with_a_set_of_waits.patch"), true},
	} {
		prog := h.build(t, "joined76-"+string(rune('a'+i)), "exercises/day076/pool_resource.cu", sol, p.content)
		s, out := h.recordEnv(t, prog, nil)
		t.Logf("%s: stream_wait_events %d, unordered_uses %d", p.name, s.StreamWaitEvents, s.UnorderedUses)
		if s.UnorderedUses != 0 {
			t.Errorf("%s: unordered_uses %d (%s), want none\n%s", p.name, s.UnorderedUses, s.RaceNote("unordered_uses"), out)
		}
		if got := s.StreamWaitEvents > 4; got != p.many {
			t.Errorf("%s: stream_wait_events %d, want more than 4: %v\n%s", p.name, s.StreamWaitEvents, p.many, out)
		}
	}
}
