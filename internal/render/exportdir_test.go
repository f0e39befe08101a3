package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export --html takes a new folder, an empty one, or its own again; never
// a folder of someone else's files (it wrote into / when asked).
func TestClaimDir(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "site")
	if err := claimDir(fresh); err != nil {
		t.Fatal(err)
	}
	if err := claimDir(fresh); err != nil {
		t.Errorf("its own folder again: %v", err)
	}
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	if err := claimDir(empty); err != nil {
		t.Errorf("an empty folder: %v", err)
	}
	theirs := filepath.Join(root, "theirs")
	os.Mkdir(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "index.html"), []byte("mine"), 0o644)
	err := claimDir(theirs)
	if err == nil || !strings.Contains(err.Error(), "the folder holds files lessons export did not write (index.html") {
		t.Errorf("a folder of someone else's: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(theirs, "index.html")); string(data) != "mine" {
		t.Error("their index.html was changed")
	}
	if _, err := os.Stat(filepath.Join(theirs, ExportMark)); err == nil {
		t.Error("a refused folder was marked")
	}
	os.Mkdir(filepath.Join(theirs, ExportMark), 0o755) // a folder of that name is no mark
	if err := claimDir(theirs); err == nil {
		t.Error("a folder named as the mark passed for one")
	}
	if err := claimDir("/"); err == nil {
		t.Error("export --html / was let through")
	}
}
