package author

import (
	"flag"
	"fmt"
	"os"
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
