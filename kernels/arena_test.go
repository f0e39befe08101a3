package kernels_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// One arena or an allocation a pool (review/blind7, issue 36): stream-pools'
// harness on the stand-in runtime. kernel_alloc_bytes_max (record version
// 15) is the size of the largest allocation its kernels were given: the
// arena of four 512 KiB slices for the solution, its correct alternatives
// and blind7's design, whose pools' counters are four allocations of their
// own (seven allocations seen by the kernels: a count refused it), and
// one slice for the wrong answers that allocate the slices one by one.
func TestHarnessesShowTheArenasSize(t *testing.T) {
	h := buildHarnessRig(t)
	const sol, right, wrongDir = "solutions/day087/stream_pools.cu", "solutions/day087/right/stream-pools", "solutions/day087/wrong/stream-pools"
	const arena = 4 * 1024 * 512
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	ps := []program{{"solution", mustRead(t, filepath.Join("..", sol)), false}}
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		ps = append(ps, program{"right/" + r.Name(), patched(t, sol, filepath.Join(right, r.Name())), false})
	}
	ps = append(ps, program{"review/blind7 correct", mustRead(t, filepath.Join("..", "review/blind7/stream-pools/correct.cu")), false})
	for _, w := range []string{"malloc_per_pool.patch", "blind2_allocation_per_pool.patch"} {
		ps = append(ps, program{"wrong/" + w, patched(t, sol, filepath.Join(wrongDir, w)), true})
	}
	for i, p := range ps {
		prog := h.build(t, "arena87-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := recordAnyExit(t, h, prog, "1")
		t.Logf("%s: kernel_alloc_bytes_max %d, kernel_allocs_used %d", p.name, s.KernelAllocBytesMax, s.KernelAllocsUsed)
		if (s.KernelAllocBytesMax >= arena) == p.wrong {
			t.Errorf("%s: kernel_alloc_bytes_max %d: want it at least %d (one arena): %v\n%s", p.name, s.KernelAllocBytesMax, arena, !p.wrong, out)
		}
		if s.KernelAllocBytesMax == 0 {
			t.Errorf("%s: no allocation passed to a kernel was seen\n%s", p.name, out)
		}
	}
}

// recordAnyExit runs prog with args and the library preloaded, as
// harnessRig.record does, and returns its verified record whatever its
// exit status: on the stand-in runtime no kernel runs, so a harness that
// checks its results exits 1.
func recordAnyExit(t *testing.T, h harnessRig, prog string, args ...string) (*checker.Stats, string) {
	t.Helper()
	key := make([]byte, checker.KeySize)
	rand.Read(key)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = []string{"LD_LIBRARY_PATH=" + h.dir, "LD_PRELOAD=" + filepath.Join(h.dir, "lib.so"), "LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(key)}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s %v: %v\n%s", prog, args, err, out.Bytes())
		}
	}
	c := checker.NewChannel(key)
	c.Write(data)
	got, err := c.Close()
	if err != nil || got == nil || got.Stats == nil {
		t.Fatalf("%s %v: the record did not verify: %v\n%s", prog, args, err, out.Bytes())
	}
	return got.Stats, out.String()
}

// More rounds than a fixed array holds (review/blind7, issue 36):
// ipc-pool's hidden run "9 rounds of 20 MiB" (here of 1 MiB) leaves the
// ninth block of a parent that keeps its blocks in an array of 8 unfreed,
// and none of the solution's or of its correct alternatives'.
func TestHarnessesShowBlocksPastAFixedArray(t *testing.T) {
	h := buildHarnessRig(t)
	const sol, right = "solutions/day073/ipc_pool.cu", "solutions/day073/right/ipc-pool"
	type program struct {
		name    string
		content []byte
		wrong   bool
	}
	ps := []program{{"solution", mustRead(t, filepath.Join("..", sol)), false}}
	for _, r := range []string{"blind6_fresh_events_each_round.patch", "blind7_correct.patch"} {
		ps = append(ps, program{"right/" + r, patched(t, sol, filepath.Join(right, r)), false})
	}
	ps = append(ps, program{"wrong/blind7_blocks_kept_in_an_array_of_eight.patch", patched(t, sol, "solutions/day073/wrong/ipc-pool/blind7_blocks_kept_in_an_array_of_eight.patch"), true})
	for i, p := range ps {
		prog := h.build(t, "kept73-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := h.recordEnv(t, prog, nil, "9", "1")
		t.Logf("%s: leaked_allocs %d, free_async_calls %d", p.name, s.LeakedAllocs, s.FreeAsyncCalls)
		if got := s.LeakedAllocs > 0; got != p.wrong {
			t.Errorf("%s %s [9 1]: leaked_allocs %d, want some: %v\n%s", sol, p.name, s.LeakedAllocs, p.wrong, out)
		}
	}
}

// One round, fewer than any pipeline's steady state (review/blind8,
// issue 36): ipc-pool's hidden run "1 round of 1 MiB". The solution and
// every correct alternative run it to the end with nothing leaked; a
// drain that always starts at round r - 1 reaches round -1 there (an
// index before its arrays, an answer the child never sends) and fails.
func TestHarnessesRunOneRound(t *testing.T) {
	h := buildHarnessRig(t)
	const sol, right = "solutions/day073/ipc_pool.cu", "solutions/day073/right/ipc-pool"
	type program struct {
		name    string
		content []byte
	}
	ps := []program{{"solution", mustRead(t, filepath.Join("..", sol))}}
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		p := filepath.Join(right, r.Name())
		if filepath.Ext(p) == ".patch" {
			ps = append(ps, program{"right/" + r.Name(), patched(t, sol, p)})
		} else {
			ps = append(ps, program{"right/" + r.Name(), mustRead(t, filepath.Join("..", p))})
		}
	}
	for i, p := range ps {
		prog := h.build(t, "one73-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := h.recordEnv(t, prog, nil, "1", "1")
		if s.LeakedAllocs != 0 || !bytes.Contains([]byte(out), []byte("the child ended cleanly")) {
			t.Errorf("%s [1 1]: leaked_allocs %d, want 0, and the child ending cleanly\n%s", p.name, s.LeakedAllocs, out)
		}
	}
	const w = "solutions/day073/wrong/ipc-pool/blind8_drain_assumes_two_rounds_in_flight.patch"
	prog := h.build(t, "one73-wrong", sol, sol, patched(t, sol, w))
	for _, args := range [][]string{{"2", "1"}, {"1", "1"}} {
		cmd := exec.Command(prog, args...)
		cmd.Env = []string{"LD_LIBRARY_PATH=" + h.dir}
		out, err := cmd.CombinedOutput()
		t.Logf("%s %v: %v", w, args, err)
		if failed := err != nil; failed != (args[0] == "1") {
			t.Errorf("%s %v: failed %v, want %v\n%s", w, args, failed, args[0] == "1", out)
		}
	}
}
