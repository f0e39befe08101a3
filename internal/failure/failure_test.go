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
