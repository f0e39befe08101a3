package ui

import (
	"strings"
	"testing"
	"unicode/utf8"
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
		"clear\x1b[2J\x1b[Hscreen":      "clearscreen",
		"c1 csi \u009b31m red":          "c1 csi \uFFFD31m red",
		"dcs \x1bP1$r\x1b\\ end":        "dcs  end",
		"lone esc \x1b":                 "lone esc ",
		"if admin \u202e\u2066 // ok":   "if admin \uFFFD\uFFFD // ok",
		"cr\rback\bspace":               "cr\nback\uFFFDspace",
		"bad utf8 \xff\xfe":             "bad utf8 \uFFFD\uFFFD",
		"emoji 👩‍💻 and é kept":          "emoji 👩‍💻 and é kept",
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

// Whatever comes in, what Printable gives has no byte a terminal acts on:
// no C0 control but tab and newline, no DEL, no C1, no ESC, no bidi
// control, and it is valid UTF-8; text that had none of them comes back
// as it was.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"ok\x1b]52;c;cHduZWQ=\x07 done", "\x1b[31mred", "\u009b2J", "a\u202eb", "\x1bP\x1b\\", "plain text\n\tindented", "\xff\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Printable(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Printable(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || bidiControl(r) {
				t.Fatalf("Printable(%q) = %q holds %U", s, got, r)
			}
		}
		clean := utf8.ValidString(s)
		for _, r := range s {
			clean = clean && (r >= 0x20 && r != 0x7f && (r < 0x80 || r > 0x9f) && !bidiControl(r) || r == '\n' || r == '\t')
		}
		if clean && !strings.Contains(s, "\r") && got != s {
			t.Fatalf("Printable(%q) = %q: clean text changed", s, got)
		}
		// A stream cut anywhere gives what the whole text gives.
		want := Safe(s)
		for _, cut := range []int{0, len(s) / 3, len(s) / 2, len(s) - 1} {
			if cut < 0 || cut > len(s) {
				continue
			}
			var b strings.Builder
			w := NewSafeWriter(&b)
			w.Write([]byte(s[:cut]))
			w.Write([]byte(s[cut:]))
			w.Close()
			if b.String() != want {
				t.Fatalf("SafeWriter(%q cut at %d) = %q, Safe = %q", s, cut, b.String(), want)
			}
		}
		for _, r := range want {
			if r < 0x20 && r != '\n' && r != '\t' && r != 0x1b || r == 0x7f || r >= 0x80 && r <= 0x9f || bidiControl(r) {
				t.Fatalf("Safe(%q) = %q holds %U", s, want, r)
			}
		}
		for i := strings.IndexByte(want, 0x1b); i >= 0; i = strings.IndexByte(want, 0x1b) {
			n, _ := escLen(want[i:])
			if !isSGR(want[i : i+n]) {
				t.Fatalf("Safe(%q) = %q keeps %q", s, want, want[i:i+n])
			}
			want = want[i+n:]
		}
	})
}

// Safe keeps colours and drops every other sequence, as a stream too.
func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1;31mred\x1b[0m":           "\x1b[1;31mred\x1b[0m",
		"\x1b]52;c;cHduZWQ=\x07x":        "x",
		"\x1b[2J\x1b[Hx\x1b[?25l":        "x",
		"a\x1b]0;title\x1b\\b":           "ab",
		"progress 10%\rprogress 20%\r\n": "progress 10%\nprogress 20%\n",
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
	var b strings.Builder
	w := NewSafeWriter(&b)
	for _, piece := range []string{"ok \x1b]5", "2;c;cHdu", "ZWQ=\x07 \x1b[3", "1mred\xe2\x80", "\xae\xe2\x80\xaeend\x1b"} {
		w.Write([]byte(piece))
	}
	w.Close()
	if want := "ok  \x1b[31mred\uFFFD\uFFFDend"; b.String() != want {
		t.Errorf("SafeWriter gave %q, want %q", b.String(), want)
	}
}
