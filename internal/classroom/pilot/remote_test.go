package pilot

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/runner"
)

// localTools is the server's own toolchain: it notes what came to it.
type localTools struct {
	mu    sync.Mutex
	calls []string
}

func (l *localTools) note(s string) {
	l.mu.Lock()
	l.calls = append(l.calls, s)
	l.mu.Unlock()
}

func (l *localTools) Build(ctx context.Context, t *grade.Task, slot int) *grade.Built {
	l.note("build " + t.Exercise.ID)
	return &grade.Built{Prog: "/local/prog"}
}

func (l *localTools) Run(ctx context.Context, t *grade.Task, b *grade.Built, device string, slot int) (*grade.Ran, error) {
	l.note("run " + t.Exercise.ID + " on " + device)
	return &grade.Ran{Output: "ran here"}, nil
}

// localCells is the server's own cells' runner.
type localCells struct{ ran *int }

func (l localCells) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	*l.ran++
	io.WriteString(out, "ran here\n")
	return &runner.Result{}, nil
}

func remoteCourse(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spec.toml"), []byte("points=1"), 0o644)
	return dir
}

// Through Remote, a check's build goes to a build node once one is
// there (to the server's own toolchain before), its program kept by
// hash; its run goes to the node whose GPU the queue gave, and to the
// server's own toolchain on the server's GPU.
func TestRemoteToolchain(t *testing.T) {
	r := newRig(t)
	local := &localTools{}
	rem := &Remote{Hub: r.hub, Course: remoteCourse(t), Progs: t.TempDir()}
	tc := rem.Toolchain(local)
	task := &grade.Task{Student: "ann", Exercise: &course.Exercise{ID: "pool"}, Spec: &checker.Spec{Points: 1}, Source: []byte("kernel"), SourceName: "pool.cu", SourceHash: "h"}
	if b := tc.Build(context.Background(), task, 0); b.Prog != "/local/prog" {
		t.Fatalf("no build node: %+v", b)
	}
	r.worker(t, "cpu0", RoleBuild, nil, &fakeExec{})
	r.worker(t, "gpu0", RoleGPU, []string{"0"}, &fakeExec{})
	<-r.joined
	for !r.hub.Builders() {
		time.Sleep(time.Millisecond) // the build worker's hello is on its way
	}
	b := tc.Build(context.Background(), task, 0)
	if b.Err != nil || !strings.HasPrefix(b.Prog, rem.Progs) {
		t.Fatalf("built on the node: %+v", b)
	}
	if data, _ := os.ReadFile(b.Prog); string(data) != "#!prog points=1 kernel" {
		t.Errorf("the program kept: %q", data)
	}
	ran, err := tc.Run(context.Background(), task, b, "gpu0/0", 0)
	if err != nil || ran.Output != "ran #!prog points=1 kernel on GPU 0" {
		t.Fatalf("run on the node: %+v %v", ran, err)
	}
	if ran, err := tc.Run(context.Background(), task, b, "0", 0); err != nil || ran.Output != "ran here" {
		t.Errorf("run on the server's GPU: %+v %v", ran, err)
	}
	if got := strings.Join(local.calls, ", "); got != "build pool, run pool on 0" {
		t.Errorf("the server's own toolchain had: %s", got)
	}
	if _, err := tc.Run(context.Background(), task, &grade.Built{Prog: filepath.Join(t.TempDir(), "gone")}, "gpu0/0", 0); err == nil || !strings.Contains(err.Error(), "its program") {
		t.Errorf("a program gone: %v", err)
	}
}

// Through Remote, a cell on a node's GPU travels there with its
// workspace (what the cell wrote comes back), and one on the server's
// GPU runs here; the queue gains and loses a node's GPUs as it joins
// and leaves.
func TestRemoteCells(t *testing.T) {
	r := newRig(t)
	rem := &Remote{Hub: r.hub, Course: remoteCourse(t), Progs: t.TempDir()}
	r.worker(t, "gpu0", RoleGPU, []string{"0"}, &fakeExec{})
	devs := <-r.joined
	q := queue.New([]string{"0"}, 1, time.Now)
	Join(q, 2)(devs)
	if q.Open() != 3 || q.Slots() != 3 {
		t.Fatalf("joined: %d slots open of %d", q.Open(), q.Slots())
	}
	ran := 0
	cells := rem.Cells(func(ws string, slot int) runner.Runner { return localCells{ran: &ran} })
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main() {}"), 0o644)
	var out bytes.Buffer
	spec := runner.Spec{Argv: []string{"sh", "-c", "nvcc " + filepath.Join(ws, "a.cu")}, Dir: ws, Env: []string{"HOME=" + ws, "CUDA_VISIBLE_DEVICES=0", "CUDA_VISIBLE_DEVICES=gpu0/0"}, MaxOutput: 1 << 20}
	res, err := cells(ws, 0).Run(context.Background(), spec, &out)
	if err != nil || res.ExitCode != 3 || ran != 0 {
		t.Fatalf("on the node: %+v %v (%d here)", res, err, ran)
	}
	if !strings.Contains(out.String(), "argv sh -c nvcc "+WorkspaceVar+"/a.cu on GPU 0") {
		t.Errorf("the node's output: %q", out.String())
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(data) != "written on the node" {
		t.Errorf("what the cell wrote on the node: %q", data)
	}
	spec.Env = []string{"CUDA_VISIBLE_DEVICES=0"}
	out.Reset()
	if _, err := cells(ws, 0).Run(context.Background(), spec, &out); err != nil || ran != 1 || out.String() != "ran here\n" {
		t.Errorf("on the server's GPU: %v, %d, %q", err, ran, out.String())
	}
	Leave(q)(devs)
	if q.Open() != 1 {
		t.Errorf("left: %d slots open", q.Open())
	}
	if sigOf(9).String() != "killed" {
		t.Errorf("signal 9: %v", sigOf(9))
	}
}
