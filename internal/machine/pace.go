package machine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/ui"
)

// Pace is how fast this machine can grade, measured: what a grade spends
// its time on is builds (nvcc, one a core) and CUDA starts (every program
// run creates a CUDA context, and the driver serves part of each start
// one at a time). lessons doctor --pace.
type Pace struct {
	// Build is one nvcc build of a small CUDA program; Cores the cores
	// that builds share.
	Build time.Duration
	Cores int
	// Starts a second of a small CUDA program (a context, an allocation,
	// a kernel): Alone one at a time on one GPU, OneGPU At at once on one
	// GPU, AllGPUs At at once on each of the GPUs.
	Alone, OneGPU, AllGPUs float64
	At, GPUs               int
	// Disk is MiB a second written and synced in the compile cache's
	// folder (0 when it could not be measured).
	Disk float64
}

// startsPerGrade is about how many CUDA programs the grade of one file
// starts: its run and its hidden runs (the course's exercises have one
// to four; a sanitizer run is one more).
const startsPerGrade = 3

// Report is lessons doctor --pace's lines: each figure, then what sets
// the pace of a grade here and what would raise it.
func (p *Pace) Report() string {
	var b strings.Builder
	builds := float64(p.Cores) / p.Build.Seconds()
	fmt.Fprintf(&b, "builds\t%.1f s of nvcc each, %d cores: about %.1f builds a second\n", p.Build.Seconds(), p.Cores, builds)
	fmt.Fprintf(&b, "CUDA starts\t%.1f a second one at a time; %.1f with %d at once on one GPU", p.Alone, p.OneGPU, p.At)
	if p.GPUs > 1 {
		fmt.Fprintf(&b, "; %.1f with %d at once on each of %d GPUs", p.AllGPUs, p.At, p.GPUs)
	}
	b.WriteString("\n")
	if p.Disk > 0 {
		fmt.Fprintf(&b, "disk\t%.0f MiB a second written and synced in the compile cache's folder\n", p.Disk)
	}
	starts := max(p.OneGPU, p.AllGPUs)
	grades := starts / startsPerGrade
	limit := fmt.Sprintf("CUDA starts (about %d programs a grade)", startsPerGrade)
	if builds < grades {
		grades, limit = builds, "builds (one a file handed in; unchanged files are not built again)"
	}
	fmt.Fprintf(&b, "measured pace\tabout %.1f files a second, set by %s\n", grades, limit)
	if p.GPUs > 1 && p.AllGPUs < 1.5*p.OneGPU {
		fmt.Fprintf(&b, "\t→ %d GPUs start programs hardly faster than one: the driver serves each start's context creation one at a time for the whole machine, so more GPUs here do not grade faster; more machines do (lessons grade --slurm)\n", p.GPUs)
	}
	if p.Disk > 0 && p.Disk < 50 {
		b.WriteString("\t→ the disk is slow for the compile cache: set LESSONS_CACHE to a local disk\n")
	}
	return b.String()
}

// tinyCUDA is the program whose starts are counted: what every graded
// program does before its own work.
const tinyCUDA = `__global__ void add(int* p) { p[threadIdx.x] += 1; }
int main() {
  int* p = nullptr;
  if (cudaMalloc(&p, 1 << 20) != cudaSuccess) return 1;
  add<<<1, 32>>>(p);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  return cudaFree(p) == cudaSuccess ? 0 : 1;
}
`

