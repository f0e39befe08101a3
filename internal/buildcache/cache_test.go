package buildcache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cudalessons/lessons/internal/runner"
)

// fakeNVCC writes a script that acts as nvcc: it counts its calls, fails on
// a source holding "error", and writes "built from <sources>" to -o.
func fakeNVCC(t *testing.T) (Compiler, string) {
	t.Helper()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo x >> ` + calls + `
out=""; srcs=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    *.cu) srcs="$srcs $1"; if grep -q error "$1"; then echo "$1(1): error: bad" >&2; exit 1; fi ;;
  esac
  shift
done
echo "warning: fake" >&2
echo "built from$srcs" > "$out"; chmod +x "$out"
`
	p := filepath.Join(dir, "nvcc")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return Compiler{Path: p, Version: "13.0.88", Arch: "sm_90"}, calls
}

func calls(t *testing.T, file string) int {
	data, _ := os.ReadFile(file)
	return strings.Count(string(data), "x")
}

func TestBuildHitsAndMisses(t *testing.T) {
	comp, callFile := fakeNVCC(t)
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("#include \"util.h\"\nint main(){}\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "util.h"), []byte("// v1\n"), 0o644)
	build := func() (*Result, string) {
		var out bytes.Buffer
		res, err := c.Build(context.Background(), runner.Exec{}, comp, []string{"a.cu", "-o", "a"}, ws, nil, &out)
		if err != nil {
			t.Fatal(err)
		}
		return res, out.String()
	}
	res, out := build()
	if res.Hit || calls(t, callFile) != 1 || !strings.Contains(out, "warning: fake") {
		t.Fatalf("first build: hit=%v calls=%d out=%q", res.Hit, calls(t, callFile), out)
	}
	os.Remove(filepath.Join(ws, "a"))
	res, out = build()
	if !res.Hit || calls(t, callFile) != 1 {
		t.Fatalf("second build: hit=%v calls=%d", res.Hit, calls(t, callFile))
	}
	if !strings.Contains(out, "warning: fake") {
		t.Errorf("a hit does not replay the compiler's warnings: %q", out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a")); string(data) != "built from a.cu\n" {
		t.Errorf("output after a hit = %q", data)
	}
	// A change to an included header is a miss.
	os.WriteFile(filepath.Join(ws, "util.h"), []byte("// v2\n"), 0o644)
	if res, _ := build(); res.Hit || calls(t, callFile) != 2 {
		t.Errorf("after a header change: hit=%v calls=%d", res.Hit, calls(t, callFile))
	}
	s, _ := c.Stats()
	if s.Hits != 1 || s.Misses != 2 || s.Entries != 2 {
		t.Errorf("stats = %+v", s)
	}
	if err := c.Clean(); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Stats(); s.Entries != 0 || s.Hits != 0 {
		t.Errorf("after clean: %+v", s)
	}
}

func TestFailedBuildIsNotKept(t *testing.T) {
	comp, callFile := fakeNVCC(t)
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "bad.cu"), []byte("error\n"), 0o644)
	for i := 0; i < 2; i++ {
		var out bytes.Buffer
		res, err := c.Build(context.Background(), runner.Exec{}, comp, []string{"-o", "bad", "bad.cu"}, ws, nil, &out)
		if err != nil || res.Hit || res.Run.OK() || !strings.Contains(out.String(), "bad.cu(1): error: bad") {
			t.Fatalf("build %d: %+v %v %q", i, res, err, out.String())
		}
	}
	if calls(t, callFile) != 2 {
		t.Errorf("nvcc called %d times, want 2", calls(t, callFile))
	}
}

func TestConcurrentBuilds(t *testing.T) {
	comp, _ := fakeNVCC(t)
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := t.TempDir()
			os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main(){}\n"), 0o644)
			if _, err := c.Build(context.Background(), runner.Exec{}, comp, []string{"a.cu", "-o", "a"}, ws, nil, &bytes.Buffer{}); err != nil {
				t.Error(err)
			}
			if data, err := os.ReadFile(filepath.Join(ws, "a")); err != nil || string(data) != "built from a.cu\n" {
				t.Errorf("output = %q, %v", data, err)
			}
		}()
	}
	wg.Wait()
	if s, _ := c.Stats(); s.Entries != 1 {
		t.Errorf("entries = %d, want 1", s.Entries)
	}
	leftovers, _ := filepath.Glob(filepath.Join(c.Dir, "nvcc", "*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary folders left: %v", leftovers)
	}
}

func TestEvictKeepsTheRecent(t *testing.T) {
	comp, _ := fakeNVCC(t)
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	ws := t.TempDir()
	for i := 0; i < 5; i++ {
		name := string(rune('a'+i)) + ".cu"
		os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat("x", i+1)), 0o644)
		if _, err := c.Build(context.Background(), runner.Exec{}, comp, []string{name, "-o", "out"}, ws, nil, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := c.Stats()
	c.MaxBytes = s.Bytes / 2
	if err := c.Evict(); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Stats()
	if after.Bytes > c.MaxBytes || after.Entries == 0 || after.Entries >= s.Entries {
		t.Errorf("before %+v, after %+v, bound %d", s, after, c.MaxBytes)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args      string
		arch      string
		out       string
		srcs      string
		cacheable bool
		added     bool
	}{
		{"x.cu -o x", "sm_90", "x", "x.cu", true, true},
		{"-arch=sm_75 -o y y.cu", "sm_90", "y", "y.cu", true, false},
		{"-gencode arch=compute_90,code=sm_90 -o y y.cu", "sm_90", "y", "y.cu", true, false},
		{"-c a.cu -o a.o", "", "a.o", "a.cu", true, false},
		{"--version", "sm_90", "", "", false, true},
		{"-run x.cu -o x", "", "x", "x.cu", false, false},
		{"-ox x.cu -lcuda", "", "x", "x.cu", true, false},
		// nvcc's spellings with '=' name the file after it.
		{"-o=x x.cu", "", "x", "x.cu", true, false},
		{"--output-file=x x.cu", "", "x", "x.cu", true, false},
		{"-odir=d -o x x.cu", "", "x", "x.cu", false, false},
		// A dependency file named after the output: a hit would write none.
		{"-MD -c a.cu -o a.o", "", "a.o", "a.cu", false, false},
		{"-MMD -MF a.dep -c a.cu -o a.o", "", "a.o", "a.cu", false, false},
	} {
		cmd := Parse(strings.Fields(tc.args), tc.arch)
		added := len(cmd.Args) > len(strings.Fields(tc.args))
		if cmd.Output != tc.out || strings.Join(cmd.Sources, " ") != tc.srcs || cmd.Cacheable != tc.cacheable || added != tc.added {
			t.Errorf("Parse(%q) = %+v", tc.args, cmd)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("nvcc -o x x.cu -arch=sm_90")
	f.Add("-Xcompiler -Wall -o")
	f.Fuzz(func(t *testing.T, s string) {
		cmd := Parse(strings.Fields(s), "sm_90")
		if cmd.Cacheable && (cmd.Output == "" || len(cmd.Sources) == 0) {
			t.Fatalf("cacheable without output or source: %+v", cmd)
		}
	})
}

// Counts are the hits and misses noted, whatever the entries.
func TestCounts(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	if h, m := c.Counts(); h != 0 || m != 0 {
		t.Fatalf("an empty cache: %d hits, %d misses", h, m)
	}
	for _, hit := range []bool{true, false, true, true} {
		c.Note(hit)
	}
	s, err := c.Stats()
	if h, m := c.Counts(); h != 3 || m != 1 || err != nil || s.Hits != 3 || s.Misses != 1 {
		t.Errorf("counts %d/%d, stats %+v %v", h, m, s, err)
	}
}

// Two builds of different files into one output in one folder at once
// (two checks of one exercise, a watch and a check): each file's entry
// holds its own output, whole, and a later hit of either gets it. nvcc
// writes its output in pieces; the cache once kept, under one file's key,
// the other's half written ("exec format error" at every later hit).
func TestBuildsSharingAnOutput(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "nvcc")
	script := `#!/bin/sh
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    *.cu) src="$1" ;;
  esac
  shift
