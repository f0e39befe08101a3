package ui

import "testing"

func TestStyle(t *testing.T) {
	if got := Style(true, "31", "x"); got != "\x1b[31mx\x1b[0m" {
		t.Errorf("Style on = %q", got)
	}
	if got := Style(false, "31", "x"); got != "x" {
		t.Errorf("Style off = %q", got)
	}
	if got := Style(true, "31", ""); got != "" {
		t.Errorf("Style of nothing = %q", got)
	}
}

func TestBar(t *testing.T) {
	for _, c := range []struct {
		done, total, width int
		want               string
	}{
		{0, 4, 4, "[░░░░]"}, {2, 4, 4, "[██░░]"}, {4, 4, 4, "[████]"}, {9, 4, 4, "[████]"}, {1, 0, 4, ""},
	} {
		if got := Bar(c.done, c.total, c.width); got != c.want {
			t.Errorf("Bar(%d, %d, %d) = %q, want %q", c.done, c.total, c.width, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	if got := Count(1, "point"); got != "1 point" {
		t.Error(got)
	}
	if got := Count(0, "point"); got != "0 points" {
		t.Error(got)
	}
}
