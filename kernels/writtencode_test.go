package kernels_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Code the program wrote during its run and mapped executable fails the
// run, wherever the file is (the run's folder, /tmp, /dev/shm), kept
// loaded or unloaded before the end, its mtime set back or the file
// removed; a library of the machine's, loaded by dlopen, does not
// (renamed_copy.cu of internal/exercise's corpus).
func TestLibraryFailsCodeWrittenDuringTheRun(t *testing.T) {
	lib := buildStub(t, "writtencode.c")
	got, out := lib.run(t, "STUB_CODE=system")
	if out != "loaded\n" {
		t.Fatalf("the honest program printed %q", out)
	}
	if p := got.Problem(); p != "" || got.Guard.WrittenCode != 0 {
		t.Fatalf("a library of the machine's, loaded by dlopen: %q (written code %d)", p, got.Guard.WrittenCode)
	}
	dirs := map[string]string{"run folder": t.TempDir()}
	for _, d := range []string{"/tmp", "/dev/shm"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			sub, err := os.MkdirTemp(d, "lessons-written-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(sub)
			dirs[d] = sub
		}
	}
	for where, dir := range dirs {
		for _, mode := range []string{"copy", "close", "backdated", "deleted"} {
			got, out := lib.run(t, "STUB_CODE="+mode, "STUB_DIR="+dir)
			if out != "loaded\n" {
				t.Errorf("%s, %s: the program printed %q", where, mode, out)
				continue
			}
			p := got.Problem()
			if !strings.Contains(p, "the program ran code from a file written during its run") || !strings.Contains(p, "libnvprivate.so") {
				t.Errorf("%s, %s: the record's problem is %q, want the copy named", where, mode, p)
			}
			os.Remove(filepath.Join(dir, "libnvprivate.so"))
		}
	}
}
