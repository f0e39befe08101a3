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

// ReplaceFrom, unsynced, still replaces whole or not at all: the new
// file with its mode in place of the old, or, when the reader fails,
// the old one kept and no temporary file left; a program that is
// running from the old file (a busy binary) does not stop it.
func TestReplaceFrom(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "prog")
	if err := ReplaceFrom(name, bytes.NewReader([]byte("one")), 0o755); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := ReplaceFrom(name, bytes.NewReader([]byte("two")), 0o700); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(name); string(data) != "two" {
		t.Fatalf("read back %q", data)
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", st.Mode().Perm())
	}
	if data, _ := io.ReadAll(old); string(data) != "one" {
		t.Errorf("the file open before changed under its reader: %q", data)
	}
	boom := errors.New("boom")
	if err := ReplaceFrom(name, iotest.ErrReader(boom), 0o755); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if data, _ := os.ReadFile(name); string(data) != "two" {
		t.Errorf("a failed replace left %q", data)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}
