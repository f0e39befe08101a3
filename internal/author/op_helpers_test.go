package author

import (
	"slices"
	"strings"
	"testing"
)

// opMutants are the mutants operator op makes of src (a solution with its
// markers), each as its id, then what it changes: the lines it takes out
// (-) and puts in (+), trimmed, after " | ".
func opMutants(t *testing.T, op, src string, others ...string) []string {
	t.Helper()
	s, err := Parse("x.cu", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var other [][]byte
	for _, o := range others {
		other = append(other, []byte(o))
	}
	var out []string
	for _, m := range Mutants(s, []RecordedRun{{Output: "x\n"}}, other...) {
		if m.Op != op {
			continue
		}
		var ch []string
		for _, l := range strings.Split(m.Diff, "\n")[1:] {
			if l != "" {
				ch = append(ch, l[:1]+strings.TrimSpace(l[1:]))
			}
		}
		out = append(out, m.ID+" | "+strings.Join(ch, " ; "))
	}
	return out
}

// wantMutants fails unless got is want.
func wantMutants(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("mutants:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
