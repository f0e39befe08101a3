package gradebook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const mismatch = "statistics do not match what the driver saw: the record claims 16 MiB reserved by a pool, but the driver never listed process 4242"

// TestReviewMarkIsKept: a mark for review survives the gradebook being
// closed and opened again, and every export shows it.
func TestReviewMarkIsKept(t *testing.T) {
	b := open(t)
	a := attempt("eve", "pool", Failed)
	a.MarkForReview(mismatch)
	a.MarkForReview("pool.cu names _exit (line 40), which the exercise's solution does not")
	a.MarkForReview(mismatch) // once only
	if err := b.Record(a); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(attempt("ann", "pool", Passed)); err != nil {
		t.Fatal(err)
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
	got := s.Grades["eve"]["pool"]
	if lines := got.ReviewLines(); len(lines) != 2 || lines[0] != mismatch {
		t.Fatalf("eve's review after reopening: %q", got.Review)
	}
	if s.Grades["ann"]["pool"].Review != "" || len(s.Marked()) != 1 {
		t.Errorf("marked: %d, ann's review %q", len(s.Marked()), s.Grades["ann"]["pool"].Review)
	}
	var csv bytes.Buffer
	if err := s.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if want := "student,pool,total,review\nann,10,10,\neve,0,0,pool\n"; csv.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", csv.String(), want)
	}
	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Students []struct {
			ID        string
			Exercises map[string]struct{ Review []string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, st := range out.Students {
		if n := len(st.Exercises["pool"].Review); (st.ID == "eve") != (n == 2) {
			t.Errorf("json: %s has %d review findings", st.ID, n)
		}
	}
	fb := s.Feedback("eve")
	if !strings.Contains(fb, "Marked for the instructor's review") || !strings.Contains(fb, "statistics do not match what the driver saw") || !strings.Contains(fb, `names \_exit`) {
		t.Errorf("feedback:\n%s", fb)
	}
	if strings.Contains(s.Feedback("ann"), "review") {
		t.Error("an unmarked grade's feedback speaks of review")
	}
}

// A sheet with nothing marked keeps the columns it always had.
func TestCSVWithoutReview(t *testing.T) {
	b := open(t)
	b.Record(attempt("ann", "pool", Passed))
	s, _ := b.Sheet()
	var csv bytes.Buffer
	s.WriteCSV(&csv)
	if strings.Contains(csv.String(), "review") {
		t.Errorf("csv: %s", csv.String())
	}
}
