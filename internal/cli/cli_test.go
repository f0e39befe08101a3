package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/gradebook"
)

// execute runs cmd with args, as the root would, and returns its error.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{Err: err} })
	return cmd.Execute()
}

func TestCheckFlags(t *testing.T) {
	ios, _, _, _ := Test()
	var got *CheckOptions
	cmd := newCheck(ios, &globals{}, func(o *CheckOptions) error { got = o; return nil })
	if err := execute(cmd, "async-pipeline", "-v", "--file", "mine.cu"); err != nil {
		t.Fatal(err)
	}
	if got.Exercise != "async-pipeline" || !got.Verbose || got.File != "mine.cu" {
		t.Errorf("options: %+v", got)
	}
	var usage *usageError
	if err := execute(newCheck(ios, &globals{}, func(*CheckOptions) error { return nil }), "a", "b"); !errors.As(err, &usage) {
		t.Errorf("two exercises: %v, want a usage error", err)
	}
}

func TestVerifyFlags(t *testing.T) {
	ios, _, _, _ := Test()
	for _, c := range []struct {
		args           []string
		perGPU, queues int
		usage          string
	}{
		{args: nil}, // both chosen from the course
		{args: []string{"--per-gpu", "3", "--gpu-queues", "2"}, perGPU: 3, queues: 2},
		{args: []string{"--per-gpu", "0"}, usage: "--per-gpu is 1 to 64, not 0"},
		{args: []string{"--gpu-queues", "33"}, usage: "--gpu-queues is 1 to 32"},
	} {
		var got *VerifyOptions
		err := execute(newVerify(ios, &globals{}, func(o *VerifyOptions) error { got = o; return nil }), c.args...)
		if c.usage != "" {
			var usage *usageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.usage) {
				t.Errorf("%v: err = %v, want a usage error %q", c.args, err, c.usage)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got.PerGPU != c.perGPU || got.Queues != c.queues {
			t.Errorf("%v: per GPU %d, queues %d; want %d, %d", c.args, got.PerGPU, got.Queues, c.perGPU, c.queues)
		}
	}
}

func TestGradeFlags(t *testing.T) {
	ios, _, _, _ := Test()
	var got *gradeOptions
	var dir string
	var only []string
	cmd := newGrade(ios, &globals{}, func(o *gradeOptions, d string, x []string) error { got, dir, only = o, d, x; return nil })
	if err := execute(cmd, "subs", "pipe", "--regrade", "--per-gpu", "4", "-j", "3", "--gradebook", "b.db"); err != nil {
		t.Fatal(err)
	}
	if dir != "subs" || len(only) != 1 || only[0] != "pipe" || !got.regrade || got.perGPU != 4 || got.jobs != 3 || got.book != "b.db" {
		t.Errorf("options: %+v, %q, %q", got, dir, only)
	}
	cmd = newGrade(ios, &globals{}, func(o *gradeOptions, d string, x []string) error { got = o; return nil })
	if err := execute(cmd, "subs"); err != nil || got.perGPU != 0 || got.queues != 0 {
		t.Errorf("defaults: %+v, %v (0: chosen from the class)", got, err)
	}
	var usage *usageError
	if err := execute(newGrade(ios, &globals{}, nil), "subs", "--per-gpu", "65"); !errors.As(err, &usage) {
		t.Errorf("--per-gpu 65: %v", err)
	}
}

// Exit codes come from the errors' types: a usage error (unknown command,
// unknown flag, a flag's bad value) is 2.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"nope"}, 2, `unknown command "nope" for "lessons"`},
		{[]string{"lisst"}, 2, "did you mean list"},
		{[]string{"list", "--nope"}, 2, "unknown flag: --nope"},
		{[]string{"run", "--cell", "x", "70"}, 2, `invalid argument "x" for "--cell"`},
		{[]string{"grade", "export", "--csv"}, 2, "flag needs an argument: --csv"},
		{[]string{"check", "a", "b"}, 2, "check takes at most one exercise"},
		{[]string{"--help"}, 0, ""},
	} {
		ios, _, _, errOut := Test()
		if code := Run(ios, c.args); code != c.code || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut.String(), c.code, c.err)
		}
		if c.code == 2 && !strings.Contains(errOut.String(), "--help' for usage") {
			t.Errorf("%v: no pointer to --help: %q", c.args, errOut.String())
		}
	}
}

