package exercise

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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

// A run that fails where its folder's file system has no inode left is
// the machine's error, graded again, as a build is: where a run's folder
// is no file system of its own (no mount namespace for the sandbox), a
// classmate's run can use up the inodes, and an innocent program that
// writes a file then fails.
func TestRunOnFullDiskIsNoFailure(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts a small file system: needs root")
	}
	small := t.TempDir()
	if err := unix.Mount("tmpfs", small, "tmpfs", 0, "size=1g,nr_inodes=64"); err != nil {
		t.Skipf("no tmpfs here: %v", err)
	}
	defer unix.Unmount(small, unix.MNT_DETACH)
	tk := toolkit(t)
	j := job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake: echo result > out.txt || exit 1\n")
	j.Dir = filepath.Join(small, "ws")
	b, err := Build(context.Background(), tk, Plain{}, j, 0)
	if err != nil || b.Failed != nil {
		t.Fatalf("build: %v %+v", err, b)
	}
	for i := 0; ; i++ { // a classmate's run
		f, err := os.Create(filepath.Join(small, fmt.Sprintf("classmate%d", i)))
		if err != nil {
			break
		}
		f.Close()
	}
	v, err := Run(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
	if err == nil {
		t.Fatalf("a run that failed for want of inodes was judged the file's: %+v", v.Results)
	}
	if !strings.Contains(err.Error(), "files free") {
		t.Errorf("the error should say the file system was full: %v", err)
	}
}

// A run that fills the file system itself (it makes files until they are
// short, then fails) is judged, not taken for a classmate's doing and
// graded again at every grade (review: it would fill the disk each time).
func TestARunThatFillsItsOwnFolderIsJudged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts a small file system: needs root")
	}
	small := t.TempDir()
	if err := unix.Mount("tmpfs", small, "tmpfs", 0, "size=1g,nr_inodes=1100"); err != nil {
		t.Skipf("no tmpfs here: %v", err)
	}
	defer unix.Unmount(small, unix.MNT_DETACH)
	tk := toolkit(t)
	j := job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake: i=0; while [ $i -lt 300 ]; do : > f$i; i=$((i+1)); done; exit 1\n")
	j.Dir = filepath.Join(small, "ws")
	b, err := Build(context.Background(), tk, Plain{}, j, 0)
	if err != nil || b.Failed != nil {
		t.Fatalf("build: %v %+v", err, b)
	}
	v, err := Run(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
	if err != nil {
		t.Fatalf("a run that filled the file system itself was taken for the machine's error: %v", err)
	}
	if v.Passed() {
		t.Errorf("a run that exited 1 passed: %+v", v.Results)
	}
}
