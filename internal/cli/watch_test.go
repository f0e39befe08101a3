package cli

import (
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestWatchFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
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
	wantUsage(t, execute(newWatch(ios, &globals{}, func(*WatchOptions) error { return nil }), "a", "b"), "watch takes at most one exercise")
}
