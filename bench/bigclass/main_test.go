package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/cli"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/sandbox"
	"github.com/cudalessons/lessons/internal/wrong"
)

// beLessons makes this test binary the lessons command, for the grader
// the test starts and kills.
const beLessons = "BIGCLASS_TEST_LESSONS"

func TestMain(m *testing.M) {
	sandbox.Helper()
	if os.Getenv(beLessons) == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// A class of the course's twelve exercises, faked (no GPU here), graded
// by lessons grade, killed with kill -9 half way and graded again: every
// grade is as the file was made to get, none lost, none recorded twice.
func TestKilledHalfWayLosesAndDuplicatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a class")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the fake programs")
	}
	out := t.TempDir()
	os.Chmod(out, 0o755)
	const students = 12
	if _, err := generate("../..", out, students, true); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(out, "gradebook.db")
	grade := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "--course", filepath.Join(out, "course"), "grade", filepath.Join(out, "subs"), "--gradebook", book, "--per-gpu", "2")
		cmd.Env = append(os.Environ(), beLessons+"=1",
			"PATH="+filepath.Join(out, "bin")+":/usr/bin:/bin",
			"LESSONS_GPU=Fake GPU,9.0,85899345920", "LESSONS_SANDBOX_USERS=off",
			"LESSONS_SANDBOX_READ="+filepath.Join(out, "bin")+":/usr/bin:/bin",
			"LESSONS_CACHE="+filepath.Join(out, "cache"), "LESSONS_DRIVER_CHECK=off")
		return cmd
	}
	first := grade()
	var log strings.Builder
	first.Stdout, first.Stderr = &log, &log
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for grades in the gradebook (an event, not a time): a third
	// of the class, then kill the grader as a crash would.
	total := students * 12
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	graded := 0
	for deadline := time.Now().Add(5 * time.Minute); graded < total/3; {
		select {
		case err := <-done:
			t.Fatalf("the grader ended before it was killed (%v): %s", err, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no third of the class graded in 5 minutes: %d grades\n%s", graded, log.String())
		}
		time.Sleep(50 * time.Millisecond)
		graded = count(book)
	}
	first.Process.Kill()
	<-done
	killedAt := count(book)
	if killedAt >= total {
		t.Fatalf("the grader had finished (%d grades) when it was killed", killedAt)
	}
	again := grade()
	if b, err := again.CombinedOutput(); err != nil {
		t.Fatalf("grading again: %v\n%s", err, b)
	}
	if err := check(out, book); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed after %d of %d grades; graded again, all %d as made", killedAt, total, total)
}

// count is how many grades the gradebook holds now; 0 before it is there.
func count(book string) int {
	if _, err := os.Stat(book); err != nil {
		return 0
	}
	b, err := gradebook.Open(book)
	if err != nil {
		return 0
	}
	defer b.Close()
	n, _ := b.Attempts()
	return n
}

// A class of as many students as an exercise has choices holds every
// wrong answer and every alternative of every exercise, and the hostile
// programs, each with the grade it must get.
func TestEveryKindIsHandedIn(t *testing.T) {
	out := t.TempDir()
	c, err := course.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	// As many students as the exercise with the most choices has (a
	// fixed 64 left stream-pools' last wrong answers unhanded once it
	// had more).
	hostile, err := hostiles("../..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	students := 0
	for _, x := range c.Exercises {
		ch, err := exerciseChoices(c, x, hostile)
		if err != nil {
			t.Fatal(err)
		}
		students = max(students, len(ch))
	}
	sum, err := generate("../..", out, students, false)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		p := strings.Split(line, "\t")
		seen[p[1]+" "+p[3]] = p[2]
	}
	for _, x := range c.Exercises {
		answers, err := wrong.List(c, x)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range answers {
			if a.Unseen {
				continue // no check sees it: never handed in
			}
			kind, want := "wrong/"+a.Stem(), "failed"
			if a.Right {
				kind, want = "right/"+a.Stem(), "passed"
			}
			if got := seen[x.ID+" "+kind]; got != want {
				t.Errorf("%s %s: handed in as %q, want %q", x.ID, kind, got, want)
			}
		}
		for kind, want := range map[string]string{"correct": "passed", "untouched": "failed", "missing": "missing", "compile_error": "failed"} {
			if got := seen[x.ID+" "+kind]; got != want {
				t.Errorf("%s %s: handed in as %q, want %q", x.ID, kind, got, want)
			}
		}
	}
	handed := 0
	for k, n := range sum {
		if strings.HasPrefix(k, "hostile/") {
			handed += n
		}
	}
	if handed == 0 {
		t.Error("no hostile program handed in")
	}
}
