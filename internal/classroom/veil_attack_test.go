package classroom

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/rig"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// Door 8 (issue 38): from a cell, stat of a classmate's exercise file
// gave its size and time (Landlock has no right for stat; students/ID is
// 0711). Under the class's cells runner a classmate's folder is not
// there at all; the cell's own workspace is.
func TestAttackCellStatsAClassmate(t *testing.T) {
	// The run users could not reach this test binary, the sandbox's
	// helper, in the build's folder: the sandbox without them.
	t.Setenv("LESSONS_SANDBOX_USERS", "off")
	class := t.TempDir()
	students := StudentsDir(class)
	ws := filepath.Join(students, "ann", ".work", "day001-hello")
	bobs := filepath.Join(students, "bob", "exercises", "day001", "pool.cu")
	for _, d := range []string{ws, filepath.Dir(bobs)} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(bobs, []byte("// bob is nearly done\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "mine.cu"), []byte("mine\n"), 0o644)
	var out strings.Builder
	res, err := rig.SandboxCells(nil, students, nil)(ws, 0).Run(context.Background(), runner.Spec{
		Argv: []string{"/bin/sh", "-c", `for f in "$1" "$2" mine.cu "$3"; do stat -c '%n %s' "$f" 2>&1; done; true`, "sh",
			bobs, filepath.Dir(bobs), filepath.Join(students, "bob")},
		Dir: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws},
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("the cell: %+v\n%s", res, out.String())
	}
	got := out.String()
	if strings.Contains(got, bobs+" 22") || !strings.Contains(got, "mine.cu 5") {
		t.Errorf("a classmate's file by stat, or not the cell's own:\n%s", got)
	}
	if strings.Contains(got, filepath.Join(students, "bob")+" ") {
		t.Errorf("a classmate's folder is there:\n%s", got)
	}

	// The attack of our own: the way up from the workspace, by ".." and
	// through /proc's link to the working folder, and a folder made
	// beside its own (a "bob" the server would take for bob's).
	out.Reset()
	res, err = rig.SandboxCells(nil, students, nil)(ws, 0).Run(context.Background(), runner.Spec{
		Argv: []string{"/bin/sh", "-c", `ls -a ../.. 2>&1; stat -c '%n %s' ../../../bob /proc/self/cwd/../../../bob/exercises 2>&1; mkdir ../../../eve 2>&1 || echo mkdir refused; true`},
		Dir:  ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws},
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	got = out.String()
	if strings.Contains(got, "bob ") || strings.Contains(got, "exercises ") || !strings.Contains(got, "mkdir refused") {
		t.Errorf("the way up reached a classmate, or made a folder:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(students, "eve")); err == nil {
		t.Errorf("the cell made a student's folder")
	}
}

// The veil and a workspace's own file system together (a root server's
// cells): the cell writes its workspace, on its own file system, and
// sees no classmate.
func TestVeilOverOwnWorkFS(t *testing.T) {
	if why := sandbox.CanOwnFS(); why != "" {
		t.Skip("no file systems of their own here: " + why)
	}
	t.Setenv("LESSONS_SANDBOX_USERS", "off")
	class := t.TempDir()
	students := StudentsDir(class)
	work := filepath.Join(students, "ann", ".work")
	os.MkdirAll(work, 0o755)
	os.MkdirAll(filepath.Join(students, "bob"), 0o755)
	if err := sandbox.OwnFS(filepath.Join(class, "ann.img"), work, 16<<20, 500); err != nil {
		t.Fatal(err)
	}
	defer sandbox.UnmountOwnFS(work)
	ws := filepath.Join(work, "day001-hello")
	os.MkdirAll(ws, 0o755)
	var out strings.Builder
	res, err := rig.SandboxCells(nil, students, nil)(ws, 0).Run(context.Background(), runner.Spec{
		Argv: []string{"/bin/sh", "-c", `echo mine > mine.txt && cat mine.txt; stat -c '%n' "$1" 2>&1; true`, "sh", filepath.Join(students, "bob")},
		Dir:  ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws},
	}, &out)
	if err != nil || !res.OK() {
		t.Fatalf("the cell: %v %+v\n%s", err, res, out.String())
	}
	if !strings.Contains(out.String(), "mine\n") || !strings.Contains(out.String(), "No such file") {
		t.Errorf("the cell on its own file system, under the veil:\n%s", out.String())
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "mine.txt")); string(data) != "mine\n" {
		t.Errorf("what the cell wrote, seen from outside: %q", data)
	}
}
