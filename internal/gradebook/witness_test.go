package gradebook

import (
	"bytes"
	"strings"
	"testing"
)

// TestNotWitnessedIsKept: an attempt whose records the outside witness
// did not compare is kept so, and the CSV (a column only where some
// grade was witnessed), the JSON and the summary say it; one compared,
// or one that never ran, is not marked.
func TestNotWitnessedIsKept(t *testing.T) {
	b := open(t)
	eve := attempt("eve", "pool", Passed)
	eve.Witness = "not witnessed: no outside witness here (a BPF map cannot be made here)"
	ann := attempt("ann", "pool", Passed)
	ann.Witness = Witnessed
	bob := attempt("bob", "pool", Missing) // nothing ran
	for _, a := range []*Attempt{eve, ann, bob} {
		if err := b.Record(a); err != nil {
			t.Fatal(err)
		}
	}
	path := b.Path
	b.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := b.Sheet()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.NotWitnessed(); len(got) != 1 || got[0].Student != "eve" || got[0].Witness != eve.Witness {
		t.Fatalf("not witnessed after reopening: %+v", got)
	}
	var csv bytes.Buffer
	if err := s.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if want := "student,pool,total,not_witnessed\nann,10,10,\nbob,0,0,\neve,10,10,pool\n"; csv.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", csv.String(), want)
	}
	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"witness": "not witnessed: no outside witness here`) || !strings.Contains(js.String(), `"witness": "compared"`) {
		t.Errorf("json: %s", js.String())
	}
	var sum bytes.Buffer
	s.WriteSummary(&sum, 80)
	if !strings.Contains(sum.String(), "1 grade not witnessed from outside the programs") {
		t.Errorf("summary: %s", sum.String())
	}
	// None witnessed: the summary says so, the CSV keeps its columns.
	s.Grades["ann"]["pool"].Witness = "not witnessed: no outside witness here"
	sum.Reset()
	s.WriteSummary(&sum, 80)
	csv.Reset()
	s.WriteCSV(&csv)
	if !strings.Contains(sum.String(), "No grade was witnessed from outside the programs") || strings.Contains(csv.String(), "not_witnessed") {
		t.Errorf("none witnessed: summary %q, csv %q", sum.String(), csv.String())
	}
	// A sheet whose every grade was compared keeps its columns.
	s.Grades["eve"]["pool"].Witness = Witnessed
	s.Grades["ann"]["pool"].Witness = Witnessed
	csv.Reset()
	s.WriteCSV(&csv)
	if strings.Contains(csv.String(), "not_witnessed") {
		t.Errorf("csv with every grade compared: %s", csv.String())
	}
}
