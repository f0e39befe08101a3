package exercise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/witness"
)

// TestWitnessDiagnose runs a few solutions on a GPU with the witness in
// each arrangement (none; probes set, run in no cgroup of its own; run in
// the witness's cgroup; the runtime's probes alone; the driver's alone)
// and under the sandbox with the write-exec rule and without, and
// writes each verdict with the program's output to WITNESS_DIAG. It
// needs a GPU and BPF; it skips without them.
func TestWitnessDiagnose(t *testing.T) {
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	tk := realToolkit(t)
	tk.NVCC.Arch = info.Devices[0].Arch()
	root, _ := filepath.Abs("../..")
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	defer func() {
		t.Log("\n" + out.String())
		if f := os.Getenv("WITNESS_DIAG"); f != "" {
			os.WriteFile(f, []byte(out.String()), 0o644)
		}
	}()
	subset := func(lib string) []witness.Probe {
		var ps []witness.Probe
		for _, p := range cudaProbes {
			if lib == "" || p.Lib == lib {
				ps = append(ps, p)
			}
		}
		return ps
	}
	say := func(arr, id string, v *Verdict, err error) {
		if err != nil {
			fmt.Fprintf(&out, "%s\t%s\terror %v\n", arr, id, err)
			return
		}
		var fails []string
		for _, r := range v.Results {
			if !r.Pass {
				fails = append(fails, r.Name+": "+r.Got)
			}
		}
		o := v.Output
		if len(o) > 400 {
			o = o[len(o)-400:]
		}
		fmt.Fprintf(&out, "%s\t%s\tpassed=%v\tfails=%q\toutput=%q\n", arr, id, v.Passed(), fails, o)
	}
	for _, id := range []string{"async-pipeline", "block-pool", "vmm-growable"} {
		x, err := c.Exercise(id)
		if err != nil {
			continue
		}
		j, _ := NewJob(c, x, c.Path(x.Solution))
		b, err := Build(context.Background(), tk, Plain{}, j, 0)
		if err != nil || b.Failed != nil {
			fmt.Fprintf(&out, "build\t%s\t%v %+v\n", id, err, b)
			continue
		}
		one := func(arr string) {
			v, err := RunAll(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			say(arr, id, v, err)
		}
		tk.Witness = nil
		one("none")
		for _, lib := range []string{"", "libcudart", "libcuda.so"} {
			w, err := witness.Open(subset(lib))
			if err != nil {
				fmt.Fprintf(&out, "open\t%v\n", err)
				continue
			}
			for l, f := range runtimeFiles(b.Prog) {
				if err := w.Attach(l, f); err != nil {
					fmt.Fprintf(&out, "attach\t%s\t%v\n", f, err)
				}
			}
			tk.Witness = nil
			one("probes[" + lib + "],no-cgroup")
			tk.Witness = w
			witnessAll = true
			one("probes[" + lib + "],cgroup")
			witnessAll = false
			tk.Witness = nil
			w.Close()
		}
		for _, wx := range []string{"on", "off"} {
			t.Setenv("LESSONS_SANDBOX_WX", wx)
			sb, err := TempSandbox("lessons-diag-")
			if err != nil {
				fmt.Fprintf(&out, "sandbox\t%v\n", err)
				continue
			}
			jj := *j
			jj.Hash = "wx" + wx
			v, err := RunAll(context.Background(), tk, sb, &jj, b.Prog, "", 0)
			say("sandbox-wx-"+wx, id, v, err)
			sb.Close()
		}
	}
}

// TestNeedWitness: LESSONS_WITNESS=require refuses a grade without the
// outside witness, saying why there is none and what to do; otherwise
// the grade goes on, each grade marked not witnessed.
func TestNeedWitness(t *testing.T) {
	t.Setenv("LESSONS_WITNESS", "")
	if err := NeedWitness(nil, "a BPF map cannot be made here"); err != nil {
		t.Errorf("not required: %v", err)
	}
	t.Setenv("LESSONS_WITNESS", "require")
	err := NeedWitness(nil, "a BPF map cannot be made here")
	if !errors.Is(err, ErrNoWitness) || !strings.Contains(err.Error(), "a BPF map cannot be made here") || !strings.Contains(err.Error(), "grade as root") {
		t.Errorf("required, none: %v", err)
	}
	if w, why := OpenWitness(); w != nil {
		defer w.Close()
		if err := NeedWitness(w, why); err != nil {
			t.Errorf("required, and on: %v", err)
		}
	}
}
