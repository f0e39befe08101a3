package gradebook

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestNoteIsKept: a grade's note (how it was made: a run made again
// alone) survives the gradebook being closed and opened again, and the
// JSON export says it; a grade without one has no "note" key.
func TestNoteIsKept(t *testing.T) {
	b := open(t)
	a := attempt("eve", "pool", Passed)
	a.Note = "graded on a second run, alone on the machine"
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
	got, ok, err := b.Latest("eve", "pool")
	if !ok || err != nil || got.Note != a.Note {
		t.Fatalf("eve's note after reopening: %+v %v %v", got, ok, err)
	}
	s, err := b.Sheet()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Students []struct {
			ID        string
			Exercises map[string]map[string]any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, st := range out.Students {
		note, has := st.Exercises["pool"]["note"]
		switch {
		case st.ID == "eve" && note != a.Note:
			t.Errorf("eve's note in the JSON: %v", note)
		case st.ID == "ann" && has:
			t.Errorf("ann's grade has a note: %v", note)
		}
	}
}
