package gpu

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeNVCC puts an nvcc on PATH that says release ver and notes each
// call in dir/calls.
func fakeNVCC(t *testing.T, dir, ver string) string {
	t.Helper()
	p := filepath.Join(dir, "nvcc")
	script := "#!/bin/sh\necho x >> " + filepath.Join(dir, "calls") + "\necho 'Cuda compilation tools, release " + ver[:4] + ", V" + ver + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func calls(dir string) int {
	data, _ := os.ReadFile(filepath.Join(dir, "calls"))
	return strings.Count(string(data), "x")
}

// nvcc's version is asked once and read from the file after, until nvcc
// is another file (upgraded in place: its times change); a file that
// cannot be written is no error, only asked again.
func TestNVCCCached(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	p := fakeNVCC(t, dir, "13.0.88")
	file := filepath.Join(t.TempDir(), "nvcc.json")
	for range 3 {
		tool, err := NVCCCached(context.Background(), "", file)
		if err != nil || tool.Version != "13.0.88" || tool.Path != p {
			t.Fatalf("%+v %v", tool, err)
		}
	}
	if n := calls(dir); n != 1 {
		t.Fatalf("nvcc --version ran %d times, want 1", n)
	}
	// Upgraded in place: the same path, another file.
	fakeNVCC(t, dir, "13.1.10")
	later := time.Now().Add(time.Minute)
	os.Chtimes(p, later, later)
	tool, err := NVCCCached(context.Background(), "", file)
	if err != nil || tool.Version != "13.1.10" || calls(dir) != 2 {
		t.Fatalf("after the upgrade: %+v %v, %d calls", tool, err, calls(dir))
	}
	// A saved answer for another nvcc is not taken.
	os.WriteFile(file, []byte(`{"Key":"x","Path":"/elsewhere/nvcc","Version":"9.9.9"}`), 0o644)
	if tool, _ := NVCCCached(context.Background(), "", file); tool.Version != "13.1.10" {
		t.Errorf("took another nvcc's version: %+v", tool)
	}
	unwritable := filepath.Join(p, "under-a-file", "nvcc.json")
	if tool, err := NVCCCached(context.Background(), "", unwritable); err != nil || tool.Version != "13.1.10" {
		t.Errorf("an unwritable file: %+v %v", tool, err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CUDA_HOME", t.TempDir())
	if _, statErr := os.Stat("/usr/local/cuda/bin/nvcc"); statErr != nil { // a machine with CUDA there finds that one
		if _, err := NVCCCached(context.Background(), "", file); err != ErrNoNVCC {
			t.Errorf("no nvcc: %v", err)
		}
	}
}
