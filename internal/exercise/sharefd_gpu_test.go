package exercise

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cudalessons/lessons/gpu"
)

// TestGPUShareableDescriptors: with the real driver, where every export
// of a pool's handle names /dev/nvidiactl as the driver's own descriptors
// do, a descriptor closed by close_range, syscall(SYS_close) or dup2 is
// closed even when /dev/nvidiactl is open at its number again at exit,
// and a copy made by dup whose original was closed is the one left open.
// It needs a GPU; it skips without one, as on CI.
func TestGPUShareableDescriptors(t *testing.T) {
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	tk := realToolkit(t)
	tk.NVCC.Arch = info.Devices[0].Arch()
	src, _ := filepath.Abs("testdata/library/sharefd.cu")
	s := spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"shareable_fds_open\"\nequals = 1\n")
	j := &Job{ID: "sharefd", Spec: s, Dir: t.TempDir(), Files: []File{{Name: "sharefd.cu", Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output:\n%s", v.Output)
	if !v.Passed() {
		t.Fatalf("%+v", v.Results)
	}
}
