package exercise

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestRelativeToBaseline: a hidden run's relative_to check is judged
// against the record of the baseline run made before it, in RunAll and in
// Kill alike, by what the library recorded (a stand-in here), whatever
// the program prints.
func TestRelativeToBaseline(t *testing.T) {
	tk := toolkit(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LESSONS_TEST_BIN", self)
	s := spec(t, `timed = true
[[check]]
exit = 0
[[hidden_run]]
name = "baseline"
args = ["10"]
[[hidden_run]]
name = "timed"
args = ["SPAN"]
[[check]]
run = "baseline"
exit = 0
[[check]]
run = "timed"
stat = "kernel_span_ms"
relative_to = "baseline"
at_most = 1.2
`)
	for _, tc := range []struct {
		span string
		pass bool
		got  string
	}{
		{"11", true, ""},
		{"15", false, "1.5 times run baseline's (15 here, 10 there)"},
	} {
		t.Run(tc.span, func(t *testing.T) {
			// The program's span is its argument (the public run's 1);
			// it prints that it was fast whatever it did.
			prog := "// fake: echo 'Speedup: 100x'; a=${1:-1}; [ \"$a\" = SPAN ] && a=" + tc.span + "; \"$LESSONS_TEST_BIN\" fakelib start span$a end\n"
			j := job(t, s, "x.cu", prog)
			b, err := Build(context.Background(), tk, Plain{}, j, 0)
			if err != nil || b.Failed != nil {
				t.Fatalf("build: %v %+v", err, b)
			}
			all, err := RunAll(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			killed, err := Kill(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			for name, v := range map[string]*Verdict{"RunAll": all, "Kill": killed} {
				last := v.Results[len(v.Results)-1]
				if v.Passed() != tc.pass || !strings.HasPrefix(last.Name, "[timed] ") || !strings.Contains(last.Name, "as a multiple of run baseline's: at most 1.2") {
					t.Errorf("%s: passed %v, want %v: %+v", name, v.Passed(), tc.pass, v.Results)
				}
				if tc.got != "" && !strings.Contains(last.Got, tc.got) {
					t.Errorf("%s: got %q, want %q", name, last.Got, tc.got)
				}
			}
		})
	}
}
