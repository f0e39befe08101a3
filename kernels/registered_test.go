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

// Kernels given page-locked host memory (review/blind13, issue 36):
// async-pipeline's scale reading its slice through cudaHostAllocMapped
// memory instead of a copy in. Each of its 12 (20) launches of scale is
// given the input's host address (its device pointer under unified
// addressing); the solution, every correct alternative and every blind
// set's correct design give their kernels device buffers only, whatever
// host memory they use for the copies (cudaMallocHost, cudaHostAlloc,
// cudaHostRegister).
func TestHarnessesShowKernelsGivenHostMemory(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day069/async_pipeline.cu"
	type program struct {
		name    string
		content []byte
		want    [2]uint64
	}
	src, err := os.ReadFile(filepath.Join("..", sol))
	if err != nil {
		t.Fatal(err)
	}
	ps := []program{{"solution", src, [2]uint64{}}}
	const right = "solutions/day069/right/async-pipeline"
	rights, err := os.ReadDir(filepath.Join("..", right))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rights {
		ps = append(ps, program{"right/" + r.Name(), patched(t, sol, filepath.Join(right, r.Name())), [2]uint64{}})
	}
	sets, _ := filepath.Glob(filepath.Join("..", "review", "*", "async-pipeline", "correct.cu"))
	for _, file := range sets {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, program{file, b, [2]uint64{}})
	}
	ps = append(ps, program{"wrong/blind13_input_read_through_mapped_host_memory", patched(t, sol, "solutions/day069/wrong/async-pipeline/blind13_input_read_through_mapped_host_memory.patch"), [2]uint64{12, 20}})
	for i, p := range ps {
		prog := h.build(t, "hostmem-"+string(rune('a'+i)), sol, sol, p.content)
		for j, args := range [][]string{nil, {"20", "3"}} {
			s := h.recordFailing(t, prog, args...)
			t.Logf("%s %v: kernel_host_launches %d of %d launches inspected", p.name, args, s.KernelHostLaunches, s.LaunchesInspected)
			if s.KernelHostLaunches != p.want[j] || s.LaunchesInspected == 0 {
				t.Errorf("%s %v: kernel_host_launches %d (%d launches inspected), want %d", p.name, args, s.KernelHostLaunches, s.LaunchesInspected, p.want[j])
			}
		}
	}
}
