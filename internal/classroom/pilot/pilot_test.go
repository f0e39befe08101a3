package pilot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeExec is a node's executor that touches no GPU: a cell prints its
// argv and the files it sees, writes out.txt and removes gone.txt; a
// build "compiles" by copying the source; a run prints the program.
type fakeExec struct {
	mu      sync.Mutex
	started chan *Job // told of each cell as it starts, when set
	block   bool      // a cell waits for its ctx to end
	stopped chan *Job // told of each blocked cell as its ctx ends, when set
}

func (f *fakeExec) Cell(ctx context.Context, job *Job, ws string, out io.Writer) (Exit, error) {
	if f.started != nil {
		f.started <- job
	}
	if f.block || len(job.Argv) > 0 && job.Argv[0] == "block" {
		<-ctx.Done()
		if f.stopped != nil {
			f.stopped <- job
		}
		return Exit{Code: -1, Canceled: true}, nil
	}
	src, err := os.ReadFile(filepath.Join(ws, "a.cu"))
	if err != nil {
		return Exit{}, err
	}
	fmt.Fprintf(out, "argv %s on GPU %s slot %d\n", strings.Join(job.Argv, " "), job.Device, job.Slot)
	fmt.Fprintf(out, "a.cu: %s\n", src)
	os.WriteFile(filepath.Join(ws, "out.txt"), []byte("written on the node"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".lessons-cache"), 0o755)
	os.WriteFile(filepath.Join(ws, ".lessons-cache", "bin"), []byte("stays on the node"), 0o644)
	os.Remove(filepath.Join(ws, "gone.txt"))
	return Exit{Code: 3, Duration: time.Second}, nil
}

func (f *fakeExec) Build(ctx context.Context, job *Job, course string, files []FileData) (*Result, error) {
	spec, err := os.ReadFile(filepath.Join(course, "spec.toml"))
	if err != nil {
		return nil, err
	}
	return &Result{Prog: append([]byte("#!prog "+string(spec)+" "), files[0].Data...)}, nil
}

func (f *fakeExec) Run(ctx context.Context, job *Job, course string, files []FileData, prog string) (*Result, error) {
	data, err := os.ReadFile(prog)
	if err != nil {
		return nil, err
	}
	return &Result{Output: fmt.Sprintf("ran %s on GPU %s", data, job.Device)}, nil
}

type hubRig struct {
	hub    *Hub
	srv    *httptest.Server
	joined chan []string
	left   chan []string
	now    time.Time
	mu     sync.Mutex
}

func newRig(t *testing.T) *hubRig {
	r := &hubRig{joined: make(chan []string, 8), left: make(chan []string, 8), now: time.Unix(1e9, 0)}
	r.hub = NewHub(Config{Per: 2, Poll: 100 * time.Millisecond, Lease: time.Minute,
		Join:  func(d []string) { r.joined <- d },
		Leave: func(d []string) { r.left <- d },
		Clock: func() time.Time { r.mu.Lock(); defer r.mu.Unlock(); return r.now }})
	r.srv = httptest.NewServer(r.hub)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hubRig) worker(t *testing.T, name, role string, gpus []string, ex Executor) (*Worker, <-chan error) {
	w := &Worker{URL: r.srv.URL, Secret: r.hub.Admit(name), Role: role, GPUs: gpus, Host: "node-" + name, Dir: t.TempDir(), Exec: ex, Flush: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-errc })
	return w, errc
}

