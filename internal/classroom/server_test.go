package classroom

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/pilot"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
)

// serverOptions fakes a machine with a GPU and gives a class's options on
// a free port; the returned folder is the temporary one the rig makes
// its sandbox in.
func serverOptions(t *testing.T) (*course.Course, ServeOptions, string) {
	t.Helper()
	// The fake nvcc outside the test's folders: the sandbox reads the
	// toolkit's folder, and the class and the course must lie outside it.
	nvcc := machinetest.Fake(t, "Fake H100,9.0,85899345920")
	cuda, err := os.MkdirTemp("", "cuda-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cuda) })
	os.Mkdir(filepath.Join(cuda, "bin"), 0o755)
	data, _ := os.ReadFile(nvcc)
	os.WriteFile(filepath.Join(cuda, "bin", "nvcc"), data, 0o755)
	t.Setenv("PATH", filepath.Join(cuda, "bin"))
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("LESSONS_WITNESS", "off")
	t.Setenv("LESSONS_DRIVER_CHECK", "off")
	t.Setenv("LESSONS_SANDBOX_CGROUPS", "off")
	t.Setenv("LESSONS_TRACE", "")
	c, err := course.Load(coursetest.Tiny(t, []string{"pool"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id,name,email\nann,Ann,ann@uni.example\nbob,Bob,\n"), 0o644)
	return c, ServeOptions{Dir: filepath.Join(dir, "class"), Roster: roster, Addr: "127.0.0.1:0", ProxyAddr: "127.0.0.1",
		MaxQueued: 4, Timeout: time.Minute, DiskMiB: 0}, tmp
}

// The class put together on its rig says where it serves and what it
// cannot bound; Close lets go of the port and the sandbox's folder.
func TestNewServer(t *testing.T) {
	c, o, tmp := serverOptions(t)
	s, err := NewServer(context.Background(), c, o, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.ln.Addr().String()
	notes := strings.Join(s.Notes(), "\n")
	for _, want := range []string{"Serving the class of Tiny (2 students) at " + addr, "1 GPU(s)", "--disk-per-student 0", "LESSONS_SANDBOX_CGROUPS=off",
		// What guards the runs, as grade's start line says it.
		"\nSandbox: ", "\nDriver cross-check: "} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes do not say %q:\n%s", want, notes)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after its context ended: %v", err)
	}
	s.Close()
	assertLetGo(t, addr, tmp)
}

// A class refused after it began to be put together (the listener, the
// rig) lets go of what it had: a refusal used to panic on the way out.
func TestNewServerRefusedLetsGo(t *testing.T) {
	c, o, tmp := serverOptions(t)
	o.Slurm = pilot.SlurmOptions{Nodes: 1, GPUsPerNode: 1, NodeCPUs: 4}
	o.Addr = "127.0.0.1:0"
	_, err := NewServer(context.Background(), c, o, &strings.Builder{})
	if err == nil || !errors.As(err, new(*failure.Usage)) || !strings.Contains(err.Error(), "--slurm-url") {
		t.Fatalf("Slurm nodes without --slurm-url: %v", err)
	}
	assertLetGo(t, "", tmp)
	for _, bad := range []func(*ServeOptions){
		func(o *ServeOptions) { o.Roster = "" },
		func(o *ServeOptions) { o.Queues = 99 },
		func(o *ServeOptions) { o.Roster = filepath.Join(tmp, "none.csv") },
		func(o *ServeOptions) { o.ProxySecretFile = filepath.Join(tmp, "none") },
	} {
		o2 := o
		o2.Slurm = pilot.SlurmOptions{}
		bad(&o2)
		if _, err := NewServer(context.Background(), c, o2, &strings.Builder{}); err == nil {
			t.Errorf("%+v: no error", o2)
		}
	}
	assertLetGo(t, "", tmp)
}

func assertLetGo(t *testing.T, addr, tmp string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(tmp, "lessons-class-*")); len(left) > 0 {
		t.Errorf("the rig's sandbox is left: %v", left)
	}
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("%s is still held: %v", addr, err)
			return
		}
		ln.Close()
	}
}
