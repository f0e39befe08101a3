package kernels_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	r := runJudged(t, h, prog, args...)
	if r.Stats == nil {
		t.Fatalf("%s %v: the record did not verify: %s\n%s", prog, args, r.Untrusted, r.Output)
	}
	return r.Stats, r.Output
}

// More rounds than a fixed array holds (review/blind7 and blind25, issue
// 36): ipc-pool's hidden run "64 rounds of 20 MiB", the most rounds the
// program takes, judged by its checks on the stand-in runtime (those of
// the child's sums left out: its kernels never run here). A parent that
// keeps its blocks in an array of 8 and stops at its end leaves 56 blocks
// unfreed; one that keeps them in an array of 16 and does not stop writes
// 48 pointers past it on the stack. What that does is the compiler's: as
// this machine's gcc builds it (no stack guard), the exporter's own
// locals are overwritten and blocks leak (6 at -O0), and with the guard
// that Ubuntu's gcc (the GPU machine's) turns on by default the exporter
// aborts at its return, its record cut short; built both ways it fails.
// At 17 rounds neither way showed it (the one pointer too many lands in
// padding), at 18 to 48 only the guarded build: so the run takes 64. The
// solution, every right alternative and every blind set's correct design
// pass every other check of the run (the solution and blind25's correct
// design, whose array is a vector, built both ways too).
func TestHarnessesShowBlocksPastAFixedArray(t *testing.T) {
	h := buildHarnessRig(t)
	const sol, right, wrongDir = "solutions/day073/ipc_pool.cu", "solutions/day073/right/ipc-pool", "solutions/day073/wrong/ipc-pool"
	const run = "64 rounds of 20 MiB"
	spec, err := checker.LoadSpec(filepath.Join("..", "solutions/day073/ipc_pool.toml"))
	if err != nil {
		t.Fatal(err)
	}
	hidden := spec.ForRun(run)
	if hidden == nil {
		t.Fatalf("solutions/day073/ipc_pool.toml has no hidden run %q", run)
	}
	type program struct {
		name    string
		content []byte
		wrong   bool
		guarded bool // built with the stack guard too
	}
	ps := []program{{"solution", mustRead(t, filepath.Join("..", sol)), false, true}}
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		p := filepath.Join(right, r.Name())
		if filepath.Ext(p) == ".patch" {
			ps = append(ps, program{"right/" + r.Name(), patched(t, sol, p), false, false})
		} else {
			ps = append(ps, program{"right/" + r.Name(), mustRead(t, filepath.Join("..", p)), false, false})
		}
	}
	blinds, err := filepath.Glob(filepath.Join("..", "review", "blind*", "ipc-pool", "correct.cu"))
	if err != nil || len(blinds) == 0 {
		t.Fatalf("no blind set's ipc-pool correct design: %v", err)
	}
	for _, b := range blinds {
		name, _ := filepath.Rel("..", b)
		ps = append(ps, program{filepath.ToSlash(name), mustRead(t, b), false, filepath.ToSlash(name) == "review/blind25/ipc-pool/correct.cu"})
	}
	ps = append(ps,
		program{"wrong/blind7_blocks_kept_in_an_array_of_eight.patch", patched(t, sol, filepath.Join(wrongDir, "blind7_blocks_kept_in_an_array_of_eight.patch")), true, true},
		program{"wrong/blind25_kept_blocks_held_in_an_array_of_16.patch", patched(t, sol, filepath.Join(wrongDir, "blind25_kept_blocks_held_in_an_array_of_16.patch")), true, true})
	builds := []struct {
		name  string
		flags []string
	}{{"as built here", nil}, {"stack guarded", []string{"-Xcompiler", "-fstack-protector-strong"}}}
	for i, p := range ps {
		for j, b := range builds {
			if b.flags != nil && !p.guarded {
				continue
			}
			prog := h.build(t, "kept73-"+string(rune('a'+i))+string(rune('a'+j)), sol, sol, p.content, b.flags...)
			r := runJudged(t, h, prog, hidden.Args...)
			var failed []string
			said := false // a failure that says its round count, as the wrong answers' expect lines read
			for _, res := range hidden.Judge(r) {
				if res.Check != nil && res.Check.Regex != "" {
					continue // the child's sums: its kernels never run here
				}
				if !res.Pass {
					failed = append(failed, res.Name+" (got "+res.Got+")")
					said = said || strings.Contains(res.Want, "with 64 rounds")
				}
			}
			t.Logf("%s, %s: %d checks of %q failed %v", p.name, b.name, len(failed), run, failed)
			if (len(failed) > 0) != p.wrong || p.wrong && !said {
				t.Errorf("%s, %s [%v]: failed %v, want some failed (one saying \"with 64 rounds\"): %v\n%s", p.name, b.name, hidden.Args, failed, p.wrong, r.Output)
			}
		}
	}
}

// runJudged runs prog with args and the library preloaded, as a grade
// does, and returns the run as the checks read it: a record cut short
// (an abort, a crash) is untrusted, not a test's failure.
func runJudged(t *testing.T, h harnessRig, prog string, args ...string) *checker.Run {
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
	run := &checker.Run{Output: out.String(), ExitCode: cmd.ProcessState.ExitCode()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		run.Ended = "killed by signal " + ws.Signal().String()
	}
	c := checker.NewChannel(key)
	c.Write(data)
	got, err := c.Close()
	switch {
	case err != nil:
		run.Untrusted = err.Error()
	case got == nil || got.Stats == nil:
		run.Untrusted = "no record"
	default:
		run.Stats, run.Children = got.Stats, got.Children
	}
	return run
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
