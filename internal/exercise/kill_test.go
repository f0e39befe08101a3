package exercise

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// TestKillStopsAtFirstFailure: a mutant that fails its public run is not
// run again for the hidden run; one that passes it is; one that passes
// both has every result. RunAll keeps what each run printed.
func TestKillStopsAtFirstFailure(t *testing.T) {
	tk := toolkit(t)
	log := filepath.Join(t.TempDir(), "runs")
	text := fmt.Sprintf("env = { LOG = %q }\n[[check]]\ncontains = \"12 iterations\"\n[[hidden_run]]\nname = \"more\"\nargs = [\"20\"]\nenv = { LOG = %q }\n[[check]]\nrun = \"more\"\ncontains = \"20 iterations\"\n", log, log)
	s := spec(t, text)
	for _, c := range []struct {
		name, prog string
		runs       int
		killedBy   string
	}{
		{"fails the public run", `// fake: echo run >> "$LOG"; echo 3 iterations`, 1, "prints \"12 iterations\""},
		{"fails the hidden run", `// fake: echo run >> "$LOG"; echo 12 iterations`, 2, "[more] prints \"20 iterations\""},
		{"passes", `// fake: echo run >> "$LOG"; echo "${1:-12} iterations"`, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(log)
			j := job(t, s, "x.cu", c.prog+"\n")
			b, err := Build(context.Background(), tk, Plain{}, j, 0)
			if err != nil || b.Failed != nil {
				t.Fatalf("build: %v %+v", err, b)
			}
			v, err := Kill(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(log)
			if got := strings.Count(string(data), "run"); got != c.runs {
				t.Errorf("%d runs, want %d", got, c.runs)
			}
			killed := ""
			for _, r := range v.Results {
				if !r.Pass && killed == "" {
					killed = r.Name
				}
			}
			if killed != c.killedBy {
				t.Errorf("killed by %q, want %q (%+v)", killed, c.killedBy, v.Results)
			}
			if c.killedBy == "" && !checker.Passed(v.Results) {
				t.Errorf("results: %+v", v.Results)
			}
			all, err := RunAll(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if c.killedBy == "" && (!strings.HasSuffix(all.Outputs[""], "\n12 iterations\n") || !strings.HasSuffix(all.Outputs["more"], "\n20 iterations\n")) {
				t.Errorf("RunAll's outputs: %q", all.Outputs)
			}
		})
	}
}

// TestUntilStopsAtTheExpectedFailure: a wrong answer that fails its
// public run with the text it expects is not run again; one that fails
// the public run otherwise is run on (the hidden run holds its text);
// one that never shows its text is run through every run, as RunAll
// runs it, its every failure in the verdict. Started counts the
// programs.
func TestUntilStopsAtTheExpectedFailure(t *testing.T) {
	tk := toolkit(t)
	log := filepath.Join(t.TempDir(), "runs")
	text := fmt.Sprintf("env = { LOG = %q }\n[[check]]\ncontains = \"12 iterations\"\n[[check]]\ncontains = \"sum ok\"\n[[hidden_run]]\nname = \"more\"\nargs = [\"20\"]\nenv = { LOG = %q }\n[[check]]\nrun = \"more\"\ncontains = \"20 iterations\"\n", log, log)
	s := spec(t, text)
	for _, c := range []struct {
		name, prog, expect string
		runs               int
		failed             []string
	}{
		{"shows its text on the public run", `// fake: echo run >> "$LOG"; echo "${1:-12} iterations"`, "sum ok",
			1, []string{`prints "sum ok"`}},
		{"shows it on the hidden run only", `// fake: echo run >> "$LOG"; echo "3 iterations"`, "20 iterations",
			2, []string{`prints "12 iterations"`, `prints "sum ok"`, `[more] prints "20 iterations"`}},
		{"never shows it", `// fake: echo run >> "$LOG"; echo "3 iterations"`, "no such text",
			2, []string{`prints "12 iterations"`, `prints "sum ok"`, `[more] prints "20 iterations"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(log)
			j := job(t, s, "x.cu", c.prog+"\n")
			b, err := Build(context.Background(), tk, Plain{}, j, 0)
			if err != nil || b.Failed != nil {
				t.Fatalf("build: %v %+v", err, b)
			}
			judge := Until(func(r checker.Result) bool { return strings.Contains(r.Name, c.expect) })
			v, err := judge(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(log)
			if got := strings.Count(string(data), "run"); got != c.runs {
				t.Errorf("%d runs, want %d", got, c.runs)
			}
			if v.Started != c.runs {
				t.Errorf("Started %d, want %d", v.Started, c.runs)
			}
			var failed []string
			for _, r := range v.Results {
				if !r.Pass {
					failed = append(failed, r.Name)
				}
			}
			if strings.Join(failed, "; ") != strings.Join(c.failed, "; ") {
				t.Errorf("failed %q, want %q", failed, c.failed)
			}
		})
	}
}

// TestKillRunOrder: Kill makes the runs in the job's RunOrder, so a
// mutant that only the hidden run kills costs one run when that run goes
// first, and says on which run it was killed; an order that is no
// permutation of the runs keeps the spec's order, and a run compared with
// a baseline (relative_to) waits for it.
func TestKillRunOrder(t *testing.T) {
	tk := toolkit(t)
	log := filepath.Join(t.TempDir(), "runs")
	text := fmt.Sprintf("env = { LOG = %q }\n[[check]]\ncontains = \"12 iterations\"\n[[hidden_run]]\nname = \"more\"\nargs = [\"20\"]\nenv = { LOG = %q }\n[[check]]\nrun = \"more\"\ncontains = \"20 iterations\"\n", log, log)
	s := spec(t, text)
	for _, c := range []struct {
		name, prog string
		order      []string
		runs       int
		killed     bool
		killedOn   string
	}{
		{"hidden first, fails it", `// fake: echo run >> "$LOG"; echo 12 iterations`, []string{"more", ""}, 1, true, "more"},
		{"hidden first, fails the public run", `// fake: echo run >> "$LOG"; echo "${1:-3} iterations"`, []string{"more", ""}, 2, true, ""},
		{"hidden first, passes", `// fake: echo run >> "$LOG"; echo "${1:-12} iterations"`, []string{"more", ""}, 2, false, ""},
		{"not a permutation", `// fake: echo run >> "$LOG"; echo 12 iterations`, []string{"more", "more"}, 2, true, "more"},
		{"spec order", `// fake: echo run >> "$LOG"; echo 3 iterations`, nil, 1, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(log)
			j := job(t, s, "x.cu", c.prog+"\n")
			j.RunOrder = c.order
			b, err := Build(context.Background(), tk, Plain{}, j, 0)
			if err != nil || b.Failed != nil {
				t.Fatalf("build: %v %+v", err, b)
			}
			v, err := Kill(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(log)
			if got := strings.Count(string(data), "run"); got != c.runs {
				t.Errorf("%d runs, want %d", got, c.runs)
			}
			if v.Killed != c.killed || v.KilledOn != c.killedOn {
				t.Errorf("killed %v on %q, want %v on %q (%+v)", v.Killed, v.KilledOn, c.killed, c.killedOn, v.Results)
			}
			if c.killed == checker.Passed(v.Results) {
				t.Errorf("results: %+v", v.Results)
			}
		})
	}
	rel := &checker.Spec{HiddenRuns: []checker.HiddenRun{{Name: "base"}, {Name: "more"}, {Name: "other"}}, Checks: []checker.Check{{Run: "more", RelativeTo: "base"}}}
	for _, c := range []struct{ order, want string }{
		{"more,other,base,", "other,base,more,"}, // more waits for its baseline
		{"more,base,,other", "base,more,,other"},
		{"base,more,other,", "base,more,other,"},
		{",more,other", ",base,more,other"}, // not a permutation: the spec's
	} {
		j := &Job{Spec: rel, RunOrder: strings.Split(c.order, ",")}
		if got := strings.Join(runOrder(j), ","); got != c.want {
			t.Errorf("RunOrder %q with more relative to base: %q, want %q", c.order, got, c.want)
		}
	}
}
