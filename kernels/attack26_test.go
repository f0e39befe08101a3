package kernels_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// TestHarnessesMissASubmitWaitingOnAHostFunction is round 26's open lead
// on async-pipeline (review/attack26): submit() waits, before it queues an
// iteration, until a host function the stream's previous iteration queued
// last has run (the host spins on a counter it raises). No CUDA call
// waits, so the record counts no wait: waits_between_async_allocs 0, the
// host_waits of the solution. On the stand-in runtime the function runs
// as it is queued (the spin never spins); on a GPU the host waits in
// submit() for each stream's previous iteration. Every check of the
// public run and both hidden runs passes here, as for the solution: the
// finding, until the library counts such a wait. When it does, this test
// fails and is to be turned round.
func TestHarnessesMissASubmitWaitingOnAHostFunction(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day069/async_pipeline.cu"
	spec, err := checker.LoadSpec(filepath.Join("..", "exercises/day069/async_pipeline.toml"))
	if err != nil {
		t.Fatal(err)
	}
	secret, err := os.ReadFile(filepath.Join("..", "solutions/day069/async_pipeline.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s2, err := checker.ParseSecret("async_pipeline.toml", secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.AddSecret(s2); err != nil {
		t.Fatal(err)
	}
	wrong := mustRead(t, filepath.Join("..", "review/attack26/async_pipeline_submit_waits_on_a_host_function.cu"))
	// What each run fails, by program: on the stand-in the solution fails
	// what only a GPU shows (its values, the streams' overlap in time).
	failed := map[string]map[string][]string{}
	for i, p := range []struct {
		name    string
		content []byte
	}{{"solution", mustRead(t, filepath.Join("..", sol))}, {"attack26", wrong}} {
		prog := h.build(t, "hostfnwait69-"+string(rune('a'+i)), sol, sol, p.content)
		failed[p.name] = map[string][]string{}
		for _, run := range spec.Runs() {
			sp := spec.ForRun(run)
			r := runJudged(t, h, prog, sp.Args...)
			for _, res := range sp.Judge(r) {
				if !res.Pass {
					failed[p.name][run] = append(failed[p.name][run], res.Name)
				}
			}
			var w float64
			var between uint64
			if r.Stats != nil {
				w, _ = r.Stats.Value("host_waits")
				between = r.Stats.WaitsBetweenAsyncAllocs
			}
			t.Logf("%s, run %q: host_waits %v, waits_between_async_allocs %d, failed %v", p.name, run, w, between, failed[p.name][run])
			if p.name == "attack26" && !strings.Contains(r.Output, "iterations on") {
				t.Errorf("run %q: the wrong answer did not run its iterations\n%s", run, r.Output)
			}
		}
	}
	for _, run := range spec.Runs() {
		if got, sol := failed["attack26"][run], failed["solution"][run]; strings.Join(got, "\n") != strings.Join(sol, "\n") {
			t.Errorf("run %q: the wrong answer fails %v, the solution %v: the wait in submit() is seen (close the lead in review/attack26 and turn this test round)", run, got, sol)
		}
	}
}
