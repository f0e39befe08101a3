package author

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureRuns are the recorded runs the fixtures' replay mutants print.
var fixtureRuns = []RecordedRun{
	{Output: "8 iterations\ndone \"ok\"\n"},
	{Name: "more", Args: []string{"20", "3"}, Output: "20 iterations\n"},
	{Name: "env", Args: []string{"20"}, Env: map[string]string{"N": "4"}, Output: "4 streams\n"},
}

// TestMutantsGolden: every mutant of each fixture, its id and its diff,
// against testdata/mutants/NAME.golden (go test -update rewrites them).
func TestMutantsGolden(t *testing.T) {
	fixtures, _ := filepath.Glob("testdata/mutants/*.[ch]*")
	if len(fixtures) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range fixtures {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src, err := Parse(f, data)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			ops := map[string]int{}
			for _, m := range Mutants(src, fixtureRuns) {
				fmt.Fprintf(&b, "== %s\n%s", m.ID, m.Diff)
				ops[m.Op]++
				if strings.Contains(string(m.Data), "SOLUTION") || strings.Contains(string(m.Data), dropped) {
					t.Errorf("%s keeps a marker:\n%s", m.ID, m.Data)
				}
			}
			golden := strings.TrimSuffix(f, filepath.Ext(f)) + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("mutants of %s:\n%s\nwant:\n%s", f, b.String(), want)
			}
			if ops["replay"] != 1 {
				t.Errorf("%d replay mutants", ops["replay"])
			}
		})
	}
}

