package grade

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// A link anywhere on the way from the class folder to a handed-in file
// (the student's folder, a folder between, the file, a spec's other
// file), relative or absolute, to another student or to the course's
// solutions: never followed; the task's Problem says which part is a
// link, and what is there is never read.
func TestSubmissionLinksRefused(t *testing.T) {
	base := t.TempDir()
	solutions := filepath.Join(base, "course", "solutions")
	os.MkdirAll(filepath.Join(solutions, "day068"), 0o755)
	os.WriteFile(filepath.Join(solutions, "day068", "block_pool.cu"), []byte("pass SOLUTION"), 0o644)
	os.WriteFile(filepath.Join(solutions, "block_pool.cu"), []byte("pass SOLUTION"), 0o644)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"folder relative to another student", map[string]string{"trudy/day068": "->../alice/day068"}, "trudy/day068 is a link, not a folder"},
		{"folder absolute to the solutions", map[string]string{"trudy/day068": "->" + filepath.Join(solutions, "day068")}, "trudy/day068 is a link, not a folder"},
		{"folder relative to the solutions", map[string]string{"trudy/day068": "->../../course/solutions/day068"}, "trudy/day068 is a link, not a folder"},
		{"student folder", map[string]string{"trudy": "->alice"}, "trudy is a link, not a folder"},
		{"student folder absolute", map[string]string{"trudy": "->" + solutions}, "trudy is a link, not a folder"},
		{"file relative", map[string]string{"trudy/block_pool.cu": "->../alice/day068/block_pool.cu"}, "block_pool.cu is a link, not a file"},
		{"file absolute", map[string]string{"trudy/day068/block_pool.cu": "->" + filepath.Join(solutions, "block_pool.cu")}, "block_pool.cu is a link, not a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "subs")
			files := map[string]string{"alice/day068/block_pool.cu": "pass ALICE"}
			for k, v := range tc.files {
				files[k] = v
			}
			// Links relative to the solutions need the course beside subs.
			os.Symlink(filepath.Join(base, "course"), filepath.Join(filepath.Dir(dir), "course"))
			ts := class(t, dir, files)
			var trudy *Task
			for _, task := range ts {
				if task.Student == "trudy" && task.Exercise.ID == "block-pool" {
					trudy = task
				}
			}
			if trudy == nil {
				t.Fatalf("trudy is not in the class: %v", ts)
			}
			if !strings.Contains(trudy.Problem, tc.want) {
				t.Errorf("problem %q, want %q", trudy.Problem, tc.want)
			}
			if strings.Contains(string(trudy.Source), "pass") {
				t.Errorf("the linked file was read: %q", trudy.Source)
			}
		})
	}
}

// A spec's other file, handed in through a linked folder, is refused as
// the main file is.
func TestSubmissionOtherFileLinkRefused(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "alice", "inc"), 0o755)
	os.WriteFile(filepath.Join(dir, "alice", "inc", "h.h"), []byte("alice's"), 0o644)
	os.MkdirAll(filepath.Join(dir, "trudy"), 0o755)
	os.WriteFile(filepath.Join(dir, "trudy", "block_pool.cu"), []byte("mine"), 0o644)
	os.Symlink("../alice/inc", filepath.Join(dir, "trudy", "inc"))
	task := &Task{Student: "trudy", Exercise: exercises[0], Spec: &checker.Spec{Files: []string{"inc/h.h"}}}
	file := SubmittedFile(dir, "trudy", exercises[0])
	if err := Load(task, dir, file); err != nil {
		t.Fatal(err)
	}
	if err := LoadFiles(task, dir, filepath.Dir(file), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(task.Problem, "trudy/inc is a link") {
		t.Errorf("problem %q", task.Problem)
	}
}

