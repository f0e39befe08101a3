package exercise

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestGPUPendingQueriesCannotBeTold: tellpending.cu asks, on a real GPU,
// what CUDA answers "ready" however late (round 21: a stream given a
// destroyed stream's handle, the per-thread default stream of a thread
// with no work of its own there, an interprocess event its maker waited
// for or never recorded, a record CUDA refused), in the public run and
// in a hidden run with pending_queries: it must print "told 0" in both
// (kernels' TestLibraryPendingQueriesCannotBeTold is the same on the
// stand-in runtime). It logs which premises the driver gave. It needs a
// GPU; it skips without one.
func TestGPUPendingQueriesCannotBeTold(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := gpuToolkit(t)
	src, _ := filepath.Abs("testdata/gpuforgers/tellpending.cu")
	s := spec(t, "[[check]]\nexit = 0\n[[hidden_run]]\nname = \"lags\"\npending_queries = true\n[[check]]\nrun = \"lags\"\nexit = 0\n")
	for _, run := range []string{"", "lags"} {
		j := &Job{ID: "tellpending", Spec: s.ForRun(run), Dir: t.TempDir(), Files: []File{{Name: "tellpending.cu", Path: src}}}
		v, err := Check(context.Background(), tk, Plain{}, j, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("run %q: output %q", run, v.Output)
		if !strings.Contains(v.Output, "told 0\n") {
			t.Errorf("run %q: the program printed %q, want \"told 0\": it told the run by a query CUDA answers ready", run, v.Output)
		}
	}
}
