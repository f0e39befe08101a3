// Package machinetest fakes, for tests, what internal/machine finds: an
// nvcc that only says its version, alone on the PATH; the compile cache
// in a temporary folder; the GPU that $LESSONS_GPU names; no Jupyter
// kernel looked for.
package machinetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Version is the fake nvcc's release, as machine.Find reads it.
const Version = "12.4.131"

// Fake fakes the machine for the rest of t with gpu ("Fake H100,9.0,1024";
// "none" for no GPU), and returns the fake nvcc's path.
func Fake(t testing.TB, gpu string) string {
	t.Helper()
	bin := t.TempDir()
	nvcc := filepath.Join(bin, "nvcc")
	if err := os.WriteFile(nvcc, []byte("#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V"+Version+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("LESSONS_CACHE", t.TempDir())
	t.Setenv("LESSONS_GPU", gpu)
	t.Setenv("LESSONS_KERNEL", "none")
	return nvcc
}