// A fixed file of the spec (a timed exercise's harness) is the exercise's
// own, whatever the student handed in beside their file.
func TestFixedFileIsTheExercises(t *testing.T) {
	dir, given := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "trudy"), 0o755)
	os.WriteFile(filepath.Join(dir, "trudy", "block_pool.cu"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(dir, "trudy", "bench.cu"), []byte("a slow baseline"), 0o644)
	os.WriteFile(filepath.Join(dir, "trudy", "pool.h"), []byte("my pool"), 0o644)
	os.WriteFile(filepath.Join(given, "bench.cu"), []byte("the harness"), 0o644)
	os.WriteFile(filepath.Join(given, "pool.h"), []byte("the stub"), 0o644)
	task := &Task{Student: "trudy", Exercise: exercises[0], Spec: &checker.Spec{Files: []string{"bench.cu", "pool.h"}, Fixed: []string{"bench.cu"}}}
	file := SubmittedFile(dir, "trudy", exercises[0])
	if err := Load(task, dir, file); err != nil {
		t.Fatal(err)
	}
	if err := LoadFiles(task, dir, filepath.Dir(file), given); err != nil {
		t.Fatal(err)
	}
	if task.Problem != "" || len(task.Files) != 2 || string(task.Files[0].Data) != "the harness" || string(task.Files[1].Data) != "my pool" {
		t.Errorf("problem %q, files %+v", task.Problem, task.Files)
	}
}

// A student folder whose name holds a newline or an escape sequence (an
// LMS's download names folders after what students call themselves) is
// refused with its name quoted: printed in the progress lines and the
// table it wrote lines of its own ("alice block-pool: passed 10/10")
// and sequences to the instructor's terminal.
func TestStudentNameWithControlsRefused(t *testing.T) {
	for _, name := range []string{"mallory\n[2 of 2] alice block-pool: passed 10 of 10", "mallory\x1b]52;c;cm0gLXJmIH4K\x07", "mallory\r", "mal\u009blory"} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "alice"), 0o755)
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Students(dir)
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("a student folder named %q: %v", name, err)
		}
	}
}

// A student folder whose name holds a right-to-left override or isolate
// is refused too: the progress lines ([1/2] NAME EXERCISE: ...) and
// lessons grade --slurm's merged lines printed it as it was, and
// "mallory \u202e01 fo 01 dessap :loop-kcolb ecila" showed as a line of
// alice's passing.
func TestStudentNameWithBidiControlsRefused(t *testing.T) {
	for _, name := range []string{"mallory \u202e01 fo 01 dessap :loop-kcolb ecila", "mal\u2067lory\u2069", "mal\u202alory"} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "alice"), 0o755)
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Students(dir)
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("a student folder named %q: %v", name, err)
		}
	}
}

// A file handed in somewhere else in the student's folder (a repository's
// exercises/, an older layout's day folder, src/) is found, not graded
// missing; two of the same name are a problem naming both; a link is
// found and refused by Load; nothing beyond the student's folder counts.
func TestFindSubmittedElsewhere(t *testing.T) {
	dir := t.TempDir()
	put := func(rel, data string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	x := exercises[0]
	name := filepath.Base(x.Student)
	put("alice/"+strings.TrimPrefix(x.Student, "exercises/"), "alice's")
	put("bob/exercises/"+strings.TrimPrefix(x.Student, "exercises/"), "bob's")
	put("carol/src/old/"+name, "carol's")
	put("dave/a/"+name, "one")
	put("dave/b/"+name, "two")
	put("erin/.git/"+name, "in git")
	put("frank/notes.txt", "nothing")
	os.MkdirAll(filepath.Join(dir, "mallory", "in"), 0o755)
	os.Symlink(filepath.Join(dir, "alice"), filepath.Join(dir, "mallory", "in", "alice"))
	for _, c := range []struct{ student, data, problem string }{
		{"alice", "alice's", ""},
		{"bob", "bob's", ""},
		{"carol", "carol's", ""},
		{"dave", "", "2 files named " + name + " (a/" + name + ", b/" + name + "): hand in one, at " + strings.TrimPrefix(x.Student, "exercises/")},
		{"erin", "", ""},
		{"frank", "", ""},
		{"mallory", "", ""},
	} {
		file, problem := FindSubmitted(dir, c.student, x)
		task := &Task{Student: c.student, Exercise: x, Spec: &checker.Spec{}}
		if err := Load(task, dir, file); err != nil {
			t.Fatal(err)
		}
		if string(task.Source) != c.data || problem != c.problem {
			t.Errorf("%s: source %q, problem %q; want %q, %q", c.student, task.Source, problem, c.data, c.problem)
		}
	}
}
