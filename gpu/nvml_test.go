package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// needNVML skips where the driver's process list cannot be read (no GPU,
// as on CI).
func needNVML(t *testing.T) *NVML {
	t.Helper()
	m, err := OpenNVML()
	if err != nil {
		if errors.Is(err, ErrNoNVML) {
			t.Skipf("needs a GPU: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// buildHold compiles testdata/hold.cu, or skips where nvcc is missing.
func buildHold(t *testing.T) string {
	t.Helper()
	nvcc, err := NVCC(context.Background(), "")
	if err != nil {
		t.Skipf("needs nvcc: %v", err)
	}
	prog := filepath.Join(t.TempDir(), "hold")
	if out, err := exec.Command(nvcc.Path, "-arch=native", "-o", prog, "testdata/hold.cu").CombinedOutput(); err != nil {
		t.Fatalf("nvcc testdata/hold.cu: %v\n%s", err, out)
	}
	return prog
}

// TestSamplerSeesRealProgram needs a GPU: it runs a program that holds
// 64 MiB for half a second (and the same from a forked child) and checks
// that the sampler saw its pid with at least that much memory.
func TestSamplerSeesRealProgram(t *testing.T) {
	m := needNVML(t)
	prog := buildHold(t)
	s := NewSampler(m)
	for _, mode := range []string{"", "fork"} {
		cmd := exec.Command(prog, "64", "500", mode)
		cmd.SysProcAttr = newGroup()
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := s.Watch(cmd.Process.Pid)
		err := cmd.Wait()
		got := stop()
		t.Logf("%s: pid %d: %+v (max %.1f MiB)", cmdName(mode), cmd.Process.Pid, got, float64(got.MaxBytes)/(1<<20))
		if err != nil {
			t.Fatalf("%s: %v", prog, err)
		}
		if !got.Seen || got.MaxBytes < 64<<20 || !got.SamePids {
			t.Errorf("%s: the sampler did not see the program with its 64 MiB: %+v", cmdName(mode), got)
		}
		if mode == "" && (len(got.Pids) != 1 || got.Pids[0] != cmd.Process.Pid) {
			t.Errorf("pids %v, want [%d]", got.Pids, cmd.Process.Pid)
		}
	}
}

func cmdName(mode string) string {
	if mode == "fork" {
		return "forked child"
	}
	return "program"
}

// TestMeasureVisibility is a measurement, not a test: with
// LESSONS_NVML_MEASURE=N it runs the shortest honest program (16 MiB
// allocated, one kernel, freed, exit) N times while polling the driver's
// list every millisecond, and prints for how long the driver listed it
// and with how much memory. The cross-check's rule rests on these figures.
func TestMeasureVisibility(t *testing.T) {
	n := 0
	fmt.Sscan(os.Getenv("LESSONS_NVML_MEASURE"), &n)
	if n == 0 {
		t.Skip("set LESSONS_NVML_MEASURE=N to measure")
	}
	m := needNVML(t)
	prog := buildHold(t)
	var visible []time.Duration
	for i := 0; i < n; i++ {
		cmd := exec.Command(prog, "16", "0")
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var first, last time.Duration
		var polls, seen int
		var maxB, firstB uint64
	loop:
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				break loop
			default:
			}
			procs, err := m.Processes()
			polls++
			if err != nil {
				t.Fatal(err)
			}
			at := time.Since(start)
			for _, p := range procs {
				if p.Pid == cmd.Process.Pid {
					if seen == 0 {
						first, firstB = at, p.Bytes
					}
					seen++
					last = at
					maxB = max(maxB, p.Bytes)
				}
			}
			time.Sleep(time.Millisecond)
		}
		wall := time.Since(start)
		vis := last - first
		visible = append(visible, vis)
		fmt.Printf("measure: run %d: wall %v, %d polls, listed in %d: first at %v (%.1f MiB), last at %v, visible %v, max %.1f MiB\n",
			i, wall.Round(time.Millisecond), polls, seen, first.Round(time.Millisecond), float64(firstB)/(1<<20),
			last.Round(time.Millisecond), vis.Round(time.Millisecond), float64(maxB)/(1<<20))
	}
	sort.Slice(visible, func(i, j int) bool { return visible[i] < visible[j] })
	fmt.Printf("measure: visible min %v, median %v, max %v over %d runs\n", visible[0], visible[len(visible)/2], visible[len(visible)-1], n)
}
