package exercise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run's folder is the program's: a link it leaves there in place of its
// record must not make the grader read what the link points at.
func TestReadRunFileRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.toml")
	os.WriteFile(secret, []byte("[[hidden_run]]\nargs = [\"7\"]\n"), 0o600)
	link := filepath.Join(dir, "sanitizer-memcheck.log")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	data, err := readRunFile(link)
	if err == nil || strings.Contains(string(data), "hidden_run") {
		t.Fatalf("a link was followed: %q, %v", data, err)
	}
	if !strings.Contains(err.Error(), "is a link") {
		t.Errorf("the error should say it is a link: %v", err)
	}
	if _, err := readRunFile(dir); err == nil {
		t.Error("a folder was read as a record")
	}
	plain := filepath.Join(dir, "sanitizer-racecheck.log")
	os.WriteFile(plain, []byte("record"), 0o644)
	if data, err := readRunFile(plain); err != nil || string(data) != "record" {
		t.Errorf("a plain file: %q, %v", data, err)
	}
	if _, err := readRunFile(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("a missing file should be ErrNotExist: %v", err)
	}
}
