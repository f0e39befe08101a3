package pilot

import (
	"context"
	"errors"
	"strings"
	"testing"

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
	if _, _, _, err := nodeExec(ctx, "build", ""); err == nil || !strings.Contains(err.Error(), "LESSONS_PILOT_CAPABILITY") {
		t.Errorf("a build node told no GPU: %v", err)
	}
	if _, _, _, err := nodeExec(ctx, "gpu", ""); err == nil {
		t.Error("a GPU node without a GPU: no error")
	}
	if _, _, _, err := nodeExec(ctx, "cook", ""); err == nil || !errors.As(err, new(*failure.Usage)) {
		t.Errorf("a role that is none: %v", err)
	}
	n, gpus, r, err := nodeExec(ctx, "build", "8.0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(gpus) != 0 || n.Cells == nil || n.Env == nil || r.Machine.Arch() != "sm_80" {
		t.Errorf("a build node: gpus %v, arch %s", gpus, r.Machine.Arch())
	}
	t.Setenv("LESSONS_GPU", "Fake H100,9.0,1024")
	t.Setenv("LESSONS_DRIVER_CHECK", "off")
	n, gpus, r2, err := nodeExec(ctx, "gpu", "")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if len(gpus) != 1 || n.Toolchain == nil {
		t.Errorf("a GPU node: gpus %v", gpus)
	}
}
