package cli

import (
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestShowFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ShowOptions
	cmd := newShow(ios, &globals{}, func(o *ShowOptions) error { got = o; return nil })
	if err := execute(cmd, "87", "--plain", "--width", "60", "--no-pager"); err != nil || got.Lesson != "87" || !got.Plain || got.Width != 60 || !got.NoPager {
		t.Errorf("show: %+v, %v", got, err)
	}
	wantUsage(t, execute(newShow(ios, &globals{}, func(*ShowOptions) error { return nil })), "show takes one lesson")
}
