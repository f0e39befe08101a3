package cli

import (
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestServeFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ServeOptions
	cmd := newServe(ios, &globals{}, func(o *ServeOptions) error { got = o; return nil })
	if err := execute(cmd); err != nil || got.Addr != "127.0.0.1:3000" || got.Debounce != 200*time.Millisecond || got.Timeout != 2*time.Minute || got.Poll {
		t.Errorf("defaults: %+v, %v", got, err)
	}
	cmd = newServe(ios, &globals{}, func(o *ServeOptions) error { got = o; return nil })
	if err := execute(cmd, "--addr", ":8080", "--poll", "--debounce", "1s", "--timeout", "5s"); err != nil || got.Addr != ":8080" || !got.Poll || got.Debounce != time.Second || got.Timeout != 5*time.Second {
		t.Errorf("flags: %+v, %v", got, err)
	}
	wantUsage(t, execute(newServe(ios, &globals{}, func(*ServeOptions) error { return nil }), "site"), "serve takes no arguments")
}
