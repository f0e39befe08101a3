package exercise

import (
	"context"
	"debug/elf"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// neverImported are names the statistics library's record path must not
// reach through the loader: each could be a program's (refused by
// inspect, but the library does not rely on that). The key comes from the
// initial stack, the writes are raw system calls, the copies its own.
var neverImported = []string{"getenv", "secure_getenv", "unsetenv", "memcpy", "memcmp", "bcmp", "fstat", "getpid", "fcntl", "close", "__gmon_start__", "syscall"}

// TestLibraryImports lists the statistics library's dynamic imports:
// none of neverImported, and the rest as testdata/library/imports.golden
// (go test -run TestLibraryImports -update to accept a change, after
// reading it: a new import is one more name a program must not define).
func TestLibraryImports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	lib, err := tk.StatsLibrary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.DynamicSymbols()
	var got []string
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			continue
		}
		if slices.Contains(neverImported, s.Name) {
			t.Errorf("the statistics library imports %s", s.Name)
		}
		got = append(got, s.Name)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	golden := "testdata/library/imports.golden"
	text := strings.Join(got, "\n") + "\n"
	if *update {
		os.WriteFile(golden, []byte(text), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if string(want) != text {
		t.Errorf("the library's imports changed (go test -run TestLibraryImports -update):\n%s", lineDiff(string(want), text))
	}
	if flags, _ := f.DynValue(elf.DT_FLAGS); len(flags) == 0 || flags[0]&uint64(elf.DF_SYMBOLIC) == 0 || flags[0]&uint64(elf.DF_BIND_NOW) == 0 {
		t.Errorf("the library is not bound to itself and at load (DT_FLAGS %v)", flags)
	}
}

func lineDiff(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestLibraryIgnoresInterposers runs the corpus's memcpy and getenv
// interposers with the library preloaded and no inspection before: the
// record's path reaches neither, so the record verifies and says what the
// program did (no cudaMalloc), whatever they do.
func TestLibraryIgnoresInterposers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	lib, err := tk.StatsLibrary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"asm_memcpy", "asm_getenv"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			prog := filepath.Join(dir, "program")
			if out, err := exec.Command(tk.NVCC.Path, "-cudart", "shared", "-o", prog, "testdata/corpus/"+name+".cu").CombinedOutput(); err != nil {
				t.Fatalf("nvcc: %v\n%s", err, out)
			}
			rec, out := runOverFake(t, lib, dir, nil)
			if !strings.Contains(out, "one allocation") {
				t.Fatalf("output %q", out)
			}
			wantStats(t, rec.Stats, map[string]float64{"malloc_calls": 0, "exited": 1})
		})
	}
}
