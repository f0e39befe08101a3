package kernels_test

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/timeline"
)

var traceOut = flag.String("trace-out", "", "write the stand-in run's trace here (internal/timeline/testdata/recorded/stub-race.trace)")

// The statistics library itself, built with nvcc as lessons builds it,
// preloaded into a program that runs over a stand-in CUDA runtime
// (testdata/stub): with LESSONS_STATS_TRACE its trace comes over the
// signed channel and reads back as what the program did; without, none
// comes. Skips where there is no nvcc or C compiler (no GPU is needed).
func TestLibraryTracesARun(t *testing.T) {
	dir := buildStub(t, "prog.c").dir
	run := func(trace bool) *checker.Received { return runIn(t, dir, []string{filepath.Join(dir, "prog")}, trace) }
	if got := run(false); got.Trace != nil {
		t.Errorf("a run without LESSONS_STATS_TRACE sent %d bytes of trace", len(got.Trace))
	}
	got := run(true)
	tl, err := timeline.Parse(got.Trace)
	if err != nil {
		t.Fatal(err)
	}
	c := tl.Count()
	if c.Streams != 2 || c.Allocs != 4 || c.Frees != 3 || c.Leaks != 1 || c.Edges != 3 || c.HostWaits != 4 || c.Copies != 8 {
		t.Errorf("the trace counts %+v", c)
	}
	kinds := map[int]int{}
	for _, f := range tl.Findings {
		kinds[f.Kind]++
		if f.At < 0 || (f.With < 0 && f.Kind != timeline.FindLeak) {
			t.Errorf("finding %d is not tied to its events: %+v", f.Kind, f)
		}
	}
	if kinds[timeline.FindUse] != 1 || kinds[timeline.FindFree] != 1 || kinds[timeline.FindLeak] != 1 {
		t.Errorf("findings %v, want a use, a free and a leak", kinds)
	}
	// The stand-in's kernels were timed (its events' times grow with
	// their handles), each tied to its launch; its pool's figures were
	// asked for as they changed: 8 MiB reserved for the first buffer,
	// given back at each host wait down to what is still used.
	if c.Launches != 4 || len(tl.Ran) != 4 {
		t.Errorf("%d launches, %d of them timed on the GPU", c.Launches, len(tl.Ran))
	}
	for id, r := range tl.Ran {
		if tl.Events[id].Kind != timeline.KindLaunch || tl.Events[id].Stream != 1 || r.End <= r.Start {
			t.Errorf("a kernel's time %+v is tied to %+v", r, tl.Events[id])
		}
	}
	if r, u := tl.PoolPeak(); r != 8<<20 || u != 4<<20 {
		t.Errorf("the pool's peaks: %d reserved, %d used (want 8 MiB and 4 MiB)", r, u)
	}
	if n := len(tl.Pools); n < 4 || n > 20 {
		t.Errorf("%d pool samples: one per change, not one per call", n)
	}
	if *traceOut != "" {
		if err := os.WriteFile(*traceOut, got.Trace, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got.Stats.UnorderedUses != 1 || got.Stats.UnorderedFrees != 1 {
		t.Errorf("the record itself: %d unordered uses, %d unordered frees", got.Stats.UnorderedUses, got.Stats.UnorderedFrees)
	}

	// A lesson's cell (lessons run --timeline): the library is preloaded
	// into the cell's shell and all it starts; with LESSONS_STATS_CELL
	// only the CUDA program takes the channel and traces. Without it the
	// shell takes the channel first and the program sends nothing.
	script := []string{"/bin/sh", "-c", "/bin/echo built >/dev/null && ./prog && /bin/echo ran >/dev/null"}
	cell := runIn(t, dir, script, true, "LESSONS_STATS_CELL=1")
	ctl, err := timeline.Parse(cell.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if n := ctl.Count(); n.Allocs != 4 || n.Launches != 4 || cell.Children != nil {
		t.Errorf("the cell's program traced %+v, children %+v", n, cell.Children)
	}
	if shell, err := recordOf(t, dir, script, true); err == nil && (shell.Trace != nil || shell.Stats.MallocAsyncCalls != 0) {
		t.Errorf("without LESSONS_STATS_CELL the shell's record has %d trace bytes and %d allocations", len(shell.Trace), shell.Stats.MallocAsyncCalls)
	}
}

// runIn runs argv in dir with the library preloaded and its channel open,
// and returns the record; extra is added to the environment.
func runIn(t *testing.T, dir string, argv []string, trace bool, extra ...string) *checker.Received {
	t.Helper()
	got, err := recordOf(t, dir, argv, trace, extra...)
	if err != nil || got == nil || got.Stats == nil {
		t.Fatalf("the record did not verify: %v", err)
	}
	return got
}

func recordOf(t *testing.T, dir string, argv []string, trace bool, extra ...string) (*checker.Received, error) {
	t.Helper()
	key := make([]byte, checker.KeySize)
	rand.Read(key)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = []string{"LD_PRELOAD=" + filepath.Join(dir, "lib.so"), "LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(key)}
	if trace {
		cmd.Env = append(cmd.Env, "LESSONS_STATS_TRACE=1")
	}
	cmd.Env = append(cmd.Env, extra...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the program: %v", err)
	}
	c := checker.NewChannel(key)
	c.Write(data)
	return c.Close()
}