// MeasurePace builds a small CUDA program with nvcc for arch, then counts
// its starts for window each: one at a time, at at once on the first of
// devices, and at at once on each of devices, with two hardware queues as
// grade gives untimed runs. It needs a GPU.
func MeasurePace(ctx context.Context, nvcc, arch string, devices []string, at int, window time.Duration) (*Pace, error) {
	dir, err := os.MkdirTemp("", "lessons-pace-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, bin := filepath.Join(dir, "tiny.cu"), filepath.Join(dir, "tiny")
	if err := os.WriteFile(src, []byte(tinyCUDA), 0o644); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if out, err := exec.CommandContext(ctx, nvcc, "-arch="+arch, "-o", bin, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("doctor --pace: nvcc of a small program failed: %v\n%s", err, out)
	}
	p := &Pace{Build: time.Since(t0), Cores: runtime.NumCPU(), At: at, GPUs: len(devices)}
	start := func(ctx context.Context, dev string) error {
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(os.Environ(), append(QueuesEnv(2), "CUDA_VISIBLE_DEVICES="+dev)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("a small CUDA program on GPU %s: %v %s", dev, err, out)
		}
		return nil
	}
	if p.Alone, err = countStarts(ctx, start, devices[:1], 1, window); err != nil {
		return nil, err
	}
	if p.OneGPU, err = countStarts(ctx, start, devices[:1], at, window); err != nil {
		return nil, err
	}
	p.AllGPUs = p.OneGPU
	if len(devices) > 1 {
		if p.AllGPUs, err = countStarts(ctx, start, devices, at, window); err != nil {
			return nil, err
		}
	}
	if c, err := buildcache.Default(); err == nil {
		p.Disk = diskSpeed(c.Dir)
	}
	return p, nil
}

// countStarts runs start over and over, at at once on each of devices,
// for window, and returns the starts finished a second (those under way
// when the window closes are waited for and counted, and so is their
// time). The first error stops the count.
func countStarts(ctx context.Context, start func(context.Context, string) error, devices []string, at int, window time.Duration) (float64, error) {
	var n atomic.Int64
	var first error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deadline := time.Now().Add(window)
	t0 := time.Now()
	var wg sync.WaitGroup
	for _, dev := range devices {
		for range max(at, 1) {
			wg.Go(func() {
				for time.Now().Before(deadline) && ctx.Err() == nil {
					if err := start(ctx, dev); err != nil {
						once.Do(func() { first = err; cancel() })
						return
					}
					n.Add(1)
				}
			})
		}
	}
	wg.Wait()
	if first != nil {
		return 0, first
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return float64(n.Load()) / time.Since(t0).Seconds(), nil
}

// diskSpeed writes and syncs 32 MiB in dir and returns MiB a second, or
// 0 when it could not.
func diskSpeed(dir string) float64 {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0
	}
	f, err := os.CreateTemp(dir, "pace-")
	if err != nil {
		return 0
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 1<<20)
	t0 := time.Now()
	for range 32 {
		if _, err := f.Write(buf); err != nil {
			return 0
		}
	}
	if f.Sync() != nil {
		return 0
	}
	return 32 / time.Since(t0).Seconds()
}

// DoctorPace measures this machine's Pace (at at once on each GPU, each
// measure for 3 s) and writes its report fit to width: lessons doctor
// --pace.
func DoctorPace(w io.Writer, width, at int) error {
	// A start stuck in the driver must not hold doctor for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	window := 3 * time.Second
	pr := Prober()
	if f, fake := pr.(fakeGPU); fake {
		return failure.Usagef("doctor --pace starts real CUDA programs: LESSONS_GPU=%s fakes the GPU here; unset it", string(f))
	}
	info, err := pr.Probe(true)
	devices, err := PaceDevices(info, err)
	if err != nil {
		return &failure.Tool{Err: err}
	}
	nvcc, err := gpu.NVCC(ctx, "")
	if err != nil {
		return &failure.Tool{Err: fmt.Errorf("doctor --pace builds a small CUDA program: %w", err)}
	}
	fmt.Fprintf(w, "\nMeasuring how fast this machine grades (about %d s): a small CUDA program built once, then started over and over, %d at once on each GPU as grade runs them\n\n", int(3*window.Seconds()+2), at)
	p, err := MeasurePace(ctx, nvcc.Path, info.Devices[0].Arch(), devices, at, window)
	if errors.Is(err, context.DeadlineExceeded) {
		err = errors.New("doctor --pace: a small CUDA program's starts took over two minutes: the driver may be stuck or the GPUs held by other work (nvidia-smi shows which)")
	}
	if err != nil {
		return &failure.Tool{Err: err}
	}
	var report strings.Builder
	tw := tabwriter.NewWriter(&report, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, p.Report())
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = io.WriteString(w, ui.Fit(report.String(), width))
	return err
}

// PaceDevices is the GPUs doctor --pace measures on: those the driver
// lists (as CUDA_VISIBLE_DEVICES names them), or an error without one.
func PaceDevices(info *gpu.Info, err error) ([]string, error) {
	if err != nil {
		return nil, fmt.Errorf("doctor --pace starts CUDA programs and needs a GPU: %w", err)
	}
	if info == nil || len(info.Devices) == 0 {
		return nil, errors.New("doctor --pace starts CUDA programs and needs a GPU: the driver lists none")
	}
	return Devices(len(info.Devices)), nil
}
