package render

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// TestCheckCell: a spec whose checks are all about output and exit status
// becomes Python that applies them; one with a statistic cannot.
func TestCheckCell(t *testing.T) {
	zero := 0
	spec := &checker.Spec{Checks: []checker.Check{
		{Name: "says done", Contains: `done "ok"`},
		{Name: "no error", NotContains: "error"},
		{Name: "prints a sum", Regex: `sum = \d+`},
		{Name: "exits 0", Exit: &zero},
	}}
	got := checkCell(spec, "./pool", "--n 4")
	for _, want := range []string{
		`run = subprocess.run("./pool --n 4", shell=True, capture_output=True, text=True)`,
		`if "done \"ok\"" not in out: failed.append("says done")`,
		`if "error" in out: failed.append("no error")`,
		`if not re.search("sum = \\d+", out, re.M): failed.append("prints a sum")`,
		`if run.returncode != 0: failed.append("exits 0")`,
		`"all 4 checks pass"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("check cell lacks %s:\n%s", want, got)
		}
	}
	spec.Checks = append(spec.Checks, checker.Check{Name: "frees all", Stat: "leaked_bytes"})
	if got := checkCell(spec, "./pool", ""); got != "" {
		t.Errorf("a statistic's check became Python:\n%s", got)
	}
}
