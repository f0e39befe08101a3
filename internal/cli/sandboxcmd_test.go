package cli

import (
	"slices"
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestSandboxFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *SandboxOptions
	cmd := newSandbox(ios, func(o *SandboxOptions) error { got = o; return nil })
	if err := execute(cmd, "--landlock", "3", "--uid", "1001", "--no-cgroup", "--net", "--", "./prog", "-x"); err != nil {
		t.Fatal(err)
	}
	if got.Policy.Landlock != 3 || got.UID != 1001 || !got.NoCgroup || !got.Policy.Network || !slices.Equal(got.Args, []string{"./prog", "-x"}) || got.Policy.Memory == 0 {
		t.Errorf("options: %+v", got)
	}
	wantUsage(t, execute(newSandbox(ios, func(*SandboxOptions) error { return nil })), "sandbox needs a program to run")
}