done
printf 'half of %s ' "$src" > "$out"
sleep 0.05
echo "the rest" >> "$out"; chmod +x "$out"
`
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	comp := Compiler{Path: slow, Version: "13.0.88", Arch: "sm_90"}
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	ws := t.TempDir()
	names := []string{"a.cu", "b.cu", "c.cu", "d.cu"}
	for _, n := range names {
		os.WriteFile(filepath.Join(ws, n), []byte("int main(){} // "+n+"\n"), 0o644)
	}
	var wg sync.WaitGroup
	for round := 0; round < 3; round++ {
		for _, n := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Build(context.Background(), runner.Exec{}, comp, []string{n, "-o", "prog"}, ws, nil, &bytes.Buffer{}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	for _, n := range names {
		res, err := c.Build(context.Background(), runner.Exec{}, comp, []string{n, "-o", "prog"}, ws, nil, &bytes.Buffer{})
		if err != nil || !res.Hit {
			t.Fatalf("%s: hit = %v, %v", n, res != nil && res.Hit, err)
		}
		if data, _ := os.ReadFile(filepath.Join(ws, "prog")); string(data) != "half of "+n+" the rest\n" {
			t.Errorf("%s's hit gave %q", n, data)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(ws, "prog.build-*")); len(left) > 0 {
		t.Errorf("outputs left beside prog: %v", left)
	}
}

// An output named as nvcc allows (-o FILE, -o=FILE, --output-file=FILE)
// is put in place whole, with nothing left beside it; one that is no
// file (/dev/null, a folder) is left to nvcc, as without the cache.
// Before, -o=prog built "prog.build-*" and no prog (the suffix went after
// the '='); -o /dev/null failed where nvcc succeeds (nothing can be made
// beside it), and a hit of the same sources put a file in its place: as
// root, /dev/null became a regular file (seen here, once).
func TestBuildsNameTheOutputAsNvccDoes(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "nvcc")
	script := `#!/bin/sh
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    -o=*) out="${1#-o=}" ;;
    --output-file=*) out="${1#--output-file=}" ;;
  esac
  shift
