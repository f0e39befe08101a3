package notebook

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/runner"
)

// tracingRunner stands in for a cell's shell with the statistics library
// preloaded: a command that runs ./prog sends a record with the trace the
// library sent over the stand-in runtime (internal/timeline's recorded
// fixture); ./two sends two programs' records; anything else sends none.
type tracingRunner struct {
	trace []byte
	env   []string
}

func (f *tracingRunner) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	f.env = spec.Env
	script := spec.Argv[len(spec.Argv)-1]
	fmt.Fprintf(out, "ran %s\n", script)
	var key []byte
	for _, kv := range spec.Env {
		if v, ok := strings.CutPrefix(kv, "LESSONS_STATS_KEY="); ok {
			key, _ = hex.DecodeString(v)
		}
	}
	if len(spec.ExtraFiles) != 1 || key == nil {
		return &runner.Result{}, nil
	}
	w := spec.ExtraFiles[0]
	send := func(pid uint64) {
		g := &checker.Guard{RuntimeCopies: 1, Pid: pid}
		start, _ := checker.EncodeFrame(key, 0, checker.FrameStart, &checker.Stats{}, g)
		tr, _ := checker.EncodeTraceFrame(key, 1, f.trace, g)
		end, _ := checker.EncodeFrame(key, 2, checker.FrameEnd, &checker.Stats{Exited: 1}, g)
		w.Write(append(append(start, tr...), end...))
	}
	switch {
	case strings.Contains(script, "./two"):
		send(100)
		send(101)
	case strings.Contains(script, "./prog"):
		send(100)
	}
	return &runner.Result{}, nil
}

func TestRunDrawsACellsTimeline(t *testing.T) {
	trace, err := os.ReadFile("../timeline/testdata/recorded/stub-race.trace")
	if err != nil {
		t.Fatal(err)
	}
	l, err := lesson.Parse("p.md", []byte("# P\n\n```sh run\nnvcc -o prog prog.cu && ./prog\n```\n\n```sh run\nls\n```\n\n```sh run\n./two\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	fake := &tracingRunner{trace: trace}
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, Env{Runner: fake}, Options{Workspace: t.TempDir(), KeepGoing: true,
		Trace: &Trace{Library: "/lib/stats.so", Draw: true, Width: 80}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if len(outcomes) != 3 || len(outcomes[0].Traces) != 1 || outcomes[0].Traces[0].Trace == nil {
		t.Fatalf("outcomes %+v", outcomes)
	}
	// The picture is under the command's output, in the cell.
	first, _, _ := strings.Cut(got, "[2]")
	for _, want := range []string{"ran nvcc -o prog prog.cu && ./prog\ntimeline: ", "stream 2", "reserved  |", "X 1. cudaMemcpyAsync on stream 2"} {
		if !strings.Contains(first, want) {
			t.Errorf("cell [1] lacks %q:\n%s", want, first)
		}
	}
	// A command without a CUDA program says nothing; two programs on one
	// line are named as the reason there is none.
	if o := outcomes[1]; len(o.Traces) != 1 || o.Traces[0].Trace != nil || o.Traces[0].Missing != "" || strings.Contains(got, "[2] !ls\nran ls\n(no timeline") {
		t.Errorf("ls: %+v\n%s", o.Traces, got)
	}
	if o := outcomes[2]; len(o.Traces) != 1 || !strings.Contains(o.Traces[0].Missing, "more than one CUDA program") || !strings.Contains(got, "(no timeline: the command ran more than one CUDA program") {
		t.Errorf("two programs: %+v\n%s", o.Traces, got)
	}
	for _, want := range []string{"LD_PRELOAD=/lib/stats.so", "LESSONS_STATS_CELL=1", "LESSONS_STATS_TRACE=1", "LESSONS_STATS_FD=3"} {
		found := false
		for _, kv := range fake.env {
			found = found || kv == want
		}
		if !found {
			t.Errorf("the cell's environment lacks %s", want)
		}
	}
}

// Without a timeline asked for, nothing is preloaded and no channel is
// open; under --compile-only neither.
func TestNoTraceUnlessAsked(t *testing.T) {
	l, _ := lesson.Parse("p.md", []byte("# P\n\n```sh run\n./prog\n```\n"))
	for _, opt := range []Options{{}, {CompileOnly: true, Trace: &Trace{Library: "/lib/stats.so"}}} {
		fake := &tracingRunner{}
		opt.Workspace = t.TempDir()
		outcomes, err := Run(context.Background(), l, Env{Runner: fake}, opt, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range fake.env {
			if strings.HasPrefix(kv, "LD_PRELOAD=") || strings.HasPrefix(kv, "LESSONS_STATS") {
				t.Errorf("%+v: the cell's environment has %s", opt, kv)
			}
		}
		if len(outcomes) == 1 && outcomes[0].Traces != nil {
			t.Errorf("%+v: traces %+v", opt, outcomes[0].Traces)
		}
	}
}
