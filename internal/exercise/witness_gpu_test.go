package exercise

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/witness"
	"github.com/cudalessons/lessons/internal/wrong"
)

// TestWitnessCourse measures the outside witness over the course on a
// GPU: every count of every probe beside the record's figure, for each
// solution and wrong answer (as the results of its witness check), and
// each solution under the sandbox's write-exec rule. It needs a GPU,
// nvcc and BPF (root); it skips without them, as on CI. WITNESS_OUT
// names a file for the table.
func TestWitnessCourse(t *testing.T) {
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	w, why := OpenWitness()
	if w == nil {
		t.Skipf("needs BPF: %s", why)
	}
	defer w.Close()
	tk := realToolkit(t)
	tk.NVCC.Arch = info.Devices[0].Arch()
	tk.Witness = w
	witnessAll = true
	defer func() { witnessAll = false }()
	root, _ := filepath.Abs("../..")
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	var sink *os.File
	if out := os.Getenv("WITNESS_OUT"); out != "" {
		sink, _ = os.Create(out)
		defer sink.Close()
	}
	flush := func() {
		if sink != nil {
			sink.WriteString(table.String())
			table.Reset()
		}
	}
	row := func(kind, id, name string, v *Verdict) {
		got, fails := "(no witness result)", []string{}
		for _, r := range v.Results {
			if r.Name == checker.WitnessCheckName {
				got = r.Got
			} else if !r.Pass {
				fails = append(fails, r.Name+": "+r.Got)
			}
		}
		o := v.Output
		if len(o) > 200 {
			o = o[len(o)-200:]
		}
		fmt.Fprintf(&table, "%s\t%s\t%s\tpassed=%v\t%s\tfails=%q\toutput=%q\n", kind, id, name, v.Passed(), got, fails, o)
	}
	type item struct {
		x    *course.Exercise
		name string
		file string
		b    *Built
		j    *Job
	}
	var items []*item
	for _, x := range c.Exercises {
		items = append(items, &item{x: x, name: "solution", file: c.Path(x.Solution)})
		answers, _ := wrong.List(c, x)
		for _, a := range answers {
			p, err := wrong.Load(c, a)
			if err != nil {
				continue
			}
			file := c.Path(a.Path)
			if p.Source != nil {
				file = filepath.Join(t.TempDir(), filepath.Base(x.Solution))
				os.WriteFile(file, p.Source, 0o644)
			}
			items = append(items, &item{x: x, name: a.Path, file: file})
		}
	}
	// Builds, 8 at once.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for n, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			j, err := NewJob(c, it.x, it.file)
			if err != nil {
				return
			}
			// A folder of its own: answers of one exercise share its.
			j.Dir = filepath.Join(root, ".lessons", "witness", fmt.Sprint(n))
			it.j = j
			b, err := Build(context.Background(), tk, Plain{}, j, 0)
			if err == nil && b.Failed == nil {
				it.b = b
			}
		}()
	}
	wg.Wait()
	libs := map[string]bool{}
	deadline := time.Now().Add(80 * time.Second)
	for _, it := range items {
		if it.b == nil {
			fmt.Fprintf(&table, "build\t%s\t%s\tfailed\n", it.x.ID, it.name)
			continue
		}
		for lib, file := range runtimeFiles(it.b.Prog) {
			if !libs[file] {
				libs[file] = true
				table.WriteString(symbolsOf(lib, file))
			}
		}
		if time.Now().After(deadline) && it.name != "solution" {
			continue
		}
		v, err := RunAll(context.Background(), tk, Plain{}, it.j, it.b.Prog, "", 0)
		if err != nil {
			fmt.Fprintf(&table, "run\t%s\t%s\terror %v\n", it.x.ID, it.name, err)
			continue
		}
		row("plain", it.x.ID, it.name, v)
		flush()
	}
	// The solutions under the sandbox, with the write-exec rule and
	// without.
	tk.Witness = nil
	for _, wx := range []string{"on", "off"} {
		t.Setenv("LESSONS_SANDBOX_WX", wx)
		sb, err := TempSandbox("lessons-witness-")
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.name != "solution" || it.b == nil {
				continue
			}
			j := *it.j
			j.Hash = "wx" + wx
			v, err := RunAll(context.Background(), tk, sb, &j, it.b.Prog, "", 0)
			if err != nil {
				fmt.Fprintf(&table, "wx=%s\t%s\terror %v\n", wx, it.x.ID, err)
				continue
			}
			row("sandbox-wx-"+wx, it.x.ID, it.name, v)
		}
		sb.Close()
	}
	flush()
}

// symbolsOf lists, for the probes of lib, every definition of their
// symbols in file: name, version, address, type.
func symbolsOf(lib, file string) string {
	f, err := elf.Open(file)
	if err != nil {
		return "symbols\t" + file + "\t" + err.Error() + "\n"
	}
	defer f.Close()
	want := map[string]bool{}
	for _, p := range cudaProbes {
		if p.Lib == lib {
			for _, s := range p.Symbols {
				want[s] = true
			}
		}
	}
	var b strings.Builder
	dyn, _ := f.DynamicSymbols()
	for _, s := range dyn {
		if want[s.Name] {
			fmt.Fprintf(&b, "symbols\t%s\t%s@%s\t%#x\t%v\t%v\n", filepath.Base(file), s.Name, s.Version, s.Value, elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info))
		}
	}
	offs, _ := witness.Offsets(file)
	for n := range want {
		fmt.Fprintf(&b, "offsets\t%s\t%s\t%v\n", filepath.Base(file), n, offs[n])
	}
	return b.String()
}
