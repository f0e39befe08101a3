package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttackInheritedFiles: a program run without a sandbox (check,
// verify, the page's cells) gets its ExtraFiles and none of the other
// descriptors the tool holds, even those opened without O_CLOEXEC (a C
// library's, NVML's, or one the tool itself inherited from its parent).
func TestAttackInheritedFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "gradebook.db")
	if err := os.WriteFile(secret, []byte("grades\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	leak, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC, as a C library might
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(leak)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	script := `for f in /proc/$$/fd/*; do echo "${f##*/}=$(readlink "$f")"; done`
	res, out := run(t, Spec{Argv: []string{"sh", "-c", script}, ExtraFiles: []*os.File{w}})
	if !res.OK() {
		t.Fatalf("%+v: %s", res, out)
	}
	if strings.Contains(out, "gradebook.db") {
		t.Errorf("the tool's open file reached the program:\n%s", out)
	}
	if !strings.Contains(out, "3=pipe:") {
		t.Errorf("the program should have its extra file as 3:\n%s", out)
	}
	// The tool's own use of the descriptor is untouched.
	if _, err := syscall.Seek(leak, 0, 0); err != nil {
		t.Errorf("the tool's descriptor was closed: %v", err)
	}
}
