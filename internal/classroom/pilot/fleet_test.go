package pilot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cudalessons/lessons/internal/slurm"
)

// fakeSlurm answers sbatch with the next job id and squeue with the
// states set; it records every command.
type fakeSlurm struct {
	mu     sync.Mutex
	next   int
	states map[string]string
	calls  []string
}

func (s *fakeSlurm) exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, name+" "+strings.Join(args, " "))
	switch name {
	case "sbatch":
		s.next++
		id := fmt.Sprint(100 + s.next)
		s.states[id] = "RUNNING"
		return []byte(id + "\n"), nil
	case "squeue":
		var out strings.Builder
		for _, id := range strings.Split(args[len(args)-3], ",") {
			fmt.Fprintf(&out, "%s_0|%s|None\n", id, s.states[id])
		}
		return []byte(out.String()), nil
	case "scancel":
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected %s", name)
}

func TestFleetSubmitsAndReplacesPilots(t *testing.T) {
	fs := &fakeSlurm{states: map[string]string{}}
	left := make(chan []string, 4)
	hub := NewHub(Config{Leave: func(d []string) { left <- d }})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pilots.json"), []byte(`{"gpu0": "77"}`), 0o600)
	f := &Fleet{Hub: hub, Cluster: slurm.Cluster{Exec: fs.exec}, Options: slurm.Options{RunPartition: "gpu", BuildPartition: "cpu"},
		Nodes: 2, GPUsPerNode: 4, NodeCPUs: 16, Builders: 1, BuildCPUs: 8, Dir: dir, Exe: "/opt/lessons", URL: "https://gpu.uni.example"}
	if err := f.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fs.calls[:1], []string{"scancel 77"}) || len(fs.calls) != 4 {
		t.Fatalf("commands: %q", fs.calls)
	}
	if got := f.Jobs(); got["gpu0"] != "101" || got["gpu1"] != "102" || got["build0"] != "103" {
		t.Fatalf("jobs %v", got)
	}
	script, _ := os.ReadFile(filepath.Join(dir, "gpu1.sh"))
	secret := regexp.MustCompile(`printf '%s' ([0-9a-f]+) >`).FindSubmatch(script)
	if secret == nil || !strings.Contains(string(script), "--gres=gpu:4") {
		t.Fatalf("gpu1's script:\n%s", script)
	}
	if st, _ := os.Stat(filepath.Join(dir, "gpu1.sh")); st.Mode().Perm() != 0o600 {
		t.Errorf("a script with a secret is %v", st.Mode())
	}
	// gpu1's worker connects; then its job is cancelled: it is let go,
	// and a new job with a new secret replaces it.
	hub.mu.Lock()
	name := hub.admit[Hash(secret[1])]
	hub.mu.Unlock()
	if name != "gpu1" {
		t.Fatalf("the secret is %q's", name)
	}
	w := &worker{name: "gpu1", role: RoleGPU, gpus: []string{"0"}, mail: map[string][]*call{}, taken: map[string]*call{}, wake: make(chan struct{}), gone: make(chan struct{})}
	hub.mu.Lock()
	hub.workers["gpu1"], hub.devices["gpu1/0"] = w, w
	hub.mu.Unlock()
	fs.states["102"] = "CANCELLED"
	if err := f.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := <-left; !slices.Equal(d, []string{"gpu1/0"}) {
		t.Errorf("left %q", d)
	}
	if f.Jobs()["gpu1"] != "104" {
		t.Errorf("gpu1 not submitted again: %v", f.Jobs())
	}
	hub.mu.Lock()
	_, still := hub.admit[Hash(secret[1])]
	hub.mu.Unlock()
	if still {
		t.Error("the cancelled job's secret still works")
	}
	// A pilot that ends at once is given up after MaxTries an hour.
	var err error
	for range MaxTries {
		fs.states[f.Jobs()["gpu0"]] = "FAILED"
		err = f.Check(context.Background())
	}
	if err == nil || !strings.Contains(err.Error(), "pilot gpu0: submitted 4 times in an hour") {
		t.Errorf("a pilot that always fails: %v", err)
	}
	if err := f.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if last := fs.calls[len(fs.calls)-1]; last != "scancel 103 104" {
		t.Errorf("stop: %q", last)
	}
}
