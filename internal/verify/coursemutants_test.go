package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
)

// TestCourseMutantsGolden: the mutants verify --mutants makes of every
// solution of the course (this repository's), by exercise, their ids and
// lines, against testdata/course-mutants.golden, and the count of each
// family per exercise (what the GPU run costs). A change to the mutation
// operators shows here as mutants gained or lost; every mutant a spec's
// equivalent_mutants names must still be made. go test -update rewrites
// the golden file.
func TestCourseMutantsGolden(t *testing.T) {
	c, err := course.Load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	total := 0
	for _, x := range c.Exercises {
		mt, _, err := loadMutantTarget(c, x)
		if err != nil {
			t.Fatal(err)
		}
		if mt == nil {
			continue
		}
		// The replay mutant is made from the recorded runs, which only
		// the GPU gives: one stands for it.
		ms := author.Mutants(mt.src, []author.RecordedRun{{Output: "x\n"}}, mt.others...)
		made := map[string]bool{}
		diffs := map[string]string{}
		perOp := map[string]int{}
		for _, m := range ms {
			made[m.ID] = true
			diffs[m.ID] = m.Diff
			perOp[m.Op]++
		}
		fmt.Fprintf(&b, "== %s %s: %d mutants\n", x.ID, x.Solution, len(ms))
		for _, op := range author.Operators {
			if perOp[op] > 0 {
				fmt.Fprintf(&b, "# %s %d\n", op, perOp[op])
			}
		}
		for _, m := range ms {
			fmt.Fprintf(&b, "%s line %d\n", m.ID, m.Line)
		}
		total += len(ms)
		for _, e := range mt.spec.EquivalentMutants {
			if !made[e.Mutant] {
				t.Errorf("%s: equivalent_mutants names %s, which is no mutant now", x.ID, e.Mutant)
				continue
			}
			// Each entry of the course carries the change it was
			// written for (round 26: a name alone accepts, unrun,
			// whatever change an edit above it brings there).
			switch {
			case strings.TrimSpace(e.Diff) == "":
				t.Errorf("%s: equivalent_mutants' %s has no diff: its mutant is run in every verify --mutants; copy its change:\n%s", x.ID, e.Mutant, diffs[e.Mutant])
			case !slices.Equal(checker.DiffLines(e.Diff), checker.DiffLines(diffs[e.Mutant])):
				t.Errorf("%s: equivalent_mutants accepts %s with a change it no longer makes; it makes now:\n%s", x.ID, e.Mutant, diffs[e.Mutant])
			}
		}
	}
	fmt.Fprintf(&b, "== total %d mutants\n", total)
	golden := filepath.Join("testdata", "course-mutants.golden")
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
		t.Errorf("the course's mutants changed (go test ./internal/verify -run TestCourseMutantsGolden -update, and say why in the commit):\n%s", lineDiff(string(want), b.String()))
	}
}

// lineDiff is the lines of want missing from got (-) and of got missing
// from want (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("-" + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String()
}
