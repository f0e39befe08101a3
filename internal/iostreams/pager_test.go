package iostreams

import (
	"strings"
	"testing"
)

func TestPage(t *testing.T) {
	long := strings.Repeat("line\n", 30)
	for _, tc := range []struct {
		name, pager, text string
		tty               bool
		paged             bool
	}{
		{"long on a terminal", "sed s/^/P:/", long, true, true},
		{"short on a terminal", "sed s/^/P:/", "one\ntwo\n", true, false},
		{"piped", "sed s/^/P:/", long, false, false},
		{"PAGER=cat", "cat", long, true, false},
		{"no such pager", "/nonexistent/pager", long, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PAGER", tc.pager)
			s, _, out, _ := Test()
			s.SetTTY(tc.tty)
			if err := s.Page(tc.text); err != nil {
				t.Fatal(err)
			}
			if got := strings.HasPrefix(out.String(), "P:"); got != tc.paged {
				t.Errorf("paged = %v, want %v; out %q", got, tc.paged, out.String()[:min(20, out.Len())])
			}
			if !tc.paged && out.String() != tc.text {
				t.Errorf("out = %q, want the text as is", out.String())
			}
		})
	}
}
