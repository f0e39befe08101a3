package cli

import (
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestListFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ran := false
	if err := execute(newList(ios, &globals{}, func(*ListOptions) error { ran = true; return nil })); err != nil || !ran {
		t.Errorf("list: ran %v, %v", ran, err)
	}
	wantUsage(t, execute(newList(ios, &globals{}, func(*ListOptions) error { return nil }), "70"), "list takes no arguments")
}

// TestListTinyCourse runs the command itself.
func TestListTinyCourse(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	if err := execute(newList(ios, &globals{courseDir: tinyCourse(t)}, nil)); err != nil || !contains(out.String(), "pipe") {
		t.Errorf("list: %q, %v", out.String(), err)
	}
}
