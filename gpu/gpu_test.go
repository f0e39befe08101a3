package gpu

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbe needs a GPU: it skips where the driver cannot be loaded or sees
// no device, as on CI.
func TestProbe(t *testing.T) {
	info, err := Driver{}.Probe(true)
	if err != nil {
		if errors.Is(err, ErrNoDriver) || strings.Contains(err.Error(), "sees no GPU") {
			t.Skipf("needs a GPU: %v", err)
		}
		t.Fatal(err)
	}
	if info.Driver < 11000 || len(info.Devices) == 0 {
		t.Fatalf("info = %+v", info)
	}
	for _, d := range info.Devices {
		if d.Name == "" || d.Major < 5 || d.TotalBytes == 0 || d.FreeBytes == 0 || d.FreeBytes > d.TotalBytes {
			t.Errorf("device = %+v", d)
		}
	}
}

type countingProber struct{ n int }

func (c *countingProber) Probe(bool) (*Info, error) {
	c.n++
	return &Info{Driver: 13000, Devices: []Device{{Name: "H100", Major: 9}}}, nil
}

func TestCached(t *testing.T) {
	if driverKey() == "" {
		t.Skip("no /proc/driver/nvidia here: the cache is not used")
	}
	p := &countingProber{}
	c := Cached{Prober: p, File: filepath.Join(t.TempDir(), "gpu.json")}
	for i := 0; i < 3; i++ {
		info, err := c.Probe(false)
		if err != nil || info.Devices[0].Arch() != "sm_90" {
			t.Fatalf("probe %d: %+v %v", i, info, err)
		}
	}
	if p.n != 1 {
		t.Errorf("the driver was asked %d times, want 1", p.n)
	}
	if _, err := c.Probe(true); err != nil || p.n != 2 {
		t.Errorf("free memory must come from the driver: %d calls, %v", p.n, err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "compute-sanitizer")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", "/nonexistent")
	t.Setenv("CUDA_HOME", filepath.Dir(dir)+"/"+filepath.Base(dir)+"/..")
	if _, err := Find("compute-sanitizer", ""); err == nil {
		t.Error("found a tool that is not in CUDA_HOME/bin")
	}
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.Rename(tool, filepath.Join(dir, "bin", "compute-sanitizer"))
	t.Setenv("CUDA_HOME", dir)
	if p, err := Find("compute-sanitizer", ""); err != nil || p != filepath.Join(dir, "bin", "compute-sanitizer") {
		t.Errorf("Find = %q, %v", p, err)
	}
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	if _, err := Find("compute-sanitizer", filepath.Join(dir, "bin")); err != nil {
		// skipped on PATH, found again through CUDA_HOME
		t.Errorf("Find with skip: %v", err)
	}
}

// A link to this program named nvcc, first on the PATH, is passed over:
// it is lessons (its nvcc wrapper), and would call itself without end.
func TestFindPassesOverItself(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	wrap, real := t.TempDir(), t.TempDir()
	os.Symlink(self, filepath.Join(wrap, "nvcc"))
	os.WriteFile(filepath.Join(real, "nvcc"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", wrap+string(os.PathListSeparator)+real)
	t.Setenv("CUDA_HOME", "")
	if p, err := Find("nvcc", ""); err != nil || p != filepath.Join(real, "nvcc") {
		t.Errorf("Find = %q, %v; want the nvcc after the link to this program", p, err)
	}
}
