package ui

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/ui -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./internal/ui -run '%s' -update to accept); got:\n%s", path, t.Name(), got)
	}
}

// fits checks that no line of out is wider than width and that out holds
// every word of in, in order.
func fits(t *testing.T, in, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d wide, more than %d: %q", i+1, w, width, l)
		}
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if squash(in) != squash(out) {
		t.Errorf("text lost or added:\n%s\n---\n%s", in, out)
	}
}

// TestFit: lessons help and lessons doctor (as printed on a machine with
// no GPU) fit 60, 80 and 120 columns, each long line hanging under its
// last column.
func TestFit(t *testing.T) {
	for _, name := range []string{"help", "help-verify", "doctor"} {
		in, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{60, 80, 120} {
			t.Run(fmt.Sprintf("%s/%d", name, width), func(t *testing.T) {
				got := Fit(string(in), width)
				fits(t, string(in), got, width)
				golden(t, fmt.Sprintf("%s.%d.golden", name, width), got)
			})
		}
	}
	got := Fit("  lessons serve     the same site at http://127.0.0.1:3000/, reloaded on every save", 60)
	want := "  lessons serve     the same site at http://127.0.0.1:3000/,\n                    reloaded on every save"
	if got != want {
		t.Errorf("Fit = %q, want %q", got, want)
	}
}

func gradeTable(exercises int) Table {
	t := Table{Header: []string{"STUDENT"}}
	for i := range exercises {
		t.Header = append(t.Header, fmt.Sprintf("exercise-%d", i+1))
	}
	t.Header = append(t.Header, "TOTAL")
	for _, st := range []string{"alice", "bob"} {
		row := []string{st}
		for i := range exercises {
			if i%2 == 0 {
				row = append(row, "✓ 10")
			} else {
				row = append(row, "✗ 3 the pool's high watermark was 0, want at least 4194304")
			}
		}
		row = append(row, fmt.Sprintf("%d/%d", 40, exercises*10))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// TestTable: a table fits its terminal: in columns when it can, with its
// last column wrapped under itself, or as a list of records.
func TestTable(t *testing.T) {
	verify := Table{Header: []string{"KIND", "NAME", "EXPECTED", "TIME", "RESULT"}, Right: []bool{false, false, false, true},
		Rows: [][]string{
			{"solution", "block-pool", "pass", "0.11s", "✓ passed"},
			{"exercise", "async-pipeline", "fail", "13.40s", "✓ failed: the pool's used high watermark was 0 bytes, want at least 4194304 (check pool-used-high)"},
		}}
	for _, tc := range []struct {
		name  string
		table Table
	}{{"verify", verify}, {"grade2", gradeTable(2)}, {"grade7", gradeTable(7)}} {
		for _, width := range []int{60, 80, 120} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, width), func(t *testing.T) {
				var b bytes.Buffer
				if err := tc.table.Write(&b, width); err != nil {
					t.Fatal(err)
				}
				var in strings.Builder
				for _, r := range append([][]string{tc.table.Header}, tc.table.Rows...) {
					in.WriteString(strings.Join(r, " ") + "\n")
				}
				for i, l := range strings.Split(b.String(), "\n") {
					if w := ansi.StringWidth(l); w > width {
						t.Errorf("line %d is %d wide, more than %d: %q", i+1, w, width, l)
					}
					if l != strings.TrimRight(l, " ") {
						t.Errorf("line %d is padded: %q", i+1, l)
					}
				}
				golden(t, fmt.Sprintf("table-%s.%d.golden", tc.name, width), b.String())
			})
		}
	}
}

// FuzzFit: any text fits any width of 20 or more, and keeps every
// character it showed, in order.
func FuzzFit(f *testing.F) {
	f.Add("  lessons serve     the same site at http://127.0.0.1:3000/, reloaded on every save", 30)
	f.Add("GPU                 none: cuInit\n                    → lessons can still compile", 20)
	f.Fuzz(func(t *testing.T, text string, width int) {
		if width < 20 || width > 200 || !utf8.ValidString(text) {
			return
		}
		for _, r := range text {
			if r != '\n' && (r < ' ' || ansi.StringWidth(string(r)) != 1) {
				return
			}
		}
		got := Fit(text, width)
		for _, l := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Fatalf("line %q is %d wide, more than %d", l, w, width)
			}
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if squash(got) != squash(text) {
			t.Fatalf("text lost or added:\n%q\n%q", text, got)
		}
	})
}

func TestReflow(t *testing.T) {
	in := "Verify the whole course,\nas its author must.\n\nUsage:\n  lessons verify\n- one item\n  indented\n- two\nwrapped on\nFlags:\n"
	want := "Verify the whole course, as its author must.\n\nUsage:\n  lessons verify\n- one item\n  indented\n- two wrapped on\nFlags:\n"
	if got := Reflow(in); got != want {
		t.Errorf("Reflow:\n%q\nwant\n%q", got, want)
	}
}

// TestFitLongWord: a program's output printed with no space (check -v
// shows up to a megabyte of it, fitted to the terminal) is cut into lines
// in time linear in its length: cut as ansi.Cut cuts it, from the start
// each time, a megabyte took minutes and watch froze.
func TestFitLongWord(t *testing.T) {
	word := strings.Repeat("x", 1<<20)
	got := Fit(word, 80)
	lines := strings.Split(got, "\n")
	if len(lines) != (1<<20+79)/80 || strings.Join(lines, "") != word {
		t.Fatalf("Fit cut %d bytes into %d lines, want %d lines of the same bytes", len(word), len(lines), (1<<20+79)/80)
	}
	for _, l := range lines {
		if len(l) > 80 {
			t.Fatalf("a line of %d columns at width 80", len(l))
		}
	}
	// Wide characters and bytes that are not UTF-8 are cut whole.
	for _, w := range []string{strings.Repeat("界", 50), strings.Repeat("a\xff", 60)} {
		for _, l := range strings.Split(Fit(w, 21), "\n") {
			if !utf8.ValidString(l) && !strings.Contains(w, "\xff") || len(l) == 0 {
				t.Fatalf("Fit(%q, 21) has line %q", w, l)
			}
		}
		if strings.ReplaceAll(Fit(w, 21), "\n", "") != w {
			t.Fatalf("Fit(%q, 21) lost bytes", w)
		}
	}
}

// A verdict's line wraps the same in colour as without: its mark in red
// (check's ✗ with a terminal's colours) still hangs the rest under the
// check's name.
func TestFitColouredMark(t *testing.T) {
	plain := "  ✗ the pool's release threshold is kept high enough that nothing is given back between iterations (0 of 5 points)"
	red := strings.Replace(plain, "✗", "\x1b[31m✗\x1b[0m", 1)
	want := Fit(plain, 60)
	if got := ansi.Strip(Fit(red, 60)); got != want {
		t.Errorf("in colour:\n%s\nwithout:\n%s", got, want)
	}
}
