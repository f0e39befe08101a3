package pilot

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
	"github.com/cudalessons/lessons/internal/rig"
)

func TestPilotsPrepare(t *testing.T) {
	s := SlurmOptions{Nodes: 4, GPUsPerNode: 4, NodeCPUs: 16, Builders: 1}
	if _, err := s.Prepare("/course", nil, "/srv/class/.class", 2); err == nil || !strings.Contains(err.Error(), "--slurm-url") {
		t.Errorf("no --slurm-url: %v", err)
	}
	s.URL, s.Options.RunPartition = "https://login1.uni.example:8443", "gpu;reboot"
	if _, err := s.Prepare("/course", nil, "/srv/class/.class", 2); err == nil || !strings.Contains(err.Error(), "no spaces, quotes or shell characters") {
		t.Errorf("a partition with a shell in it: %v", err)
	}
	s.Options.RunPartition = "gpu"
	s.Env = []string{"A B=1"}
	if _, err := s.Prepare("/course", nil, "/srv/class/.class", 2); err == nil || !errors.As(err, new(*failure.Usage)) {
		t.Errorf("a --slurm-env name with a space: %v", err)
	}
	s.Env = nil
	if s.nodePerGPU(0) != 4 || s.nodePerGPU(2) != 2 {
		t.Errorf("runs at once on a node's GPU: %d (16 cores, 4 GPUs), %d (--per-gpu 2)", s.nodePerGPU(0), s.nodePerGPU(2))
	}
	p, err := s.Prepare("/course", nil, "/srv/class/.class", 2)
	if err != nil || p.Remote.Progs != "/srv/class/.class/progs" || p.Workers() == nil {
		t.Errorf("prepare: %+v %v", p, err)
	}
	if (*Pilots)(nil).Workers() != nil {
		t.Error("no pilots name workers")
	}
}

// A server without a GPU serves a class whose runs are all on the nodes,
// building for the nodes' GPU; without --slurm-only, or the GPU's
// capability, it says what to give.
func TestServerWithoutAGPU(t *testing.T) {
	machinetest.Fake(t, "none")
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	_, noGPU := rig.Grader(ctx, "serve --class", "lessons-class-")
	s := SlurmOptions{Nodes: 2}
	if _, err := s.Gpuless(ctx, noGPU); err != noGPU {
		t.Errorf("without --slurm-only: %v", err)
	}
	s.Only = true
	if _, err := s.Gpuless(ctx, noGPU); err == nil || !strings.Contains(err.Error(), "--slurm-gpu-capability 9.0") {
		t.Errorf("without the capability: %v", err)
	}
	s.Capability = "9.0"
	r, err := s.Gpuless(ctx, noGPU)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Machine.GPUErr != nil || r.Machine.Arch() != "sm_90" || r.Sandbox == nil {
		t.Errorf("the server's machine %v %q", r.Machine.GPUErr, r.Machine.Arch())
	}
	if _, err := s.Gpuless(ctx, errors.New("something else")); err == nil || err.Error() != "something else" {
		t.Errorf("another error than no GPU: %v", err)
	}
}

