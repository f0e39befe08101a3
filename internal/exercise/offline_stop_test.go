package exercise

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/machine"
)

// Ctrl-C during the build is no verdict on the file (check said "it does
// not build"), and an empty file is not "no TODO left".
func TestCheckOfflineStoppedAndEmpty(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"e"}, map[string]string{"exercises/e.cu": "\n  \n"})
	c, err := course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := c.Exercise("e")
	nvcc := filepath.Join(t.TempDir(), "nvcc")
	os.WriteFile(nvcc, []byte("#!/bin/sh\nexit 2\n"), 0o755)
	m := &machine.Machine{NVCC: &gpu.Tool{Path: nvcc, Version: "12.4.131"}, Cache: &buildcache.Cache{Dir: t.TempDir()}}
	miss := &machine.Missing{Machine: m, NoGPU: errors.New("LESSONS_GPU=none")}

	o, err := CheckOffline(context.Background(), c, x, c.Path(x.Student), &machine.Missing{NoGPU: miss.NoGPU, NoNVCC: errors.New("no nvcc")})
	if err != nil {
		t.Fatal(err)
	}
	if text := o.Text(); !strings.Contains(text, "✗ the file is empty") || strings.Contains(text, "no TODO left") {
		t.Errorf("an empty file:\n%s", text)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err = CheckOffline(ctx, c, x, c.Path(x.Student), miss)
	if err == nil || !strings.Contains(err.Error(), "stopped before the build ended") {
		t.Errorf("a stopped check = %v, %v; want it stopped, not built or failed", o, err)
	}
}
