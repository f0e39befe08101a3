package cli

import (
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestRunFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *RunOptions
	cmd := newRun(ios, &globals{}, func(o *RunOptions) error { got = o; return nil })
	if err := execute(cmd, "70", "--cell", "3", "--keep-going", "--compile-only", "--timeout", "5s", "--workspace", "ws", "--arch", "sm_80", "--timeline"); err != nil {
		t.Fatal(err)
	}
	if got.Lesson != "70" || got.Cell != 3 || !got.KeepGoing || !got.CompileOnly || got.Timeout != 5*time.Second || got.Workspace != "ws" || got.Arch != "sm_80" || !got.Timeline {
		t.Errorf("run: %+v", got)
	}
	wantUsage(t, execute(newRun(ios, &globals{}, func(*RunOptions) error { return nil })), "run takes one lesson")
}