done
echo built > "$out" || exit 1
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	comp := Compiler{Path: fake, Version: "13.0.88", Arch: "sm_90"}
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("int main(){}\n"), 0o644)
	for _, flag := range [][]string{{"-o", "p1"}, {"-o=p2"}, {"--output-file=p3"}} {
		name := flag[len(flag)-1]
		name = name[strings.LastIndex(name, "=")+1:]
		for round := 0; round < 2; round++ { // a build, then a hit
			res, err := c.Build(context.Background(), runner.Exec{}, comp, append([]string{"a.cu"}, flag...), ws, nil, &bytes.Buffer{})
			if err != nil || !res.Hit && !res.Run.OK() {
				t.Fatalf("%v (round %d): %+v, %v", flag, round, res, err)
			}
			if data, _ := os.ReadFile(filepath.Join(ws, name)); string(data) != "built\n" {
				t.Errorf("%v (round %d): %s holds %q", flag, round, name, data)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(ws, "*build-*")); len(left) > 0 {
		t.Errorf("outputs left beside: %v", left)
	}
	// A folder where the output goes (as /dev/null, it is no file): a
	// build whose sources hit the cache must not put a file in its place.
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := c.Build(context.Background(), runner.Exec{}, comp, []string{"a.cu", "-o", "out"}, ws, nil, &bytes.Buffer{})
	if err != nil || res.Hit || res.Run.OK() {
		t.Errorf("-o out, a folder: %+v, %v (nvcc itself fails to write it)", res, err)
	}
	if st, err := os.Lstat(filepath.Join(ws, "out")); err != nil || !st.IsDir() {
		t.Errorf("the folder out is gone: %v %v", st, err)
	}
}