func TestCellTravelsAndComesBack(t *testing.T) {
	r := newRig(t)
	w, _ := r.worker(t, "gpu0", RoleGPU, []string{"0", "1"}, &fakeExec{})
	if d := <-r.joined; !slices.Equal(d, []string{"gpu0/0", "gpu0/1"}) {
		t.Fatalf("joined %q", d)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main() {}"), 0o644)
	os.WriteFile(filepath.Join(ws, "gone.txt"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".tmp"), 0o755)
	os.WriteFile(filepath.Join(ws, ".tmp", "secret"), []byte("not sent"), 0o644)
	files, blobs, err := Snapshot(ws)
	if err != nil || len(files) != 2 {
		t.Fatalf("snapshot %v %v", files, err)
	}
	var out bytes.Buffer
	job := &Job{Kind: KindCell, Workspace: "alice-day1", Files: files, Argv: []string{"sh", "-c", "nvcc a.cu"}}
	res, err := r.hub.Do(context.Background(), "gpu0/1", job, blobs, &out, 1<<20)
	if err != nil || res.Err != "" {
		t.Fatalf("Do: %v %+v", err, res)
	}
	// GPU 1's slots on the node are 2 and 3 (its first two are GPU 0's).
	if got := out.String(); got != "argv sh -c nvcc a.cu on GPU 1 slot 2\na.cu: int main() {}\n" && got != "argv sh -c nvcc a.cu on GPU 1 slot 3\na.cu: int main() {}\n" {
		t.Errorf("output %q", got)
	}
	if res.Exit.Code != 3 || len(res.Changed) != 1 || res.Changed[0].Name != "out.txt" || !slices.Equal(res.Removed, []string{"gone.txt"}) {
		t.Fatalf("result %+v", res)
	}
	if err := Apply(ws, res.Changed, res.Removed); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "written on the node" {
		t.Errorf("out.txt %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "gone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gone.txt still there: %v", err)
	}
	// The node kept the workspace: a second run fetches nothing new and
	// its cache stays.
	if _, err := os.Stat(filepath.Join(w.Dir, "ws", "alice-day1", ".lessons-cache", "bin")); err != nil {
		t.Errorf("the node's cache of the workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "ws", "alice-day1", ".tmp", "secret")); err == nil {
		t.Error("a Kept folder travelled to the node")
	}
}

// A cell runs as a user of its slot's own: it reaches its workspace
// through the scratch folder and ws/ (traversable, not listable), and
// nothing else of the worker's: the course with its solutions, every
// student's files, the programs (an H100 run as root found every cell
// refused at its workspace when the scratch folder was the worker's
// alone).
func TestAWorkersFoldersLetACellsUserReachOnlyItsWorkspaceAndItsTMPDIR(t *testing.T) {
	r := newRig(t)
	w, _ := r.worker(t, "gpu0", RoleGPU, []string{"0"}, &fakeExec{})
	<-r.joined // w.Dir is a fresh temporary folder: 0700, as the pilot's script once made it
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main() {}"), 0o644)
	files, blobs, _ := Snapshot(ws)
	job := &Job{Kind: KindCell, Workspace: "ann-day1", Files: files, Argv: []string{"sh"}}
	if _, err := r.hub.Do(context.Background(), "gpu0/0", job, blobs, nil, 1<<20); err != nil {
		t.Fatal(err)
	}
	// The folders that do not travel are made on the node too: nvcc
	// writes in the cell's TMPDIR, ws/.tmp (an H100 run found every
	// cell's nvcc refused without it).
	for _, k := range Kept {
		if st, err := os.Stat(filepath.Join(w.Dir, "ws", "ann-day1", k)); err != nil || !st.IsDir() {
			t.Errorf("the workspace's %s on the node: %v", k, err)
		}
	}
	want := map[string]os.FileMode{".": 0o711, "ws": 0o711, "ws/ann-day1": 0o700, "blobs": 0o700, "course": 0o700, "jobs": 0o700}
	for name, mode := range want {
		st, err := os.Stat(filepath.Join(w.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s: %v, want %v", name, st.Mode().Perm(), mode)
		}
	}
}

func TestBuildThenRun(t *testing.T) {
	r := newRig(t)
	r.worker(t, "cpu0", RoleBuild, nil, &fakeExec{})
	r.worker(t, "gpu0", RoleGPU, []string{"0"}, &fakeExec{})
	<-r.joined
	for !r.hub.Builders() {
		time.Sleep(time.Millisecond) // the build worker's hello is on its way
	}
	course := t.TempDir()
	os.WriteFile(filepath.Join(course, "spec.toml"), []byte("points=1"), 0o644)
	os.MkdirAll(filepath.Join(course, "solutions"), 0o755)
	os.WriteFile(filepath.Join(course, "solutions", "pool.cu"), []byte("the answer"), 0o644)
	os.MkdirAll(filepath.Join(course, ".git"), 0o755)
	os.WriteFile(filepath.Join(course, ".git", "HEAD"), []byte("not sent"), 0o644)
	tgz, err := Tar(course, []string{"solutions/pool.cu"})
	if err != nil {
		t.Fatal(err)
	}
	unpacked := t.TempDir()
	if err := Untar(tgz, unpacked); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(unpacked, "solutions", "pool.cu")); err != nil || len(b) != 0 {
		t.Errorf("the solution went to the node as %q (%v), want it there and empty", b, err)
	}
	if _, err := os.Stat(filepath.Join(unpacked, ".git")); err == nil {
		t.Error("the course's .git went to the node")
	}
	src := []byte("kernel")
	blobs := map[string][]byte{Hash(tgz): tgz, Hash(src): src}
	files := []File{{Name: "pool.cu", Hash: Hash(src), Size: int64(len(src))}}
	b, err := r.hub.Do(context.Background(), "", &Job{Kind: KindBuild, Course: Hash(tgz), Exercise: "pool", Files: files}, blobs, nil, 0)
	if err != nil || b.Err != "" || string(b.Prog) != "#!prog points=1 kernel" {
		t.Fatalf("build: %v %+v", err, b)
	}
	blobs[Hash(b.Prog)] = b.Prog
	res, err := r.hub.Do(context.Background(), "gpu0/0", &Job{Kind: KindRun, Course: Hash(tgz), Exercise: "pool", Files: files, Prog: &File{Name: "prog", Hash: Hash(b.Prog)}}, blobs, nil, 0)
	if err != nil || res.Output != "ran #!prog points=1 kernel on GPU 0" {
		t.Fatalf("run: %v %+v", err, res)
	}
}

func TestWorkersAreAuthenticatedAndSeeOnlyTheirRuns(t *testing.T) {
	r := newRig(t)
	get := func(secret, path string) int {
		req, _ := http.NewRequest(http.MethodGet, r.srv.URL+Path+path, nil)
		if secret != "" {
			req.Header.Set("Authorization", "Bearer "+secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post := func(secret, path, body string) int {
		req, _ := http.NewRequest(http.MethodPost, r.srv.URL+Path+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post("forged", "hello", `{"role":"gpu","gpus":["0"]}`); c != http.StatusUnauthorized {
		t.Errorf("a forged secret: %d", c)
	}
	if c := get("", "blob/"+strings.Repeat("0", 64)); c != http.StatusUnauthorized {
		t.Errorf("no secret: %d", c)
	}
	ex := &fakeExec{started: make(chan *Job, 1), block: true, stopped: make(chan *Job, 1)}
	r.worker(t, "gpu0", RoleGPU, []string{"0"}, ex)
	<-r.joined
	other := r.hub.Admit("gpu1")
	if c := post(other, "hello", `{"role":"gpu","gpus":["0"]}`); c != http.StatusOK {
		t.Fatalf("the second pilot's hello: %d", c)
	}
	<-r.joined
	secret := []byte("alice's file")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.hub.Do(ctx, "gpu0/0", &Job{Kind: KindCell, Workspace: "w", Files: []File{{Name: "a.cu", Hash: Hash(secret)}}}, map[string][]byte{Hash(secret): secret}, nil, 0)
		done <- err
	}()
	<-ex.started
	if c := get(other, "blob/"+Hash(secret)); c != http.StatusNotFound {
		t.Errorf("another worker fetched a run's file: %d", c)
	}
	// The old secret of a pilot admitted again no longer works.
	r.hub.Admit("gpu1")
	if c := post(other, "next", `{"device":"0"}`); c != http.StatusUnauthorized {
		t.Errorf("a replaced secret: %d", c)
	}
	// The student stops the run: the node is told and the run ends.
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Do after cancel: %v", err)
	}
	if j := <-ex.stopped; j.Workspace != "w" {
		t.Errorf("stopped %+v", j)
	}
}

func TestAWorkerThatGoesStopsItsRuns(t *testing.T) {
	r := newRig(t)
	ex := &fakeExec{started: make(chan *Job, 1), block: true}
	r.worker(t, "gpu0", RoleGPU, []string{"0"}, ex)
	<-r.joined
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := r.hub.Do(context.Background(), "gpu0/0", &Job{Kind: KindCell, Workspace: "w"}, nil, nil, 0)
			done <- err
		}()
	}
	<-ex.started // one taken, the other still in the mailbox (one slot busy... or both taken)
	r.mu.Lock()
	r.now = r.now.Add(2 * time.Minute) // the worker's lease runs out
	r.mu.Unlock()
	r.hub.Expire()
	if d := <-r.left; !slices.Equal(d, []string{"gpu0/0"}) {
		t.Errorf("left %q", d)
	}
	for range 2 {
		var se *StoppedError
		if err := <-done; !errors.As(err, &se) || !strings.Contains(err.Error(), "gpu0") {
			t.Errorf("a run of the gone worker: %v", err)
		}
	}
	if _, err := r.hub.Do(context.Background(), "gpu0/0", &Job{Kind: KindCell}, nil, nil, 0); !errors.Is(err, ErrNoWorker) {
		t.Errorf("a run on a gone GPU: %v", err)
	}
	if _, err := r.hub.Do(context.Background(), "", &Job{Kind: KindBuild}, nil, nil, 0); !errors.Is(err, ErrNoWorker) {
		t.Errorf("a build with no build worker: %v", err)
	}
}

func TestApplyRefusesNamesOutside(t *testing.T) {
	dir := t.TempDir()
	err := Apply(dir, []FileData{{Name: "../x", Data: []byte("x")}, {Name: "/etc/passwd"}, {Name: ".lessons-bin/nvcc"}, {Name: "ok/b.txt", Data: []byte("b")}}, []string{"../../etc"})
	if err == nil || strings.Count(err.Error(), "not written") != 3 {
		t.Errorf("Apply: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ok", "b.txt")); string(b) != "b" {
		t.Errorf("the good file: %q", b)
	}
}

func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"a.cu", "../a", "a/../../b", "/x", "a//b", ".", "a\x00b", "d/e.cu"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		dir := "/srv/ws"
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(p, dir+"/") {
			t.Fatalf("%q passed and lands at %s", name, p)
		}
	})
}

// A cell that makes a Kept name a file (".tmp", which sorts before the
// student's files) loses nothing: the workspace's other files are not
// read as removed (they would be removed from the server's copy), and
// the next cell finds the folder again.
func TestAKeptNameMadeAFileLosesNothing(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.cu"), []byte("int main() {}"), 0o644)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("mine"), 0o644)
	before, _, err := Snapshot(ws)
	if err != nil || len(before) != 2 {
		t.Fatalf("snapshot %v %v", before, err)
	}
	os.WriteFile(filepath.Join(ws, ".tmp"), []byte("a file now"), 0o644)
	changed, removed, _, err := Diff(ws, before)
	if err != nil || len(changed) != 0 || len(removed) != 0 {
		t.Fatalf("after .tmp became a file: changed %v, removed %v, %v", changed, removed, err)
	}

	r := newRig(t)
	w, _ := r.worker(t, "gpu0", RoleGPU, []string{"0"}, &fakeExec{})
	<-r.joined
	os.MkdirAll(filepath.Join(w.Dir, "ws", "ann-day1"), 0o700)
	os.WriteFile(filepath.Join(w.Dir, "ws", "ann-day1", ".tmp"), []byte("left by a cell"), 0o644)
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main() {}"), 0o644) // fakeExec reads it
	files, blobs, _ := Snapshot(ws)
	job := &Job{Kind: KindCell, Workspace: "ann-day1", Files: files, Argv: []string{"sh"}}
	if _, err := r.hub.Do(context.Background(), "gpu0/0", job, blobs, nil, 1<<20); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(w.Dir, "ws", "ann-day1", ".tmp")); err != nil || !st.IsDir() {
		t.Errorf("the node's .tmp after a cell left a file there: %v", err)
	}
}
