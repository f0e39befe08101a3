package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"errors"
	"fmt"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
)

// execute runs cmd with args, as the root would, and returns its error.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &failure.Usage{Err: err} })
	return cmd.Execute()
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
		ios, _, _, errOut := iostreams.Test()
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
		ios, _, _, errOut := iostreams.Test()
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
	ios, _, out, _ := iostreams.Test()
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

// TestExitOfEachKind: each kind of failure has its status, told once.
func TestExitOfEachKind(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{errSilent, 1, ""},
		{&failure.Silent{Code: 3}, 3, ""},
		{fmt.Errorf("grade: %w", failure.Toolf("no nvcc")), 2, "lessons: grade: no nvcc\n"},
		{failure.Usagef("--per-gpu is 1 to 64"), 2, "lessons: --per-gpu is 1 to 64\nRun 'lessons --help' for usage.\n"},
		{errors.New("a failing check"), 1, "lessons: a failing check\n"},
	} {
		ios, _, _, errOut := iostreams.Test()
		if code := exit(ios, &cobra.Command{Use: "lessons"}, c.err); code != c.code || errOut.String() != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.err, code, errOut.String(), c.code, c.stderr)
		}
	}
}
