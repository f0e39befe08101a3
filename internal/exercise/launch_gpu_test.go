package exercise

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cudalessons/lessons/gpu"
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
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	tk := realToolkit(t)
	tk.NVCC.Arch = info.Devices[0].Arch()
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
