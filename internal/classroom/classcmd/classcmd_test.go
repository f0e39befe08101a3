package classcmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/machine"
)

func TestInviteWritesALinkEach(t *testing.T) {
	dir := t.TempDir()
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id,name,email\nann,Ann,ann@uni.example\nbob,Bob,\n"), 0o644)
	var out bytes.Buffer
	cmd := Invite(&out)
	cmd.SetArgs([]string{"--class", filepath.Join(dir, "class"), "--roster", roster, "--url", "https://gpu.uni.example/"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "ann,Ann,ann@uni.example,https://gpu.uni.example/_class/signin?link=") {
		t.Fatalf("links:\n%s", out.String())
	}
	if st, err := os.Stat(filepath.Join(dir, "class", ".class")); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the class's private folder: %v %v", st, err)
	}
	cmd = Invite(&out)
	cmd.SetArgs([]string{"--class", filepath.Join(dir, "class"), "--roster", roster, "--url", "gpu.uni.example"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "https://") {
		t.Fatalf("a URL without its scheme: %v", err)
	}
}

func TestServeFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "serve", RunE: func(*cobra.Command, []string) error { return nil }}
	f := AddFlags(cmd)
	cmd.SetArgs([]string{"--class", "/srv/class", "--roster", "r.csv", "--max-queued", "2", "--gpu-per-hour", "5m", "--instructor", "a@x", "--instructor", "b@x"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !f.On() || f.maxQueued != 2 || f.gpuPerHour.Minutes() != 5 || len(f.instructors) != 2 {
		t.Fatalf("flags: %+v", f)
	}
}

func TestSubmitNeedsServerAndToken(t *testing.T) {
	t.Setenv("LESSONS_CLASS_SERVER", "")
	t.Setenv("LESSONS_CLASS_TOKEN", "")
	cmd := Submit(&bytes.Buffer{})
	cmd.SetArgs([]string{"pool", "pool.cu"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "LESSONS_CLASS_TOKEN") {
		t.Fatalf("submit without a token: %v", err)
	}
}

func TestSlurmFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "serve", RunE: func(*cobra.Command, []string) error { return nil }}
	f := AddFlags(cmd)
	cmd.SetArgs([]string{"--class", "/srv/class", "--slurm-nodes", "4", "--slurm-gpus-per-node", "4", "--slurm-build-nodes", "1",
		"--slurm-partition", "gpu", "--slurm-sbatch-arg=--constraint=h100", "--slurm-only"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	s := f.slurm
	if !s.on() || s.nodes != 4 || s.gpusPerNode != 4 || s.builders != 1 || s.opts.RunPartition != "gpu" || !s.only || s.opts.Extra[0] != "--constraint=h100" {
		t.Fatalf("flags: %+v", s)
	}
	if _, err := s.prepare("/course", nil, "/srv/class", 2); err == nil || !strings.Contains(err.Error(), "--slurm-url") {
		t.Errorf("no --slurm-url: %v", err)
	}
	s.url, s.opts.RunPartition = "https://login1.uni.example:8443", "gpu;reboot"
	if _, err := s.prepare("/course", nil, "/srv/class", 2); err == nil || !strings.Contains(err.Error(), "no spaces, quotes or shell characters") {
		t.Errorf("a partition with a shell in it: %v", err)
	}
	s.opts.RunPartition = "gpu"
	if s.nodePerGPU(0) != 4 || s.nodePerGPU(2) != 2 {
		t.Errorf("runs at once on a node's GPU: %d (16 cores, 4 GPUs), %d (--per-gpu 2)", s.nodePerGPU(0), s.nodePerGPU(2))
	}
	p, err := s.prepare("/course", nil, "/srv/class", 2)
	if err != nil || p.remote.Progs != "/srv/class/.class/progs" {
		t.Errorf("prepare: %+v %v", p, err)
	}
}

// A server without a GPU serves a class whose runs are all on the nodes,
// building for the nodes' GPU; without --slurm-only, or the GPU's
// capability, it says what to give.
func TestServerWithoutAGPU(t *testing.T) {
	noGPU := errors.New("grade needs a GPU")
	s := slurmFlags{nodes: 2}
	m := &machine.Machine{NVCC: &gpu.Tool{Path: "/usr/bin/nvcc", Version: "13.0"}, GPUErr: errors.New("LESSONS_GPU=none")}
	if _, err := s.gpuless(m, 4, 1, noGPU); err != noGPU {
		t.Errorf("without --slurm-only: %v", err)
	}
	s.only = true
	if _, err := s.gpuless(m, 4, 1, noGPU); err == nil || !strings.Contains(err.Error(), "--slurm-gpu-capability 9.0") {
		t.Errorf("without the capability: %v", err)
	}
	s.capability = "9.0"
	l, err := s.gpuless(m, 4, 1, noGPU)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m.GPUErr != nil || m.Arch() != "sm_90" || len(l.Devices) != 0 || l.Jobs != 4 {
		t.Errorf("the server's machine %v %q, devices %q, jobs %d", m.GPUErr, m.Arch(), l.Devices, l.Jobs)
	}
}
