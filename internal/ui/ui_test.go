package ui

import (
	"strings"
	"testing"
)

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

// Text from a file the reader did not write reaches a terminal without
// its escape sequences: a hostile notebook or program output cannot set
// the window's title or the clipboard (OSC 52) of whoever reads it.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"ok\x1b]52;c;cHduZWQ=\x07 done": "ok done",
		"\x1b]0;pwned\x07title":         "title",
		"red \x1b[31mtext\x1b[0m plain": "red text plain",
		"bell\x07 and \x00nul\ttab":     "bell\uFFFD and \uFFFDnul\ttab",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// Off a terminal, a key is the first letter of each line that has one.
func TestReadKeysLines(t *testing.T) {
	keys, restore := ReadKeys(strings.NewReader("h\n\n  next\nq\n"))
	defer restore()
	var got []byte
	for k := range keys {
		got = append(got, k)
	}
	if string(got) != "hnq" {
		t.Errorf("keys = %q, want \"hnq\"", got)
	}
}
