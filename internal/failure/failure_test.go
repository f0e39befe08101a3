package failure

import (
	"errors"
	"fmt"
	"testing"
)

func TestKinds(t *testing.T) {
	var u *Usage
	if err := fmt.Errorf("grade: %w", Usagef("--per-gpu is 1 to %d", 64)); !errors.As(err, &u) || u.Error() != "--per-gpu is 1 to 64" {
		t.Errorf("usage: %v", err)
	}
	var tool *Tool
	inner := errors.New("no nvcc")
	if err := Toolf("check: %w", inner); !errors.As(err, &tool) || !errors.Is(err, inner) {
		t.Errorf("tool: %v", err)
	}
	if (&Silent{}).Status() != 1 || (&Silent{Code: 7}).Status() != 7 {
		t.Error("silent: 1 unless a program's own status is passed on")
	}
}

// Each kind of failure has its status, wrapped or not.
func TestStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("a failing check"), StatusFailed},
		{&Silent{}, StatusFailed},
		{fmt.Errorf("sandbox: %w", &Silent{Code: 3}), 3},
		{fmt.Errorf("grade: %w", Toolf("no nvcc")), StatusCannot},
		{Usagef("--per-gpu is 1 to 64"), StatusCannot},
	} {
		if got := Status(c.err); got != c.want {
			t.Errorf("Status(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
