package pilot

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/slurm"
)

// workerVar makes the test binary a pilot's worker (with fakeExec): the
// job script of TestPilotsThroughSlurm runs this binary.
const workerVar = "LESSONS_PILOT_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerVar) != "" && len(os.Args) > 1 && os.Args[1] == "pilot" {
		fs := flag.NewFlagSet("pilot", flag.ExitOnError)
		url, role, dir, secretFile := fs.String("url", "", ""), fs.String("role", RoleGPU, ""), fs.String("dir", "", ""), fs.String("secret-file", "", "")
		fs.Parse(os.Args[2:])
		secret, err := ReadSecret(*secretFile)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		gpus := strings.Split(os.Getenv("CUDA_VISIBLE_DEVICES"), ",")
		if gpus[0] == "" {
			gpus = []string{"0"}
		}
		host, _ := os.Hostname()
		w := &Worker{URL: *url, Secret: secret, Role: *role, GPUs: gpus, Host: host, Dir: *dir, Exec: &fakeExec{}, Log: os.Stdout}
		if err := w.Run(context.Background()); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestPilotsThroughSlurm submits a pilot to the Slurm cluster of this
// machine (scripts/slurm-one-node.sh; CI's .ci/slurm sets
// LESSONS_SLURM_TEST=1 so that it cannot skip there): its worker
// connects back, runs cells, and when its job is cancelled its run is
// stopped and a new pilot replaces it. It logs what the pilots cost: the
// time from sbatch to the worker's hello, and a run's round trip.
func TestPilotsThroughSlurm(t *testing.T) {
	if out, err := exec.Command("sinfo", "-h", "-p", "gpu").CombinedOutput(); err != nil || len(out) == 0 {
		if os.Getenv("LESSONS_SLURM_TEST") != "" {
			t.Fatalf("LESSONS_SLURM_TEST is set and no Slurm controller answers: %v %s", err, out)
		}
		t.Skipf("no Slurm cluster with a gpu partition here (sinfo: %v): scripts/slurm-one-node.sh starts one", err)
	}
	joined := make(chan []string, 4)
	hub := NewHub(Config{Per: 2, Poll: 2 * time.Second, Join: func(d []string) { joined <- d }})
	srv := httptest.NewServer(hub)
	defer srv.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := &Fleet{Hub: hub, Cluster: slurm.Cluster{Exec: slurm.Command}, Options: slurm.Options{RunPartition: "gpu", Time: "5"},
		Nodes: 1, GPUsPerNode: 2, NodeCPUs: 1, Dir: dir, Exe: exe, URL: srv.URL, Env: []string{workerVar + "=1"}}
	logs := func() string {
		var b strings.Builder
		files, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
		for _, p := range files {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "--- %s\n%s", p, data)
		}
		return b.String()
	}
	ctx := context.Background()
	start := time.Now()
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer f.Stop(ctx)
	var devs []string
	select {
	case devs = <-joined:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the pilot's worker did not connect in 2 minutes:\n%s", logs())
	}
	up := time.Since(start)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main() {}"), 0o644)
	files, blobs, _ := Snapshot(ws)
	var took []time.Duration
	for i := range 20 {
		var out strings.Builder
		s := time.Now()
		res, err := hub.Do(ctx, devs[i%len(devs)], &Job{Kind: KindCell, Workspace: "w", Files: files, Argv: []string{"run"}}, blobs, &out, 0)
		took = append(took, time.Since(s))
		if err != nil || res.Exit.Code != 3 || !strings.Contains(out.String(), "a.cu: int main() {}") {
			t.Fatalf("run %d: %v %+v %q\n%s", i, err, res, out.String(), logs())
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	t.Logf("pilot: sbatch to the worker's hello %s; a cell's round trip through the hub (20, on %v): median %s, max %s",
		up.Round(time.Millisecond), devs, took[len(took)/2].Round(100*time.Microsecond), took[len(took)-1].Round(100*time.Microsecond))

	// The job is cancelled while a run waits on the node: the fleet sees
	// it end, the run is stopped, and a new pilot connects.
	done := make(chan error, 1)
	go func() {
		_, err := hub.Do(ctx, devs[0], &Job{Kind: KindCell, Workspace: "w", Files: files, Argv: []string{"block"}}, blobs, nil, 0)
		done <- err
	}()
	id := f.Jobs()["gpu0"]
	if err := f.Cluster.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for f.Jobs()["gpu0"] == id {
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled pilot was not replaced in a minute:\n%s", logs())
		}
		if err := f.Check(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // Slurm's view of the job, polled
	}
	var se *StoppedError
	if err := <-done; !errors.As(err, &se) || !strings.Contains(err.Error(), "job "+id+" ended (CANCELLED") {
		t.Errorf("the run on the cancelled pilot: %v", err)
	}
	select {
	case d := <-joined:
		if !slices.Equal(d, devs) {
			t.Errorf("the new pilot's GPUs %q, the old one's %q", d, devs)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the replacing pilot did not connect:\n%s", logs())
	}
}
