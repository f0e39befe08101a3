package cells

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/runner"
)

// countingNVCC is a stand-in nvcc that notes each call and writes
// "built from" and its source to its -o.
func countingNVCC(t *testing.T) (buildcache.Compiler, func() int) {
	t.Helper()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo x >> ` + calls + `
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    *.cu) src="$1" ;;
  esac
  shift
done
grep -q error "$src" && { echo "$src(1): error: bad" >&2; exit 1; }
{ echo "built from"; cat "$src"; } > "$out"
`
	p := filepath.Join(dir, "nvcc")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return buildcache.Compiler{Path: p, Version: "13.0.88", Arch: "sm_90"}, func() int {
		data, _ := os.ReadFile(calls)
		return strings.Count(string(data), "x")
	}
}

func cellSpec(ws, script string) runner.Spec {
	return runner.Spec{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Env: []string{"PATH=" + filepath.Join(ws, ".bin") + ":/usr/bin:/bin"}}
}

func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, text := range files {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// The class's copies of one cell build once, outside the queue, into the
// shared cache; a copy that differs in a byte of its source or of a
// header it includes builds again; what the shared cache does not take
// (flags that name files, includes out of the folder, a link out of it)
// is left to the cell.
func TestPrebuildSharesIdenticalBuilds(t *testing.T) {
	comp, calls := countingNVCC(t)
	cache := &buildcache.Cache{Dir: t.TempDir(), MaxBytes: 1 << 20, Shared: true}
	c := testRoom(t, func(c *Config) { c.SharedCache, c.Compiler = cache, comp })
	const step = "nvcc -o hello hello.cu && ./hello"
	stub := map[string]string{"hello.cu": "#include \"util.h\"\nint main() {}\n", "util.h": "// v1\n"}
	for range 3 {
		c.prebuild(context.Background(), "ann", workspace(t, stub), cellSpec("", step), nil)
	}
	if n := calls(); n != 1 {
		t.Fatalf("three identical copies built %d times, want 1", n)
	}
	ws := workspace(t, stub)
	spec := cellSpec(ws, step)
	key, _, err := c.builds.key(buildcache.Parse([]string{"-o", "hello", "hello.cu"}, comp.Arch), ws, spec.Env)
	if err != nil || !cache.Has(key) {
		t.Fatalf("the shared cache lacks the copies' build: %v", err)
	}
	// The wrapper of any copy finds it, whatever else lies beside it.
	os.WriteFile(filepath.Join(ws, "other.h"), []byte("anything"), 0o644)
	log, ok := cache.GetShared(comp, []string{"-o", "hello", "hello.cu"}, ws, spec.Env)
	if data, _ := os.ReadFile(filepath.Join(ws, "hello")); !ok || !strings.HasPrefix(string(data), "built from\n#include") {
		t.Fatalf("the wrapper's look-up: ok %v, %q, log %q", ok, data, log)
	}
	changed := map[string]string{"hello.cu": stub["hello.cu"], "util.h": "// v2\n"}
	c.prebuild(context.Background(), "ann", workspace(t, changed), cellSpec("", step), nil)
	if n := calls(); n != 2 {
		t.Fatalf("a changed header: %d builds, want 2", n)
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.cu"), []byte("secret"), 0o644)
	linked := workspace(t, nil)
	os.Symlink(filepath.Join(outside, "secret.cu"), filepath.Join(linked, "hello.cu"))
	fifo := workspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(fifo, "hello.cu"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		ws, step string
	}{
		{workspace(t, stub), "nvcc -I. -o hello hello.cu"},
		{workspace(t, stub), "nvcc -o hello hello.cu -Xcompiler -include/etc/x"},
		{workspace(t, stub), "nvcc -o hello $SRC"},
		{workspace(t, map[string]string{"hello.cu": "#include \"../x.h\"\n"}), step},
		{workspace(t, map[string]string{"hello.cu": "#include </dev/shm/x.h>\n"}), step},
		{workspace(t, map[string]string{"hello.cu": "error\n"}), step},
		{linked, step},
		{fifo, step},
	} {
		c.prebuild(context.Background(), "ann", w.ws, cellSpec(w.ws, w.step), nil)
		if _, err := os.Stat(filepath.Join(w.ws, "hello")); err == nil {
			t.Errorf("%s: the prebuild wrote into the workspace", w.step)
		}
	}
	// Only the source with an error was worth a build (it failed, and is
	// not tried again); the rest never reached nvcc.
	if n := calls(); n != 3 {
		t.Errorf("%d builds, want 3", n)
	}
	c.prebuild(context.Background(), "ann", workspace(t, map[string]string{"hello.cu": "error\n"}), cellSpec("", step), nil)
	if n := calls(); n != 3 {
		t.Errorf("a failed build was tried again: %d builds", n)
	}
}

func TestNvccSteps(t *testing.T) {
	for script, want := range map[string]string{
		"nvcc -o a a.cu && ./a":                  "-o a a.cu",
		"set -e\nnvcc -o a a.cu\nnvcc b.cu -o b": "-o a a.cu|b.cu -o b",
		"nvcc -o a \"$X\".cu && ./a":             "",
		"cd sub; nvcc -o a a.cu":                 "-o a a.cu",
		"/usr/bin/nvcc -o a a.cu":                "",
		"nvcc -o a a.cu > log":                   "",
	} {
		var got []string
		for _, s := range nvccSteps(runner.Spec{Argv: []string{"sh", "-c", script}}) {
			got = append(got, strings.Join(s, " "))
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("%q: %q, want %q", script, g, want)
		}
	}
}

// A cell the queue would refuse (its student has as many runs as the
// class allows) is refused before its build: a refused run costs none.
func TestRefusedCellBuildsNothing(t *testing.T) {
	comp, calls := countingNVCC(t)
	cache := &buildcache.Cache{Dir: t.TempDir(), MaxBytes: 1 << 20, Shared: true}
	r := testRoom(t, func(c *Config) { c.SharedCache, c.Compiler = cache, comp; c.Queue.MaxQueued = 1 })
	held, err := r.cfg.Queue.Enqueue("ann", false)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Done(0)
	ws := workspace(t, map[string]string{"hello.cu": "int main() {}\n"})
	q := queued{r: r, student: "ann", dir: t.TempDir(), inner: func(int) runner.Runner { return runner.Exec{} }}
	_, err = q.Run(context.Background(), cellSpec(ws, "nvcc -o hello hello.cu"), io.Discard)
	if qf := (*queue.FullError)(nil); !errors.As(err, &qf) || calls() != 0 {
		t.Fatalf("a cell past the limit: %v, %d builds", err, calls())
	}
}
