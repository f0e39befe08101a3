package lesson

import "testing"

// TestTitleIsPlainText: a title with a terminal's escape sequences (their
// payload too), a NUL, a line break or a bidirectional override (from a
// notebook's heading, its metadata or front matter) comes out as one line
// of plain text.
func TestTitleIsPlainText(t *testing.T) {
	md := "# Day 1\x1b[2J\x1b]0;pwned\x07 \u202eevil\n\ntext\n"
	l, err := Parse("day001.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Day 1 \ufffdevil"; l.Title != want {
		t.Errorf("markdown title %q, want %q", l.Title, want)
	}
	nb := `{"cells":[{"cell_type":"markdown","metadata":{},"source":["# Pools\u001b[31m red\u0000 \u2028next"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`
	l, err = ParseIpynb("day002.ipynb", []byte(nb))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Pools red\ufffd next"; l.Title != want {
		t.Errorf("notebook title %q, want %q", l.Title, want)
	}
	for in, want := range map[string]string{"": "", "  a\tb\r\nc  ": "a b c", "ok": "ok", "x\u0085y": "x\ufffdy"} {
		if got := PlainTitle(in); got != want {
			t.Errorf("PlainTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