// A pilot's node is assembled from its rig: a build node builds for the
// server's GPU, which it must be told; a GPU node needs a GPU.
func TestNodeExec(t *testing.T) {
	machinetest.Fake(t, "none")
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("LESSONS_SANDBOX_CGROUPS", "off")
	ctx := context.Background()
	if _, _, _, err := nodeExec(ctx, "build", "", io.Discard); err == nil || !strings.Contains(err.Error(), "LESSONS_PILOT_CAPABILITY") {
		t.Errorf("a build node told no GPU: %v", err)
	}
	if _, _, _, err := nodeExec(ctx, "gpu", "", io.Discard); err == nil {
		t.Error("a GPU node without a GPU: no error")
	}
	if _, _, _, err := nodeExec(ctx, "cook", "", io.Discard); err == nil || !errors.As(err, new(*failure.Usage)) {
		t.Errorf("a role that is none: %v", err)
	}
	n, gpus, r, err := nodeExec(ctx, "build", "8.0", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(gpus) != 0 || n.Cells == nil || n.Env == nil || r.Machine.Arch() != "sm_80" {
		t.Errorf("a build node: gpus %v, arch %s", gpus, r.Machine.Arch())
	}
	t.Setenv("LESSONS_GPU", "Fake H100,9.0,1024")
	t.Setenv("LESSONS_DRIVER_CHECK", "off")
	n, gpus, r2, err := nodeExec(ctx, "gpu", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if len(gpus) != 1 || n.Toolchain == nil {
		t.Errorf("a GPU node: gpus %v", gpus)
	}
}

// The class's pilots are submitted; with --slurm-only the server's own
// GPUs take no run; the handler serves the workers at Path and the class
// elsewhere; a worker's GPUs join the queue and leave it; stop cancels
// the jobs.
func TestPilotsStart(t *testing.T) {
	fs := &fakeSlurm{states: map[string]string{}}
	s := SlurmOptions{Nodes: 2, GPUsPerNode: 1, NodeCPUs: 4, Builders: 1, BuildCPUs: 4, URL: "http://127.0.0.1:3977/", Exe: "/opt/lessons", Only: true, Cluster: fs.exec}
	private := t.TempDir()
	p, err := s.Prepare("/course", nil, private, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := queue.New([]string{"0"}, 2, time.Now)
	class := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the class") })
	var log strings.Builder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, stop, note, err := p.Start(ctx, q, class, private, []string{"0"}, []string{CapabilityVar + "=9.0"}, &log)
	if err != nil {
		t.Fatal(err)
	}
	if q.Open() != 0 {
		t.Errorf("--slurm-only: %d of the server's own slots still open", q.Open())
	}
	if n := strings.Count(strings.Join(fs.calls, "\n"), "sbatch"); n != 3 || !strings.Contains(note, "2 GPU node pilot(s) and 1 build node pilot(s)") {
		t.Errorf("submitted %d pilots; note %q", n, note)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/day001.html", nil))
	if rec.Body.String() != "the class" {
		t.Errorf("/ is not the class's: %q", rec.Body.String())
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", Path+"poll", nil))
	if rec.Body.String() == "the class" || rec.Code == 200 {
		t.Errorf("%s is the class's, or open without a secret: %d %q", Path, rec.Code, rec.Body.String())
	}
	Join(q, 3)([]string{Device("gpu0", "0")})
	if q.Open() != 3 {
		t.Errorf("a worker's GPU joined: %d slots open, want 3", q.Open())
	}
	Leave(q)([]string{Device("gpu0", "0")})
	if q.Open() != 0 || !OnNode(Device("gpu0", "0")) || OnNode("0") {
		t.Errorf("a worker's GPU left: %d slots open", q.Open())
	}
	stop()
	if !strings.Contains(strings.Join(fs.calls, "\n"), "scancel") {
		t.Errorf("stop cancelled no job: %q", fs.calls)
	}
	if (*Pilots)(nil).Workers() != nil || p.Workers() == nil {
		t.Error("Workers")
	}
}

func TestRunWorkerNeedsItsSecret(t *testing.T) {
	err := RunWorker(context.Background(), WorkerOptions{URL: "http://127.0.0.1:1", Role: RoleGPU, Dir: t.TempDir(), SecretFile: filepath.Join(t.TempDir(), "none")}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "the job's secret") {
		t.Errorf("a pilot without its secret: %v", err)
	}
	file := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(file, []byte("s3cret\n"), 0o600)
	machinetest.Fake(t, "none")
	if err := RunWorker(context.Background(), WorkerOptions{URL: "http://127.0.0.1:1", Role: "cook", Dir: t.TempDir(), SecretFile: file}, io.Discard); err == nil || !strings.Contains(err.Error(), "gpu or build") {
		t.Errorf("a pilot of no role: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Error("the secret was left on the node's disk")
	}
}
