package exercise

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
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
// names a file for the table; WITNESS_ONLY (exercise ids) keeps those
// alone; WITNESS_DEADLINE bounds the wrong answers' runs (seconds).
func TestWitnessCourse(t *testing.T) {
	info, err := gpu.Driver{}.Probe(false)
	if os.Getenv("WITNESS_DRY") != "" {
		// The table made without a GPU (every run fails): to try the
		// test itself.
		info, err = &gpu.Info{Devices: []gpu.Device{{Name: "none", Major: 7, Minor: 5}}}, nil
	}
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
	only := map[string]bool{}
	for _, id := range strings.Fields(strings.ReplaceAll(os.Getenv("WITNESS_ONLY"), ",", " ")) {
		only[id] = true
	}
	for _, x := range c.Exercises {
		if len(only) > 0 && !only[x.ID] {
			continue
		}
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
	}
	for lib, files := range cudaCopies() {
		for _, f := range files {
			fmt.Fprintf(&table, "copy\t%s\t%s\n", lib, f)
		}
	}
	flush()
	// The solutions as a grade runs them: in the sandbox with its rules
	// (the W^X rule and what comes with it) and the witness comparing
	// what a grade compares; then without the witness, for its cost;
	// then, for any that failed, without the W^X rule, to tell the
	// rule's failures from others.
	witnessAll = false
	// One-time costs before any run is timed: the statistics library's
	// build, the copies' search.
	if _, err := tk.StatsLibrary(context.Background()); err != nil {
		t.Fatal(err)
	}
	cudaCopies()
	sandboxed := func(kind, wx string, wit bool, only map[string]bool) (pass, total int, times []time.Duration, failed map[string]bool) {
		t.Setenv("LESSONS_SANDBOX_WX", wx)
		tk.Witness = nil
		if wit {
			tk.Witness = w
		}
		sb, err := TempSandbox("lessons-witness-")
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		failed = map[string]bool{}
		for _, it := range items {
			if it.name != "solution" || it.b == nil || only != nil && !only[it.x.ID] {
				continue
			}
			j := *it.j
			j.Hash = kind
			start := time.Now()
			v, err := RunAll(context.Background(), tk, sb, &j, it.b.Prog, "", 0)
			times = append(times, time.Since(start))
			total++
			if err != nil {
				fmt.Fprintf(&table, "%s\t%s\terror %v\n", kind, it.x.ID, err)
				failed[it.x.ID] = true
				continue
			}
			if v.Passed() {
				pass++
			} else {
				failed[it.x.ID] = true
			}
			row(kind, it.x.ID, it.name, v)
		}
		flush()
		return pass, total, times, failed
	}
	median := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		d = slices.Clone(d)
		slices.Sort(d)
		return d[len(d)/2]
	}
	sum := func(d []time.Duration) (s time.Duration) {
		for _, x := range d {
			s += x
		}
		return s
	}
	pass, total, on, failed := sandboxed("sandbox-wx-on-witness-on", "on", true, nil)
	fmt.Fprintf(&table, "summary\tsandbox, W^X on, witness on\t%d of %d solutions pass\trun median %v, all %v\n", pass, total, median(on), sum(on))
	_, _, off, _ := sandboxed("sandbox-wx-on-witness-off", "on", false, nil)
	fmt.Fprintf(&table, "summary\tsandbox, W^X on, witness off\trun median %v, all %v\n", median(off), sum(off))
	if len(failed) > 0 {
		pass, total, _, _ := sandboxed("sandbox-wx-off", "off", false, failed)
		fmt.Fprintf(&table, "summary\tsandbox, W^X off, witness off, the solutions that failed\t%d of %d pass\n", pass, total)
	}
	witnessAll = true
	tk.Witness = w
	// Every solution and wrong answer in the plain runner, 4 at once
	// (each in a cgroup of its own), every count compared: a wrong
	// answer's runs are left once WITNESS_DEADLINE (seconds, 80) is
	// past.
	limit := 80 * time.Second
	if d, err := time.ParseDuration(os.Getenv("WITNESS_DEADLINE") + "s"); err == nil && d > 0 {
		limit = d
	}
	deadline := time.Now().Add(limit)
	var mu sync.Mutex
	differ := map[string]int{}
	runs, skipped := 0, 0
	sem = make(chan struct{}, 4)
	for _, it := range items {
		if it.b == nil {
			continue
		}
		if time.Now().After(deadline) && it.name != "solution" {
			skipped++
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			v, err := RunAll(context.Background(), tk, Plain{}, it.j, it.b.Prog, "", 0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fmt.Fprintf(&table, "run\t%s\t%s\terror %v\n", it.x.ID, it.name, err)
				return
			}
			runs++
			for _, r := range v.Results {
				if r.Name != checker.WitnessCheckName || r.Pass {
					continue
				}
				for _, d := range strings.Split(strings.TrimSuffix(r.Got[strings.Index(r.Got, "(")+1:], ")"), "; ") {
					name, _, _ := strings.Cut(d, ":")
					differ[name]++
				}
			}
			row("plain", it.x.ID, it.name, v)
			flush()
		}()
	}
	wg.Wait()
	var names []string
	for n := range differ {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(&table, "summary\tplain\t%d runs (%d wrong answers left for time), every probe compared\n", runs, skipped)
	for _, n := range names {
		fmt.Fprintf(&table, "summary\tdiffer\t%s\tin %d of %d runs (witnessed as a grade compares it: %v)\n", n, differ[n], runs, witnessed[n])
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
