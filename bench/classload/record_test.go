package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// TestVerify: a class folder that holds every acknowledged save (or one
// sent after it) and submission passes; one that lost a save or a
// submission is named.
func TestVerify(t *testing.T) {
	class := t.TempDir()
	os.MkdirAll(filepath.Join(class, ".class"), 0o700)
	b, err := gradebook.Open(filepath.Join(class, ".class", "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	a := &gradebook.Attempt{Student: "s1", Exercise: "pool", Status: gradebook.Passed}
	if err := b.Record(a); err != nil {
		t.Fatal(err)
	}
	b.Close()
	file := func(id string, n int) {
		p := filepath.Join(class, "students", id, "day1", "pool.cu")
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("int main() {}\n"+marker(id, n)), 0o600)
	}
	record := filepath.Join(t.TempDir(), "acked.jsonl")
	rec, _ := openRecorder(record)
	for _, id := range []string{"s1", "s2"} {
		for n := 1; n <= 3; n++ {
			rec.add(entry{Student: id, Kind: "sent", Exercise: "pool", File: "day1/pool.cu", N: n})
			if n < 3 {
				rec.add(entry{Student: id, Kind: "saved", Exercise: "pool", N: n})
			}
		}
	}
	rec.add(entry{Student: "s1", Kind: "submitted", Exercise: "pool", Attempt: a.ID})
	rec.f.WriteString(`{"student":"s2","kind":"sav`) // being written at the kill
	rec.close()

	file("s1", 2)
	file("s2", 3) // the save in flight at the kill landed
	var out bytes.Buffer
	if err := verify(&out, record, class); err != nil || !strings.Contains(out.String(), "2 students, 4 saves and 1 submissions acknowledged; 1 files hold a save sent after") {
		t.Fatalf("a class that lost nothing: %v\n%s", err, out.String())
	}

	file("s2", 1)
	rec, _ = openRecorder(record + "2")
	data, _ := os.ReadFile(record)
	rec.f.Write(data[:bytes.LastIndexByte(data, '\n')+1])
	rec.add(entry{Student: "s2", Kind: "submitted", Exercise: "pool", Attempt: a.ID + 7})
	rec.close()
	out.Reset()
	err = verify(&out, record+"2", class)
	for _, want := range []string{"s2: day1/pool.cu holds save 1, but save 2 was acknowledged", "s2: submission 8 was acknowledged and is not in the gradebook"} {
		if err == nil || !strings.Contains(out.String(), want) {
			t.Errorf("want %q: %v\n%s", want, err, out.String())
		}
	}
}
