package grade

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

// A course or a folder of submissions inside a folder every build and run
// may read (/opt, /usr, ... in the sandbox) is refused: a submission that
// #included the solution from there compiled it and passed as it.
func TestLoadClassRefusesReadableFolders(t *testing.T) {
	root := coursetest.Tiny(t, []string{"pipe"}, nil)
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	subs := t.TempDir()
	os.MkdirAll(filepath.Join(subs, "trudy"), 0o755)
	old := runsRead
	defer func() { runsRead = old }()

	runsRead = []string{filepath.Dir(root)}
	if _, err := LoadClass(c, subs, "", nil); err == nil || !strings.Contains(err.Error(), "the course "+root+" is inside") {
		t.Errorf("a course every run may read: %v", err)
	}
	runsRead = []string{subs}
	if _, err := LoadClass(c, subs, "", nil); err == nil || !strings.Contains(err.Error(), "the folder of submissions") {
		t.Errorf("submissions every run may read: %v", err)
	}
	// Folders that exist beside them, one whose name begins theirs
	// ("/opt" and "/optical"): neither is inside.
	near := []string{root + "-near", subs + "-near", root[:len(root)-1]}
	for _, d := range near {
		if _, err := os.Stat(d); err == nil {
			t.Fatalf("%s is there already", d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(d)
	}
	runsRead = near
	if _, err := LoadClass(c, subs, "", nil); err != nil && strings.Contains(err.Error(), "every student's build and run may read") {
		t.Errorf("refused outside the runs' folders: %v", err)
	}
}
