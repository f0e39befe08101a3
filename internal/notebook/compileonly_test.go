package notebook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/runner"
)

// What --compile-only runs of a step: nvcc (and cd into the workspace)
// alone; everything else, or an nvcc that would do more than build in
// the workspace, is not run.
func TestBuildPlan(t *testing.T) {
	for _, c := range []struct{ in, run, notRun string }{
		{"nvcc a.cu -o a && ./a", "nvcc a.cu -o a", "./a"},
		{"nvcc -o a a.cu; ./a; nvcc b.cu -o b || true", "nvcc -o a a.cu|nvcc b.cu -o b", "./a|true"},
		{"./run.sh", "", "./run.sh"},
		{`nvcc -DMSG="a && b" x.cu -o x && ./x`, `nvcc -DMSG="a && b" x.cu -o x`, "./x"},
		{"/usr/local/cuda/bin/nvcc x.cu -o x\n./x", "nvcc x.cu -o x", "./x"},
		{"rm -rf ~", "", "rm -rf ~"},
		{"pip install numba numpy matplotlib", "", "pip install numba numpy matplotlib"},
		{"ls -l *.cu", "", "ls -l *.cu"},
		{"nvcc --version | tail -1", "nvcc --version", "tail -1"},
		{"nvcc x.cu & rm -rf ~", "nvcc x.cu", "rm -rf ~"},
		{"mkdir -p build && cd build && nvcc ../a.cu -o a", "cd build|nvcc ../a.cu -o a", "mkdir -p build"},
		{"cd src && nvcc a.cu -o a", "cd src|nvcc a.cu -o a", ""},
		{"cd /tmp && nvcc a.cu", "", "cd /tmp|nvcc a.cu"},
		{"time nvcc -O3 a.cu -o a 2>&1", "nvcc -O3 a.cu -o a 2>&1", ""},
		{"nvcc a.cu -o a > log.txt", "", "nvcc a.cu -o a > log.txt"},
		{"nvcc $(rm -rf ~) a.cu", "", "nvcc $(rm -rf ~) a.cu"},
		{"nvcc `id` a.cu", "", "nvcc `id` a.cu"},
		{"nvcc ${X:-rm} a.cu", "", "nvcc ${X:-rm} a.cu"},
		{"nvcc $NVFLAGS ${ARCH} a.cu -o a", "nvcc $NVFLAGS ${ARCH} a.cu -o a", ""},
		{"nvcc -run a.cu", "", "nvcc -run a.cu"},
		{"nvcc --run a.cu", "", "nvcc --run a.cu"},
		{"nvcc -ccbin ./evil a.cu", "", "nvcc -ccbin ./evil a.cu"},
		{"nvcc -ccbin g++-12 a.cu -o a", "nvcc -ccbin g++-12 a.cu -o a", ""},
		{"nvcc -Xcompiler -fplugin=./p.so a.cu", "", "nvcc -Xcompiler -fplugin=./p.so a.cu"},
		{"nvcc -Xcompiler -O3,-wrapper,sh a.cu", "", "nvcc -Xcompiler -O3,-wrapper,sh a.cu"},
		{"nvcc -forward-unknown-to-host-compiler -B. a.cu", "", "nvcc -forward-unknown-to-host-compiler -B. a.cu"},
		{"nvcc @opts a.cu", "", "nvcc @opts a.cu"},
		{"nvcc a.cu -o ~/.bashrc", "", "nvcc a.cu -o ~/.bashrc"},
		{"nvcc a.cu -o ../../x", "", "nvcc a.cu -o ../../x"},
		{"nvcc a.cu -o/etc/x", "", "nvcc a.cu -o/etc/x"},
		{"LD_PRELOAD=./x.so nvcc a.cu", "", "LD_PRELOAD=./x.so nvcc a.cu"},
		{"./nvcc a.cu", "", "./nvcc a.cu"},
		{"(nvcc a.cu)", "", "(nvcc a.cu)"},
		{"nvcc a.cu \\\n  -o a", "nvcc a.cu    -o a", ""},
		{`nvcc "-DCMP=a<b" a.cu -o a`, `nvcc "-DCMP=a<b" a.cu -o a`, ""},
		{`nvcc "0<`, "", `nvcc "0<`},
		{"nvcc '$(id)' a.cu", "nvcc '$(id)' a.cu", ""},
		{`nvcc "$(id)" a.cu`, "", `nvcc "$(id)" a.cu`},
	} {
		run, skipped := buildPlan(c.in)
		var nr []string
		for _, s := range skipped {
			nr = append(nr, s.Step)
		}
		if got := strings.Join(run, "|"); got != c.run {
			t.Errorf("buildPlan(%q) runs %q, want %q", c.in, got, c.run)
		}
		if got := strings.Join(nr, "|"); got != c.notRun {
			t.Errorf("buildPlan(%q) names as not run %q, want %q", c.in, got, c.notRun)
		}
	}
}

