package exercise

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/runner"
)

// On a GPU, a program stopped at its time limit while its host waits for
// a kernel that never ends: with the driver's default schedule (a
// process with fewer contexts than the machine has cores spins) its main
// thread only shows as running, and the runner must find it in the
// driver's library, so that a run stopped so beside others is made again
// alone (graph-alloc's correct designs timed out once so under a whole
// verify --wrong, session 23). With the blocking schedule it sleeps on a
// futex that the driver's own thread wakes (driver 580, session 25: not
// in an ioctl), called from the driver's library. It needs a GPU and
// nvcc; it skips without them.
func TestGPUSpinInTheDriverIsAWaitThere(t *testing.T) {
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("needs nvcc")
	}
	dir := t.TempDir()
	src := `#include <cstdio>
#include <cstring>
__global__ void forever(volatile int *flag) { while (*flag == 0) {} }
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "blocking") == 0) cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    int *flag;
    cudaMalloc(&flag, sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    forever<<<1, 1>>>(flag);
    printf("waiting\n");
    fflush(stdout);
    cudaDeviceSynchronize();
    return 0;
}
`
	if err := os.WriteFile(filepath.Join(dir, "forever.cu"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(nvcc, "-arch="+info.Devices[0].Arch(), "-o", "forever", "forever.cu")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("nvcc: %v\n%s", err, out)
	}
	for _, sched := range []string{"default", "blocking"} {
		var out bytes.Buffer
		res, err := runner.Exec{}.Run(context.Background(), runner.Spec{Argv: []string{filepath.Join(dir, "forever"), sched}, Timeout: 10 * time.Second}, &out)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s schedule: threads %s", sched, res.Threads)
		if !strings.Contains(out.String(), "waiting") {
			t.Fatalf("%s schedule: the kernel was not launched in 10 s: %s", sched, out.String())
		}
		if !res.TimedOut || !res.InDriver {
			t.Errorf("%s schedule: timed out %v, in the driver %v: %s", sched, res.TimedOut, res.InDriver, res.Threads)
		}
		if sched == "default" && !strings.Contains(res.Threads, "at libcuda.so") {
			t.Errorf("the default schedule's spin not found in the driver's library: %s", res.Threads)
		}
		if sched == "blocking" && !strings.Contains(res.Threads, "from libcuda.so") && !strings.Contains(res.Threads, "(ioctl)") {
			t.Errorf("the blocking schedule's wait not found under the driver's library: %s", res.Threads)
		}
	}
}
