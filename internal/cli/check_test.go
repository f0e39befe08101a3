package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
)

func TestCheckFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *CheckOptions
	cmd := newCheck(ios, &globals{}, func(o *CheckOptions) error { got = o; return nil })
	if err := execute(cmd, "async-pipeline", "-v", "--file", "mine.cu"); err != nil {
		t.Fatal(err)
	}
	if got.Exercise != "async-pipeline" || !got.Verbose || got.File != "mine.cu" {
		t.Errorf("options: %+v", got)
	}
	var usage *failure.Usage
	if err := execute(newCheck(ios, &globals{}, func(*CheckOptions) error { return nil }), "a", "b"); !errors.As(err, &usage) {
		t.Errorf("two exercises: %v, want a usage error", err)
	}
}

// A --file that is not there is a usage error that names it once.
func TestCheckFileMissing(t *testing.T) {
	dir := tinyCourse(t)
	machinetest.Fake(t, "Fake GPU,9.0,85899345920")
	ios, _, _, errOut := iostreams.Test()
	code := Run(ios, []string{"--course", dir, "check", "pipe", "--file", "/nope/mine.cu"})
	if want := "lessons: check --file /nope/mine.cu: no such file or directory\n"; code != 2 || !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), want)
	}
}
