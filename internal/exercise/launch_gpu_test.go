package exercise

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/suspect"
)

// TestGPULaunchEx: launch_ex.cu's race, its reader launched by
// cudaLaunchKernelEx, fails a check of unordered_uses as day070's
// cross_stream makes it: the launch is counted and its parameters
// inspected as a <<< >>> launch's are. Before, the library did not hook
// cudaLaunchKernelExC, and the race passed. It needs a GPU; it skips
// without one, as on CI (kernels' TestLibraryCountsEveryWayToLaunch is
// the same rule on the stand-in runtime).
func TestGPULaunchEx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := gpuToolkit(t)
	file := "testdata/gpuforgers/launch_ex.cu"
	src, _ := filepath.Abs(file)
	s := spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"unordered_uses\"\nequals = 0\n")
	j := &Job{ID: "launch-ex", Spec: s, Dir: t.TempDir(), Files: []File{{Name: filepath.Base(file), Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output %q", v.Output)
	for _, r := range v.Results {
		t.Logf("%s: pass %v, got %s", r.Name, r.Pass, r.Got)
	}
	for _, r := range v.Results {
		if !r.Pass && r.Check != nil && r.Check.Stat == "unordered_uses" {
			return
		}
	}
	t.Errorf("the race of a launch by cudaLaunchKernelEx passed unordered_uses: %+v", v.Results)
}

// TestGPUGraphNode: graph_node.cu's race, its reader a kernel node put in
// a graph by hand and launched on the other stream, fails a check of
// unordered_uses: the library learns a graph's kernel nodes' parameters
// when it is instantiated and judges them at each launch as a launch on
// that stream (kernels' TestHarnessesShowRacesInHandBuiltGraphs is the
// same rule on the stand-in runtime). Before, it judged only the graph's
// memory nodes, and the race passed. The source scan names hand-built
// nodes for review too.
func TestGPUGraphNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	file := "testdata/gpuforgers/graph_node.cu"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range suspect.Scan(data) {
		found = found || f.Kind.Name == "work the statistics library does not see"
	}
	if !found {
		t.Errorf("the source scan does not name graph_node.cu's kernel node for review")
	}
	tk := gpuToolkit(t)
	src, _ := filepath.Abs(file)
	s := spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"unordered_uses\"\nequals = 0\n")
	j := &Job{ID: "graph-node", Spec: s, Dir: t.TempDir(), Files: []File{{Name: filepath.Base(file), Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output %q", v.Output)
	caught := false
	for _, r := range v.Results {
		t.Logf("%s: pass %v, got %s", r.Name, r.Pass, r.Got)
		caught = caught || !r.Pass && r.Check != nil && r.Check.Stat == "unordered_uses"
	}
	if !caught {
		t.Errorf("the race of a graph's hand-built kernel node passed unordered_uses: %+v", v.Results)
	}
}

// TestGPUGraphNodesOrder: kernels/testdata/stub/graph_nodes.cu on the
// real runtime. A memset node racing the buffer's writer fails
// unordered_uses ("memset"), and so does one moved onto the buffer by
// cudaGraphExecUpdate ("update"), but not once moved back by
// cudaGraphExecMemsetNodeSetParams ("updateback"). One ordered by an
// event wait node in its graph ("waitnode"), a stream ordered after the
// graph by its event record node ("recordnode"), and a captured memset
// embedded as a child graph node ("child") or cloned ("clone"), and a
// graph launched again on another stream ("relaunch"), pass: the library
// reads the graph's event nodes, orders a launch after the graph's last,
// and carries the capture's marks to the copy node by node (kernels' TestHarnessesShowRacesInHandBuiltGraphs
// is the same rule on the stand-in runtime, whose copies keep their
// nodes' order as the real one is taken to).
func TestGPUGraphNodesOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := gpuToolkit(t)
	src, _ := filepath.Abs("../../kernels/testdata/stub/graph_nodes.cu")
	s := spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"unordered_uses\"\nequals = 0\n")
	for _, c := range []struct {
		what string
		race bool
	}{{"memset", true}, {"update", true}, {"updateback", false}, {"waitnode", false}, {"recordnode", false}, {"child", false}, {"clone", false}, {"relaunch", false}} {
		j := &Job{ID: "graph-nodes-" + c.what, Spec: s, Dir: t.TempDir(), Env: []string{"GRAPH_NODES=" + c.what}, Files: []File{{Name: "graph_nodes.cu", Path: src}}}
		v, err := Check(context.Background(), tk, Plain{}, j, nil)
		if err != nil {
			t.Fatal(err)
		}
		raced := false
		for _, r := range v.Results {
			t.Logf("%s: %s: pass %v, got %s", c.what, r.Name, r.Pass, r.Got)
			raced = raced || !r.Pass && r.Check != nil && r.Check.Stat == "unordered_uses"
		}
		if !strings.Contains(v.Output, c.what+" done") || raced != c.race {
			t.Errorf("%s: output %q, unordered_uses failed %v, want %v", c.what, v.Output, raced, c.race)
		}
	}
}

// TestGPUDriverV1: driver_v1.cu allocates through the driver's first
// cuMemAlloc, the 32-bit ABI's, found by dlsym: the library hooks only the
// _v2 names. It logs what the driver answered and how the run was judged;
// with the witness on (root) the run must fail: the witness probes both
// names. Where the driver refuses the old ABI, nothing is done unseen.
func TestGPUDriverV1(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := gpuToolkit(t)
	witness := false
	if w, why := OpenWitness(); w != nil {
		defer w.Close()
		tk.Witness = w
		witness = true
		defer setWitnessed("malloc_calls")()
	} else {
		t.Logf("no outside witness here: %s", why)
	}
	data, err := os.ReadFile("testdata/corpus/corpus.toml")
	if err != nil {
		t.Fatal(err)
	}
	file := "testdata/gpuforgers/driver_v1.cu"
	src, _ := filepath.Abs(file)
	s := spec(t, string(data))
	s.Flags = append(s.Flags, "-ldl")
	j := &Job{ID: "corpus", Spec: s, Dir: t.TempDir(), Hash: "driver-v1", Files: []File{{Name: filepath.Base(file), Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output %q", v.Output)
	for _, r := range v.Results {
		t.Logf("%s: pass %v, got %s", r.Name, r.Pass, r.Got)
	}
	done := strings.Contains(v.Output, "cuMemAlloc (v1): ") && !strings.Contains(v.Output, "cuMemAlloc (v1): 0 of 100")
	t.Logf("the driver allocated through the old ABI: %v; the run passed: %v", done, v.Passed())
	if done && v.Passed() && witness {
		t.Errorf("allocations through the driver's first cuMemAlloc passed the witness")
	}
}