// Every step of a script is either run or named as not run, and what
// runs starts with nvcc or cd.
func FuzzBuildPlan(f *testing.F) {
	f.Add("nvcc a.cu -o a && ./a")
	f.Add(`nvcc "-DX='a;b'" x.cu; ./x || echo 'fail && more'`)
	f.Add("cd a && nvcc $(x) -Xcompiler -O3,-B. `y` > z 2>&1 | q & r")
	f.Fuzz(func(t *testing.T, s string) {
		run, _ := buildPlan(s)
		for _, st := range run {
			if !strings.HasPrefix(st, "nvcc") && !strings.HasPrefix(st, "cd ") {
				t.Fatalf("%q runs %q", s, st)
			}
			if _, why := shellWords(st); why != "" {
				t.Fatalf("%q runs %q, which the shell would run more of: %s", s, st, why)
			}
		}
	})
}

// A fake HOME holds a file; a notebook's ! lines that would delete it or
// install packages are named as not run, its build runs, and its
// program is said not to have run.
func TestCompileOnlyRunsNothingElse(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "keep"), []byte("mine"), 0o644)
	t.Setenv("HOME", home)
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "nvcc"), []byte("#!/bin/sh\necho nvcc ran \"$@\"\nwhile [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; esac; shift; done\n[ -n \"$out\" ] && touch \"$out\"\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "pip"), []byte("#!/bin/sh\necho pip ran\ntouch \"$HOME/pip-ran\"\n"), 0o755)
	src := "In [ ]:\n\n!rm -rf ~\n\nIn [ ]:\n\n!pip install numba numpy matplotlib\n\nIn [ ]:\n\n%%writefile a.cu\nint main() {}\n\n" +
		"In [ ]:\n\n!nvcc a.cu -o a && ./a\n\nIn [ ]:\n\n%%bash\necho bash ran > \"$HOME/bash-ran\"\nnvcc a.cu -o b\n\nIn [ ]:\n\n!rm -f *.cu\n"
	l, err := lesson.Parse("nb.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	var out bytes.Buffer
	env := Env{Runner: runner.Exec{}, Wrapper: bin}
	outcomes, err := Run(context.Background(), l, env, Options{Workspace: ws, CompileOnly: true, KeepGoing: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if b, err := os.ReadFile(filepath.Join(home, "keep")); err != nil || string(b) != "mine" {
		t.Fatalf("!rm -rf ~ ran under --compile-only:\n%s", text)
	}
	for _, f := range []string{"pip-ran", "bash-ran"} {
		if _, err := os.Stat(filepath.Join(home, f)); err == nil {
			t.Errorf("%s: a command ran under --compile-only:\n%s", f, text)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "a.cu")); err != nil {
		t.Errorf("the cleanup cell ran (a.cu is gone): %v", err)
	}
	for _, want := range []string{
		"(not run: rm -rf ~: compile only runs nvcc alone)",
		"(not run: pip install numba numpy matplotlib: compile only runs nvcc alone)",
		"(not run: ./a: compile only runs nvcc alone)",
		"nvcc ran a.cu -o a",
		"✓ run in part: built; not run: ./a",
		"(not run: echo bash ran > \"$HOME/bash-ran\": compile only runs nvcc alone)",
		"nvcc ran a.cu -o b",
		"– not run: compile only: nothing to build",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	n := Count(outcomes)
	if n.OK != 3 || n.Partial != 2 || n.Skipped != 3 || n.Failed != 0 {
		t.Errorf("counts %+v:\n%s", n, text)
	}
	if s := Summary(outcomes); !strings.Contains(s, "3 ok (2 run in part: built, the rest not run), 0 failed, 3 skipped") {
		t.Errorf("summary %q", s)
	}
}

// The cells of a notebook run in their order under --compile-only: a
// cleanup cell after a build never runs before it (it raced the build,
// which failed on most runs of verify --compile-only).
func TestCompileOnlyInOrder(t *testing.T) {
	bin := t.TempDir()
	// an nvcc that fails unless its source is there, and is slow
	os.WriteFile(filepath.Join(bin, "nvcc"), []byte("#!/bin/sh\nsleep 0.2\nfor a; do case $a in *.cu) [ -f \"$a\" ] || { echo missing $a; exit 1; };; esac; done\n"), 0o755)
	src := "In [ ]:\n\n%%writefile a.cu\nint main() {}\n\nIn [ ]:\n\n!nvcc a.cu -o a\n\nIn [ ]:\n\n%%writefile b.cu\nint main() {}\n\nIn [ ]:\n\n!nvcc b.cu -o b\n\nIn [ ]:\n\n!rm -f *.cu\n"
	l, err := lesson.Parse("nb.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, Env{Runner: runner.Exec{}, Wrapper: bin}, Options{Workspace: t.TempDir(), CompileOnly: true, KeepGoing: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outcomes {
		if o.Cell.Number != i+1 || !o.OK && !o.Skipped {
			t.Errorf("cell [%d]: ok=%v %s\n%s", o.Cell.Number, o.OK, o.Reason, out.String())
		}
	}
}