// tinyCourse writes a course of one lesson and one exercise, pipe.
func tinyCourse(t *testing.T) string { return coursetest.Tiny(t, []string{"pipe"}, nil) }

// A progress file that cannot be read stops check and list with its name,
// and is left as it is (it used to be taken for none, then overwritten
// by the next pass).
func TestCorruptProgress(t *testing.T) {
	dir := tinyCourse(t)
	file := filepath.Join(dir, ".lessons", "progress.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	spoilt := []byte(`{"passed": {"pipe": "2026-11-2`)
	if err := os.WriteFile(file, spoilt, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"check", "pipe"}, {"list"}} {
		ios, _, _, errOut := Test()
		code := Run(ios, append([]string{"--course", dir}, args...))
		if code != 1 || !strings.Contains(errOut.String(), "read .lessons/progress.json") || !strings.Contains(errOut.String(), "remove it to start over") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
	if data, _ := os.ReadFile(file); string(data) != string(spoilt) {
		t.Errorf("the progress file was changed to %q", data)
	}
}

func TestIOStreamsTest(t *testing.T) {
	ios, _, out, _ := Test()
	if ios.IsTTY() || ios.Color() {
		t.Error("test streams are not a terminal")
	}
	ios.SetTTY(true)
	if !ios.Color() {
		t.Error("a terminal without NO_COLOR has colour")
	}
	ios.Out.Write([]byte("x"))
	if out.String() != "x" {
		t.Error("Out is not the buffer")
	}
}

// Progress is a bar on a terminal and a line per file elsewhere.
func TestProgress(t *testing.T) {
	ios, _, _, errOut := Test()
	p := newProgress(ios, 2)
	p.done(&gradebook.Attempt{Student: "alice", Exercise: "pipe", Status: gradebook.Passed, Points: 10, MaxPoints: 10}, false)
	p.done(&gradebook.Attempt{Student: "bob", Exercise: "pipe", Status: gradebook.Passed, Points: 10, MaxPoints: 10}, true)
	p.finish()
	if got := errOut.String(); got != "[1/2] alice pipe: passed 10/10\n[2/2] bob pipe: unchanged, passed 10/10\n" {
		t.Errorf("lines: %q", got)
	}
	ios, _, _, errOut = Test()
	ios.SetStderrTTY(true)
	p = newProgress(ios, 2)
	p.done(&gradebook.Attempt{Student: "alice", Exercise: "pipe", Status: gradebook.Passed}, false)
	if got := errOut.String(); !strings.HasPrefix(got, "\r[███████████████░░░░░░░░░░░░░░░] 1/2 ") {
		t.Errorf("bar: %q", got)
	}
}

func TestWatchFlags(t *testing.T) {
	ios, _, _, _ := Test()
	var got *WatchOptions
	cmd := newWatch(ios, &globals{}, func(o *WatchOptions) error { got = o; return nil })
	if err := execute(cmd, "pipe", "--poll", "--wait", "--debounce", "50ms"); err != nil {
		t.Fatal(err)
	}
	if got.Exercise != "pipe" || !got.Poll || !got.Wait || got.Debounce != 50*time.Millisecond {
		t.Errorf("options: %+v", got)
	}
	cmd = newWatch(ios, &globals{}, func(o *WatchOptions) error { got = o; return nil })
	if err := execute(cmd); err != nil || got.Exercise != "" || got.Debounce != 200*time.Millisecond {
		t.Errorf("defaults: %+v, %v", got, err)
	}
}

// A --file that is not there is a usage error that names it once.
func TestCheckFileMissing(t *testing.T) {
	dir := tinyCourse(t)
	t.Setenv("LESSONS_GPU", "Fake GPU,9.0,85899345920")
	fake := t.TempDir()
	os.WriteFile(filepath.Join(fake, "nvcc"), []byte("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n"), 0o755)
	t.Setenv("PATH", fake)
	t.Setenv("LESSONS_CACHE", t.TempDir())
	ios, _, _, errOut := Test()
	code := Run(ios, []string{"--course", dir, "check", "pipe", "--file", "/nope/mine.cu"})
	if want := "lessons: check --file /nope/mine.cu: no such file or directory\n"; code != 2 || !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}
