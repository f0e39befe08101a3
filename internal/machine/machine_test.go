package machine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
)

func TestSanitizerPath(t *testing.T) {
	dir := t.TempDir()
	nvcc := filepath.Join(dir, "nvcc")
	cs := filepath.Join(dir, "compute-sanitizer")
	os.WriteFile(cs, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CUDA_HOME", "")
	t.Setenv("LESSONS_SANITIZER", "")
	if got := SanitizerPath(nvcc); got != cs {
		t.Errorf("beside nvcc: %q, want %q", got, cs)
	}
	t.Setenv("LESSONS_SANITIZER", "/opt/cs")
	if got := SanitizerPath(nvcc); got != "/opt/cs" {
		t.Errorf("LESSONS_SANITIZER: %q", got)
	}
	t.Setenv("LESSONS_SANITIZER", "none")
	if got := SanitizerPath(nvcc); got != "" {
		t.Errorf("LESSONS_SANITIZER=none: %q", got)
	}
}

func TestFakeGPU(t *testing.T) {
	t.Setenv("LESSONS_GPU", "Fake H100,9.0,1024")
	info, err := Prober().Probe(false)
	if err != nil || len(info.Devices) != 1 || info.Devices[0].Arch() != "sm_90" || info.Devices[0].TotalBytes != 1024 {
		t.Fatalf("LESSONS_GPU: %+v, %v", info, err)
	}
	t.Setenv("LESSONS_GPU", "none")
	if _, err := Prober().Probe(false); err == nil {
		t.Fatal("LESSONS_GPU=none gave a GPU")
	}
}

func TestDevices(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	if got := Devices(2); !slices.Equal(got, []string{"0", "1"}) {
		t.Errorf("2 GPUs: %q", got)
	}
	if got := Devices(0); !slices.Equal(got, []string{"0"}) {
		t.Errorf("no GPU counted: %q", got)
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "3,5")
	if got := Devices(1); !slices.Equal(got, []string{"3", "5"}) {
		t.Errorf("CUDA_VISIBLE_DEVICES=3,5: %q", got)
	}
}

func TestQueues(t *testing.T) {
	if QueuesEnv(0) != nil || !slices.Equal(QueuesEnv(2), []string{"CUDA_DEVICE_MAX_CONNECTIONS=2"}) {
		t.Errorf("QueuesEnv: %q %q", QueuesEnv(0), QueuesEnv(2))
	}
	var usage *failure.Usage
	if err := CheckQueues(33); !errors.As(err, &usage) {
		t.Errorf("33 queues: %v, want a usage error", err)
	}
	if err := CheckQueues(8); err != nil {
		t.Errorf("8 queues: %v", err)
	}
}

func TestNeedSaysWhatIsMissing(t *testing.T) {
	machinetest.Fake(t, "none")
	_, err := Need(t.Context(), "check")
	var tool *failure.Tool
	if !errors.As(err, &tool) {
		t.Fatalf("no GPU: %v, want a tool error", err)
	}
}
