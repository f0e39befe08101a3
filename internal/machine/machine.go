// Package machine is what this machine has for building and running CUDA
// programs: its GPUs (through the gpu package's driver, or a fake one that
// $LESSONS_GPU names), nvcc, compute-sanitizer and the compile cache.
// Every command that builds or runs finds them here, and the same
// function runs on a Slurm node.
package machine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/failure"
)

// Machine is what a command finds of the GPU, nvcc and the cache.
type Machine struct {
	NVCC   *gpu.Tool
	Info   *gpu.Info
	GPUErr error // why there is no GPU to run on; Info is nil or empty then
	Cache  *buildcache.Cache

	// Queues, when above 0, is the hardware work queues each program
	// gets (CUDA_DEVICE_MAX_CONNECTIONS).
	Queues int
}

// Find finds the compile cache, the GPU and nvcc (skipping wrapperDir, a
// workspace's nvcc wrapper, on the PATH). Without nvcc it returns the
// machine found so far with nvcc's error; without a GPU, GPUErr says why.
func Find(ctx context.Context, wrapperDir string) (*Machine, error) {
	m := &Machine{}
	var err error
	if m.Cache, err = buildcache.Default(); err != nil {
		return nil, &failure.Tool{Err: err}
	}
	p := Prober()
	if _, real := p.(gpu.Driver); real {
		p = gpu.Cached{Prober: p, File: filepath.Join(m.Cache.Dir, "gpu.json")}
	}
	m.Info, m.GPUErr = p.Probe(false)
	if m.GPUErr == nil && len(m.Info.Devices) == 0 {
		m.GPUErr = errors.New("the driver lists no GPU")
	}
	m.NVCC, err = gpu.NVCCCached(ctx, wrapperDir, filepath.Join(m.Cache.Dir, "nvcc.json"))
	if err != nil {
		return m, err
	}
	return m, nil
}

// Need finds nvcc and a GPU for the command named cmd (check, watch,
// grade), which its errors name: a *failure.Tool when either is missing.
// The *failure.Tool wraps a *Missing, which says what was found.
func Need(ctx context.Context, cmd string) (*Machine, error) {
	m, err := Find(ctx, "")
	if err != nil {
		miss := &Missing{Machine: m, NoNVCC: err, msg: fmt.Sprintf("lessons %s needs nvcc to build the exercise: %v", cmd, err)}
		if m != nil {
			miss.NoGPU = m.GPUErr
		}
		return nil, &failure.Tool{Err: miss}
	}
	if m.GPUErr != nil {
		return nil, &failure.Tool{Err: &Missing{Machine: m, NoGPU: m.GPUErr,
			msg: fmt.Sprintf("lessons %s runs the exercise, which needs a GPU: %v", cmd, m.GPUErr)}}
	}
	return m, nil
}

// Missing is what Need did not find: nvcc (NoNVCC) or a GPU (NoGPU),
// with the machine found so far (nil when not even the cache was), so a
// command can still do what needs less.
type Missing struct {
	Machine       *Machine
	NoNVCC, NoGPU error
	msg           string
}

func (e *Missing) Error() string { return e.msg }

// Missing says what m lacks to run a program: its GPU, or nil.
func (m *Machine) Missing() *Missing {
	if m.GPUErr == nil {
		return nil
	}
	return &Missing{Machine: m, NoGPU: m.GPUErr, msg: fmt.Sprintf("running needs a GPU: %v", m.GPUErr)}
}

func (e *Missing) Unwrap() error {
	if e.NoNVCC != nil {
		return e.NoNVCC
	}
	return e.NoGPU
}

// Arch is the architecture of the first GPU, or "" without one.
func (m *Machine) Arch() string {
	if m.GPUErr != nil || m.Info == nil || len(m.Info.Devices) == 0 {
		return ""
	}
	return m.Info.Devices[0].Arch()
}

// Compiler is nvcc as the cache builds with it, for the GPU found.
func (m *Machine) Compiler() buildcache.Compiler {
	return buildcache.Compiler{Path: m.NVCC.Path, Version: m.NVCC.Version, Arch: m.Arch()}
}

// RunEnv is what the machine adds to the environment of a program run.
func (m *Machine) RunEnv() []string { return QueuesEnv(m.Queues) }

// QueuesEnv is the environment that gives a program n hardware queues
// (none for 0: CUDA's default).
func QueuesEnv(n int) []string {
	if n > 0 {
		return []string{fmt.Sprintf("CUDA_DEVICE_MAX_CONNECTIONS=%d", n)}
	}
	return nil
}

// CheckQueues says what is wrong with n hardware queues (--gpu-queues).
func CheckQueues(n int) error {
	if n < 0 || n > 32 {
		return failure.Usagef("--gpu-queues is 1 to 32 (or 0 for CUDA's default), not %d", n)
	}
	return nil
}

// Devices names the GPUs for CUDA_VISIBLE_DEVICES: those already
// visible when it is set, else 0..n-1.
func Devices(n int) []string {
	if v := os.Getenv("CUDA_VISIBLE_DEVICES"); v != "" {
		return strings.Split(v, ",")
	}
	out := make([]string, max(n, 1))
	for i := range out {
		out[i] = fmt.Sprint(i)
	}
	return out
}

// Prober is the GPU seam: the driver, or $LESSONS_GPU: "none" for a
// machine without one, "demo" for lessons grade demo's stand-in GPU, or
// "NAME,MAJOR.MINOR,BYTES" for tests.
func Prober() gpu.Prober {
	if v, ok := os.LookupEnv("LESSONS_GPU"); ok {
		return fakeGPU(v)
	}
	return gpu.Driver{}
}

// fakeGPU is "none", or "NAME,MAJOR.MINOR,TOTAL_BYTES".
type fakeGPU string

func (f fakeGPU) Probe(bool) (*gpu.Info, error) {
	if f == "none" || f == "" {
		return nil, errors.New("LESSONS_GPU=none")
	}
	if f == "demo" { // lessons grade demo: its programs are stand-ins
		return &gpu.Info{Driver: 13000, Devices: []gpu.Device{{Name: "Demo GPU (lessons grade demo: no CUDA runs)", Major: 9, TotalBytes: 80 << 30, FreeBytes: 80 << 30}}}, nil
	}
	parts := strings.Split(string(f), ",")
	d := gpu.Device{Name: parts[0], Major: 9}
	if len(parts) > 1 {
		fmt.Sscanf(parts[1], "%d.%d", &d.Major, &d.Minor)
	}
	if len(parts) > 2 {
		d.TotalBytes, _ = strconv.ParseUint(parts[2], 10, 64)
		d.FreeBytes = d.TotalBytes
	}
	return &gpu.Info{Driver: 13000, Devices: []gpu.Device{d}}, nil
}

// SanitizerPath is $LESSONS_SANITIZER ("none" or "off" for none), else
// compute-sanitizer beside nvcc, else on the PATH, else in the toolkit's
// usual folders; "" when there is none.
func SanitizerPath(nvcc string) string {
	switch p := os.Getenv("LESSONS_SANITIZER"); p {
	case "none", "off":
		return ""
	case "":
	default:
		return p
	}
	if nvcc != "" {
		if p := filepath.Join(filepath.Dir(nvcc), "compute-sanitizer"); isFile(p) {
			return p
		}
	}
	if p, err := exec.LookPath("compute-sanitizer"); err == nil {
		return p
	}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		if p := filepath.Join(dir, "bin", "compute-sanitizer"); dir != "" && isFile(p) {
			return p
		}
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