// TestMutantsOnlyInRegions: a file without regions has no mutant but
// the one that prints the recorded output, and none without a record.
func TestMutantsOnlyInRegions(t *testing.T) {
	src, err := Parse("x.cu", []byte("int main() {\n    for (int i = 0; i < 4; i++) cudaFreeAsync(p, s);\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ms := Mutants(src, nil); len(ms) != 0 {
		t.Errorf("mutants outside regions: %+v", ms)
	}
	if ms := Mutants(src, []RecordedRun{{Output: "x\n"}}); len(ms) != 1 || ms[0].ID != "replay" {
		t.Errorf("mutants: %+v", ms)
	}
}

func TestCString(t *testing.T) {
	if got, want := cString("a\"b\\c?\t\n"), `"a\"b\\c\?\011\n"`+"\n    \"\""; got != want {
		t.Errorf("cString = %s, want %s", got, want)
	}
}

// TestEveryOperatorAtSeveralSites: across the fixtures, every operator
// makes mutants, each (but the two that replace the whole work) at more
// than one site, and no two mutants of a file are the same program.
func TestEveryOperatorAtSeveralSites(t *testing.T) {
	fixtures, _ := filepath.Glob("testdata/mutants/*.[ch]*")
	sites := map[string]map[string]bool{}
	for _, f := range fixtures {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		programs := map[string]string{}
		for _, m := range Mutants(src, fixtureRuns) {
			if sites[m.Op] == nil {
				sites[m.Op] = map[string]bool{}
			}
			sites[m.Op][fmt.Sprintf("%s:%d", f, m.Line)] = true
			if other, ok := programs[string(m.Data)]; ok {
				t.Errorf("%s: %s and %s are the same program", f, other, m.ID)
			}
			programs[string(m.Data)] = m.ID
		}
	}
	for _, op := range Operators {
		want := 2
		if op == "replay" || op == "no-work" || op == "serialise" {
			want = 1
		}
		if len(sites[op]) < want {
			t.Errorf("operator %s mutates %d sites of the fixtures, want at least %d", op, len(sites[op]), want)
		}
	}
}

// TestReplayPrintsEveryRun: the replay mutant holds every run's
// arguments, environment and output, the most specific run first, and
// makes no CUDA call.
func TestReplayPrintsEveryRun(t *testing.T) {
	data, err := os.ReadFile("testdata/mutants/pipeline.cu")
	if err != nil {
		t.Fatal(err)
	}
	src, err := Parse("pipeline.cu", data)
	if err != nil {
		t.Fatal(err)
	}
	var replay string
	for _, m := range Mutants(src, fixtureRuns) {
		if m.Op == "replay" {
			replay = string(m.Data)
		}
	}
	for _, want := range []string{`strcmp(argv[1], "20") == 0 && strcmp(argv[2], "3") == 0`, `lessons_env(envp, "N=4")`, `"20 iterations\n"`, `"done \"ok\"\n"`, "int main() { return 0; }"} {
		if !strings.Contains(replay, want) {
			t.Errorf("replay lacks %s:\n%s", want, replay)
		}
	}
	if strings.Index(replay, `"N=4"`) > strings.Index(replay, `"20 iterations\n"`) {
		t.Error("the run with an environment is not tried first")
	}
	if strings.Contains(replay, "cudaMalloc") || strings.Contains(replay, "<<<") {
		t.Errorf("replay does CUDA work:\n%s", replay)
	}
}

// FuzzMutants: any source gives mutants without a panic, and every
// mutant but hoist-alloc (which moves a line before its loop) and replay
// (a program of its own) differs from the solution only inside the
// solution regions.
func FuzzMutants(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/mutants/*.[ch]*")
	for _, fx := range fixtures {
		if data, err := os.ReadFile(fx); err == nil && !strings.HasSuffix(fx, ".golden") {
			f.Add(data)
		}
	}
	f.Add([]byte("int main() {\n  for (;;) {\n    // BEGIN SOLUTION\n    k<<<1, 1, 0, s>>>(p);\n    // END SOLUTION\n  }\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := Parse("f.cu", data)
		if err != nil {
			return
		}
		base := string(src.Solution())
		// The solution's lines that are inside regions, counted from
		// its start and from its end.
		m := &mutator{src: src}
		marked := m.marked()
		var kept []bool
		inRegion := make([]bool, len(marked))
		for _, r := range src.Regions {
			a, b := r.SolutionLines()
			for n := a; n <= b; n++ {
				inRegion[n-1] = true
			}
		}
		for i, l := range marked {
			if l != dropped {
				kept = append(kept, inRegion[i])
			}
		}
		for _, mt := range Mutants(src, []RecordedRun{{Output: "x\n"}}) {
			if mt.Op == "replay" || mt.Op == "hoist-alloc" {
				continue
			}
			bl, ml := strings.SplitAfter(base, "\n"), strings.SplitAfter(string(mt.Data), "\n")
			if mt.Op == "no-work" {
				// Changes in every region: the lines outside them are
				// all kept, in order.
				j := 0
				for i, l := range bl {
					if i < len(kept) && kept[i] {
						continue
					}
					for j < len(ml) && ml[j] != l {
						j++
					}
					if j == len(ml) {
						t.Fatalf("no-work loses line %d, outside the regions: %q", i+1, l)
					}
					j++
				}
				continue
			}
			p := 0
			for p < len(bl) && p < len(ml) && bl[p] == ml[p] {
				p++
			}
			s := 0
			for s < len(bl)-p && s < len(ml)-p && bl[len(bl)-1-s] == ml[len(ml)-1-s] {
				s++
			}
			// Lines p .. len(bl)-s-1 of the solution changed (none when
			// lines were only added, between p-1 and p).
			for i := p; i < len(bl)-s; i++ {
				if i < len(kept) && !kept[i] {
					t.Fatalf("%s changes line %d, outside the regions:\n%s", mt.ID, i+1, mt.Diff)
				}
			}
			if p == len(bl)-s { // an insertion: after a region line or before one
				before := p > 0 && p-1 < len(kept) && kept[p-1]
				after := p < len(kept) && kept[p]
				if !before && !after {
					t.Fatalf("%s inserts at line %d, outside the regions:\n%s", mt.ID, p+1, mt.Diff)
				}
			}
		}
	})
}

// TestHostWaitInFunctionCalledInLoop: a region of a function that another
// file calls in a loop, through a function of a third, gets host waits;
// without those files it runs in no loop, and gets none.
func TestHostWaitInFunctionCalledInLoop(t *testing.T) {
	res := []byte("struct P {\n    void do_free(void* p, cudaStream_t s) {\n        // BEGIN SOLUTION\n        cudaEventRecord(e_, s);\n        // END SOLUTION\n    }\n    cudaEvent_t e_;\n};\n")
	iface := []byte("struct R {\n    void free(void* p, cudaStream_t s) { do_free(p, s); }\n};\n")
	main := []byte("int main() {\n    for (int r = 0; r < 8; r++) {\n        pool.free(x, s);\n    }\n}\n")
	src, err := Parse("p.h", res)
	if err != nil {
		t.Fatal(err)
	}
	count := func(ms []Mutant) (n int) {
		for _, m := range ms {
			if m.Op == "host-wait" {
				n++
			}
		}
		return n
	}
	if n := count(Mutants(src, nil)); n != 0 {
		t.Errorf("%d host waits without the files that call it in a loop", n)
	}
	if n := count(Mutants(src, nil, iface, main)); n != 3 {
		t.Errorf("%d host waits, want 3 (device, stream s, an event on s)", n)
	}
}

// TestReplayPython: a Python exercise's replay mutant is a Python script
// that prints each run's output (python3 runs it): C appended to the
// solution was a SyntaxError, killed by exit whatever the spec's checks,
// so verify --mutants said the spec caught a replay it never judged.
func TestReplayPython(t *testing.T) {
	src, err := Parse("handoff.py", []byte("import cupy\n# BEGIN SOLUTION\nprint('ok')\n# END SOLUTION\n"))
	if err != nil {
		t.Fatal(err)
	}
	runs := append([]RecordedRun{{Args: []string{"x"}, Output: "tabs\tand \"quotes\" \\ é\n"}}, fixtureRuns...)
	var replay []byte
	for _, m := range Mutants(src, runs) {
		if m.Op == "replay" {
			replay = m.Data
		}
	}
	if replay == nil || strings.Contains(string(replay), "#include") || strings.Contains(string(replay), "import cupy") {
		t.Fatalf("replay:\n%s", replay)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to run the replay")
	}
	file := filepath.Join(t.TempDir(), "handoff.py")
	if err := os.WriteFile(file, replay, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{nil, "", fixtureRuns[0].Output},
		{[]string{"x"}, "", runs[0].Output},
		{[]string{"zzz"}, "", runs[0].Output},
		{[]string{"20", "3"}, "", "20 iterations\n"},
		{[]string{"20"}, "N=4", "4 streams\n"},
		{[]string{"20"}, "N=5", runs[0].Output},
	} {
		cmd := exec.Command(py, append([]string{file}, c.args...)...)
		cmd.Env = append(os.Environ(), c.env)
		out, err := cmd.Output()
		if err != nil || string(out) != c.want {
			t.Errorf("python3 replay %q with %q: %q, %v; want %q", c.args, c.env, out, err, c.want)
		}
	}
}
