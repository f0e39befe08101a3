package gradebook

import (
	"path/filepath"
	"testing"
)

func TestHistoryAndAttempt(t *testing.T) {
	b, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, st := range []string{Failed, Passed, Failed} {
		if err := b.Record(&Attempt{Student: "ann", Exercise: "pool", Status: st, MaxPoints: 10, Checks: []Check{{Name: "c", Passed: st == Passed}}}); err != nil {
			t.Fatal(err)
		}
	}
	b.Record(&Attempt{Student: "bob", Exercise: "pool", Status: Passed})
	h, err := b.History("ann", "pool")
	if err != nil || len(h) != 3 || h[1].Status != Passed || h[0].ID >= h[1].ID {
		t.Fatalf("history: %+v %v", h, err)
	}
	a, ok, err := b.Attempt(h[1].ID)
	if err != nil || !ok || a.Status != Passed || len(a.Checks) != 1 || !a.Checks[0].Passed {
		t.Fatalf("attempt: %+v %v %v", a, ok, err)
	}
	if _, ok, err := b.Attempt(999); ok || err != nil {
		t.Fatalf("a missing attempt: %v %v", ok, err)
	}
}
