package safefs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f.json")
	if err := WriteAtomic(name, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(name, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil || string(data) != "two" {
		t.Fatalf("read back %q, %v", data, err)
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

// A write that fails half way leaves the old file, and no temporary one.
func TestWriteAtomicFromFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if err := WriteAtomic(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := WriteAtomicFrom(name, iotest.ErrReader(boom), 0o644); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if data, _ := os.ReadFile(name); string(data) != "old" {
		t.Errorf("the old file became %q", data)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestWriteNamed(t *testing.T) {
	var out, log bytes.Buffer
	f := func(w io.Writer) error { _, err := io.WriteString(w, "data"); return err }
	if err := WriteNamed("", &out, &log, f); err != nil || out.Len()+log.Len() != 0 {
		t.Fatalf("nothing asked: %v %q %q", err, out.String(), log.String())
	}
	if err := WriteNamed("-", &out, &log, f); err != nil || out.String() != "data" || log.Len() != 0 {
		t.Fatalf("stdout: %v %q %q", err, out.String(), log.String())
	}
	name := filepath.Join(t.TempDir(), "x.csv")
	if err := WriteNamed(name, &out, &log, f); err != nil || log.String() != "wrote "+name+"\n" {
		t.Fatalf("file: %v %q", err, log.String())
	}
	if b, _ := os.ReadFile(name); string(b) != "data" {
		t.Fatalf("file holds %q", b)
	}
}
