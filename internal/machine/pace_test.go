package machine

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCountStarts: every device gets its workers, the count is of starts
// finished, and the first failure stops the count with its error.
func TestCountStarts(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	start := func(_ context.Context, dev string) error {
		mu.Lock()
		seen[dev]++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return nil
	}
	rate, err := countStarts(context.Background(), start, []string{"0", "1", "2"}, 2, 30*time.Millisecond)
	if err != nil || rate <= 0 {
		t.Fatalf("countStarts: %v, %v", rate, err)
	}
	for _, d := range []string{"0", "1", "2"} {
		if seen[d] == 0 {
			t.Errorf("GPU %s started nothing: %v", d, seen)
		}
	}
	boom := errors.New("a small CUDA program on GPU 1: exit status 1")
	_, err = countStarts(context.Background(), func(_ context.Context, dev string) error {
		if dev == "1" {
			return boom
		}
		return nil
	}, []string{"0", "1"}, 4, time.Hour)
	if !errors.Is(err, boom) {
		t.Errorf("a failing start: %v", err)
	}
}

// TestPaceReport: what sets the pace is read from the figures: CUDA
// starts that do not grow with GPUs are the machine's lock, builds that
// are slower than starts set the pace themselves, a slow disk is named.
func TestPaceReport(t *testing.T) {
	lock := (&Pace{Build: 1500 * time.Millisecond, Cores: 64, Alone: 3.2, OneGPU: 5.1, AllGPUs: 4.8, At: 16, GPUs: 4, Disk: 900}).Report()
	for _, want := range []string{"about 42.7 builds a second", "4.8 with 16 at once on each of 4 GPUs", "about 1.7 files a second, set by CUDA starts", "more GPUs here do not grade faster", "grade --slurm"} {
		if !strings.Contains(lock, want) {
			t.Errorf("the machine's lock: %q lacks %q", lock, want)
		}
	}
	scales := (&Pace{Build: time.Second, Cores: 64, Alone: 3, OneGPU: 5, AllGPUs: 19, At: 16, GPUs: 4}).Report()
	if strings.Contains(scales, "do not grade faster") || !strings.Contains(scales, "about 6.3 files a second, set by CUDA starts") {
		t.Errorf("starts that scale: %q", scales)
	}
	builds := (&Pace{Build: 2 * time.Second, Cores: 2, Alone: 3, OneGPU: 10, AllGPUs: 10, At: 1, GPUs: 1, Disk: 20}).Report()
	for _, want := range []string{"about 1.0 files a second, set by builds", "LESSONS_CACHE"} {
		if !strings.Contains(builds, want) {
			t.Errorf("a laptop's pace: %q lacks %q", builds, want)
		}
	}
	if strings.Contains(builds, "each of") {
		t.Errorf("one GPU has no all-GPU figure: %q", builds)
	}
}

// TestDoctorPaceNeedsARealGPU: --pace starts real CUDA programs, so a
// faked GPU (or none) is refused with what to do.
func TestDoctorPaceNeedsARealGPU(t *testing.T) {
	for _, v := range []string{"Test GPU,9.0,85899345920", "none"} {
		t.Setenv("LESSONS_GPU", v)
		err := DoctorPace(io.Discard, 100, 4)
		if err == nil || !strings.Contains(err.Error(), "fakes the GPU here") {
			t.Errorf("LESSONS_GPU=%s: %v", v, err)
		}
	}
}
