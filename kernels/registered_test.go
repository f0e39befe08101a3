package kernels_test

import (
	"os"
	"path/filepath"
	"testing"
)

// Host memory given back while page-locked (review/blind10, issue 36):
// async-pipeline's buffers calloc'd and pinned with cudaHostRegister,
// freed before their unregister. The input and output (48 MiB each by
// default, 80 MiB in the hidden run) are mappings of their own that free
// unmaps: two ranges; the sums (6 KiB, kept in the C library's heap) are
// not seen. The solution (cudaMallocHost), blind10's correct design and
// its port (unregistered before their free) give back none so.
func TestHarnessesShowMemoryFreedWhileRegistered(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day069/async_pipeline.cu"
	correct, err := os.ReadFile("../review/blind10/async-pipeline/correct.cu")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []struct {
		name    string
		content []byte
		want    uint64
	}{
		{"solution", nil, 0},
		{"review/blind10 correct", correct, 0},
		{"right/blind10_registered_then_unregistered", patched(t, sol, "solutions/day069/right/async-pipeline/blind10_registered_then_unregistered.patch"), 0},
		{"wrong/blind10_freed_before_unregistered", patched(t, sol, "solutions/day069/wrong/async-pipeline/blind10_freed_before_unregistered.patch"), 2},
	} {
		content := p.content
		if content == nil {
			if content, err = os.ReadFile(filepath.Join("..", sol)); err != nil {
				t.Fatal(err)
			}
		}
		prog := h.build(t, "pipeline-"+string(rune('a'+i)), sol, sol, content)
		for _, args := range [][]string{nil, {"20", "3"}} {
			if s := h.recordFailing(t, prog, args...); s.RegisteredUnmapped != p.want {
				t.Errorf("%s %v: registered_unmapped %d, want %d", p.name, args, s.RegisteredUnmapped, p.want)
			}
		}
	}
}
