package notebook

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/runner"
)

func TestFirstCompileErrorOnRecordedNVCC(t *testing.T) {
	out, err := os.ReadFile("testdata/h100-nvcc13-mempool_config.txt")
	if err != nil {
		t.Fatal(err)
	}
	loc, msg := FirstCompileError(string(out))
	if loc != "mempool_config.cu:14" || msg != `identifier "uint64_t" is undefined` {
		t.Errorf("FirstCompileError = %q, %q", loc, msg)
	}
}

func TestFirstCompileError(t *testing.T) {
	for out, want := range map[string]string{
		"x.cu:12:5: error: expected ';' before '}' token\n":      "x.cu:12 expected ';' before '}' token",
		"warning: a\nk.cu(3): catastrophic error: cannot open\n": "k.cu:3 cannot open",
		"ok\nall fine\n": " ",
		"a.cu(9): error: first\nb.cu:2:1: fatal error: second\n":    "a.cu:9 first",
		"/usr/bin/ld: cannot find -lfoo: No such file or directory": " ",
	} {
		loc, msg := FirstCompileError(out)
		if got := loc + " " + msg; got != want {
			t.Errorf("FirstCompileError(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestFirstCUDAError(t *testing.T) {
	out := "start\nCUDA Error: out of memory at pool.cu:41\nmore\n"
	if got := FirstCUDAError(out); got != "CUDA Error: out of memory at pool.cu:41" {
		t.Errorf("FirstCUDAError = %q", got)
	}
	if got := FirstCUDAError("cudaErrorMemoryAllocation returned\n"); got != "cudaErrorMemoryAllocation returned" {
		t.Errorf("FirstCUDAError = %q", got)
	}
}

// Plain gives the programs' output alone: no label, no status line, no
// advice, for a caller that shows those itself.
func TestPlainIsTheOutputAlone(t *testing.T) {
	l, err := lesson.Parse("p.md", []byte("# P\n\n```sh run\necho one\n```\n\n```sh run\necho two; exit 3\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, Env{Runner: runner.Exec{}}, Options{Workspace: t.TempDir(), Cell: 2, Plain: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "two\n" || len(outcomes) != 1 || outcomes[0].OK || outcomes[0].Reason != "exit status 3" {
		t.Errorf("output %q, outcomes %+v", out.String(), outcomes)
	}
}
