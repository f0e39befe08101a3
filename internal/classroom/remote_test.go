package classroom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/runner"
)

// nodeTools are a node's fake toolchain: a build writes a real program
// file (it travels back to the server and out to a GPU node), a run
// judges the source as fakeTools does.
type nodeTools struct {
	fakeTools
	dir string
}

func (n *nodeTools) Build(ctx context.Context, t *grade.Task, slot int) *grade.Built {
	b := n.fakeTools.Build(ctx, t, slot)
	if b.Prog == "" {
		return b
	}
	p := filepath.Join(n.dir, t.SourceHash)
	os.WriteFile(p, append([]byte("built on the build node from "), t.Source...), 0o755)
	return &grade.Built{Prog: p}
}

type remoteRig struct {
	*testClass
	hub   *pilot.Hub
	node  *nodeTools
	local *fakeTools
	// cellStarted, when set, is told of each cell as it starts on a
	// node, and the cell waits for cellHold.
	cellStarted chan string
	cellHold    chan struct{}
}

// heldCells is a node's cell runner that holds each cell as rr says.
type heldCells struct{ rr *remoteRig }

func (h heldCells) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	if h.rr.cellStarted != nil {
		h.rr.cellStarted <- strings.Join(spec.Argv, " ")
		select {
		case <-h.rr.cellHold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return runner.Exec{}.Run(ctx, spec, out)
}

// newRemoteClass is a class whose only GPU is a worker node's (the
// server's own "0" taken out): every run goes to the worker, every
// build to a build worker, over HTTP, as through Slurm.
func newRemoteClass(t *testing.T) *remoteRig { return newRemoteClassOf(t, 1) }

// newRemoteClassOf is newRemoteClass with gpus GPU nodes (gpu0, gpu1...),
// one GPU each.
func newRemoteClassOf(t *testing.T, gpus int) *remoteRig {
	rr := &remoteRig{node: &nodeTools{dir: t.TempDir()}}
	var q *queue.Queue
	rr.hub = pilot.NewHub(pilot.Config{Per: 2, Poll: 200 * time.Millisecond,
		Join:  func(d []string) { pilot.Join(q, 2)(d) },
		Leave: func(d []string) { pilot.Leave(q)(d) }})
	tc := newTestClass(t, func(cfg *Config) {
		// The cell tells where it ran and leaves a file behind.
		writeTree(t, cfg.Course.Root, map[string]string{"lessons/day001-hello.md": "# Day 1: Hello\n\n```sh run\necho hello from $LESSONS_NODE on GPU $CUDA_VISIBLE_DEVICES; echo made > made.txt\n```\n"})
		r := &pilot.Remote{Hub: rr.hub, Course: cfg.Course.Root, Solutions: []string{"solutions/day001/pool.cu"}, Progs: filepath.Join(cfg.Dir, PrivateDir, "progs")}
		cfg.Toolchain = r.Toolchain(cfg.Toolchain)
		cfg.Cells = r.Cells(cfg.Cells)
	})
	rr.testClass = tc
	rr.local = tc.tools
	q = tc.class.Queue()
	q.DropDevice("0")
	hs := httptest.NewServer(rr.hub)
	t.Cleanup(hs.Close)
	node := &pilot.Node{
		Env: func(ws string) (notebook.Env, error) {
			return notebook.Env{Runner: runner.Exec{}, Vars: []string{"LESSONS_NODE=the-gpu-node"}}, nil
		},
		Cells:     func(ws string, slot int) runner.Runner { return heldCells{rr} },
		Toolchain: rr.node,
	}
	ctx, cancel := context.WithCancel(context.Background())
	workers := []*pilot.Worker{{URL: hs.URL, Secret: rr.hub.Admit("cpu0"), Role: pilot.RoleBuild, Host: "cpunode", Dir: t.TempDir(), Exec: node, Flush: 10 * time.Millisecond}}
	for i := range gpus {
		name := fmt.Sprintf("gpu%d", i)
		workers = append(workers, &pilot.Worker{URL: hs.URL, Secret: rr.hub.Admit(name), Role: pilot.RoleGPU, GPUs: []string{"0"}, Host: name + "node", Dir: t.TempDir(), Exec: node, Flush: 10 * time.Millisecond})
	}
	done := make(chan error, len(workers))
	for _, w := range workers {
		go func() { done <- w.Run(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		for range workers {
			<-done
		}
	})
	for len(rr.hub.Workers()) < len(workers) {
		time.Sleep(time.Millisecond) // the workers' hellos are on their way
	}
	return rr
}

// A cell runs on the node with its workspace, and what it wrote comes
// back; a check and a submission build on the build node and run on the
// GPU node, judged as here (the hidden checks left out of the check,
// judged in the submission).
func TestRunsGoToTheNodes(t *testing.T) {
	rr := newRemoteClass(t)
	ann := rr.browser()
	ann.signin(rr.invite("ann"))
	out, status := ann.runCell("day001-hello", 1)
	if out != "hello from the-gpu-node on GPU 0\n" || strings.TrimSpace(status) != "ok" {
		t.Fatalf("the cell: %q, %q", out, status)
	}
	matches, _ := filepath.Glob(filepath.Join(rr.dir, "students", "ann", ".work", "day001-hello", "made.txt"))
	if len(matches) != 1 {
		t.Fatal("the file the cell made on the node did not come back")
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != "made\n" {
		t.Errorf("made.txt: %q", b)
	}
	ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "int main() { /* DONE */ }\n"})
	code, v := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
	if code != 200 || v["passed"] != true || v["hidden"] != float64(1) {
		t.Fatalf("check: %d %v", code, v)
	}
	code, sub := ann.post("/_class/api/submit", map[string]any{"exercise": "pool", "text": "int main() { /* DONE HIDDEN */ }\n"})
	if code != 200 || sub["status"] != "passed" || sub["points"] != float64(10) {
		t.Fatalf("submit: %d %v", code, sub)
	}
	if rr.local.builds != 0 || rr.local.runs != 0 || rr.node.builds != 2 || rr.node.runs != 2 {
		t.Errorf("here %d builds, %d runs; on the nodes %d builds, %d runs: want all on the nodes", rr.local.builds, rr.local.runs, rr.node.builds, rr.node.runs)
	}
	progs, _ := os.ReadDir(filepath.Join(rr.dir, PrivateDir, "progs"))
	if len(progs) != 2 {
		t.Errorf("programs built on the node and kept here: %d", len(progs))
	}
}

// A node that goes (its Slurm job ended) stops the runs it held; its
// GPU takes no more.
func TestANodeThatGoesStopsItsRuns(t *testing.T) {
	rr := newRemoteClass(t)
	rr.node.hold = make(chan struct{})
	rr.node.started = make(chan string, 1)
	ann := rr.browser()
	ann.signin(rr.invite("ann"))
	done := make(chan map[string]any, 1)
	go func() {
		_, v := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
		done <- v
	}()
	<-rr.node.started
	rr.hub.Revoke("gpu0", "was cancelled")
	v := <-done
	if !strings.Contains(v["error"].(string), "stopped: gpu0's worker was cancelled") {
		t.Errorf("the check on the node that went: %v", v)
	}
	close(rr.node.hold)
	if st := rr.class.Queue().State(); st.Busy["gpu0/0"] != 0 {
		t.Errorf("the gone GPU still runs: %+v", st)
	}
	if _, err := rr.hub.Do(context.Background(), "gpu0/0", &pilot.Job{Kind: pilot.KindCell}, nil, nil, 0); !errors.Is(err, pilot.ErrNoWorker) {
		t.Errorf("a run sent to the gone GPU: %v", err)
	}
}

// A run cut off by a GPU node that left goes back in the queue and runs
// on another node: the student's check and cell end as if the node had
// never left, the cell's page told why it ran twice.
func TestARunCutOffByANodeRunsAgainElsewhere(t *testing.T) {
	rr := newRemoteClassOf(t, 2)
	rr.node.hold = make(chan struct{})
	rr.node.started = make(chan string, 4)
	ann := rr.browser()
	ann.signin(rr.invite("ann"))
	ann.post("/_class/api/file", map[string]any{"exercise": "pool", "text": "int main() { /* DONE */ }\n"})
	done := make(chan map[string]any, 1)
	go func() {
		_, v := ann.post("/_lessons/api/check", map[string]any{"exercise": "pool"})
		done <- v
	}()
	<-rr.node.started
	busy := ""
	for d, n := range rr.class.Queue().State().Busy {
		if n > 0 {
			busy = d
		}
	}
	name, _, _ := strings.Cut(busy, "/")
	if name == "" {
		t.Fatalf("no GPU runs the check: %+v", rr.class.Queue().State())
	}
	rr.hub.Revoke(name, "was cancelled")
	<-rr.node.started // again, on the other node
	close(rr.node.hold)
	if v := <-done; v["passed"] != true {
		t.Fatalf("the check cut off by %s's leaving: %v", name, v)
	}
	if st := rr.class.Queue().State(); st.Busy[busy] != 0 {
		t.Errorf("the gone GPU still runs: %+v", st)
	}

	// A cell cut off by the second node's leaving: no GPU is left, so
	// it is not queued again; the student is told to run it again.
	rr.cellStarted, rr.cellHold = make(chan string, 1), make(chan struct{})
	cell := make(chan [2]string, 1)
	go func() {
		out, status := ann.runCell("day001-hello", 1)
		cell <- [2]string{out, status}
	}()
	<-rr.cellStarted
	other := "gpu0"
	if name == "gpu0" {
		other = "gpu1"
	}
	rr.hub.Revoke(other, "stopped answering")
	got := <-cell
	if !strings.Contains(got[0]+got[1], "stopped: "+other+"'s worker stopped answering") {
		t.Errorf("a cell cut off by the last node's leaving: %q", got)
	}
	close(rr.cellHold)
}

// A cell cut off by a node that left runs again, whole, on another.
func TestACellCutOffByANodeRunsAgainElsewhere(t *testing.T) {
	rr := newRemoteClassOf(t, 2)
	rr.cellStarted, rr.cellHold = make(chan string, 2), make(chan struct{})
	ann := rr.browser()
	ann.signin(rr.invite("ann"))
	cell := make(chan [2]string, 1)
	go func() {
		out, status := ann.runCell("day001-hello", 1)
		cell <- [2]string{out, status}
	}()
	<-rr.cellStarted
	busy := ""
	for d, n := range rr.class.Queue().State().Busy {
		if n > 0 {
			busy = d
		}
	}
	name, _, _ := strings.Cut(busy, "/")
	rr.hub.Revoke(name, "was cancelled")
	<-rr.cellStarted
	close(rr.cellHold)
	got := <-cell
	want := "(the GPU node's worker " + name + " was cancelled: the cell runs again on another GPU)\nhello from the-gpu-node on GPU 0\n"
	if !strings.HasSuffix(got[0], want) || strings.TrimSpace(got[1]) != "ok" {
		t.Errorf("the cell: %q, %q; want it to end %q", got[0], got[1], want)
	}
	if _, err := os.Stat(filepath.Join(rr.dir, "students", "ann", ".work", "day001-hello", "made.txt")); err != nil {
		t.Errorf("the file the second run made: %v", err)
	}
}
