package exercise

import (
	"context"
	"strings"
	"testing"
)

// A run may make only so many files: one that made files until the file
// system had no inode left (20,000 here, as many as it liked on the
// grading disk) made every build and run beside it fail, a classmate's
// included. Its folder is its own small file system now.
func TestRunFilesCapped(t *testing.T) {
	tk, s, _ := sandboxToolkit(t, fakeNVCC)
	src := "// fake: i=0; while [ $i -lt 20000 ] && true 2>/dev/null > f$i; do i=$((i+1)); done; echo made $i files\n"
	v, err := Check(context.Background(), tk, s, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Output, "made ") || strings.Contains(v.Output, "made 20000 files") {
		t.Errorf("a run made as many files as it wanted: %q", v.Output)
	}
	t.Logf("%s %+v", strings.TrimSpace(v.Output), v.Results)
}
