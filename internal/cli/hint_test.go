package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/iostreams"
)

// lessons hint shows one more level each time, keeps what was asked for,
// holds the third back until a check has failed (and says so), and says
// when there is no more; an exercise without hints says where to read
// instead.
func TestHintLevels(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"pipe", "bare"}, nil)
	rewrite(t, dir+"/course.toml", func(s string) string {
		return strings.Replace(s, `solution = "solutions/pipe.cu"`, `solution = "solutions/pipe.cu"
hints = ["Think about which stream owns each buffer.", "cudaMallocAsync and cudaFreeAsync take the stream.", "Allocate at the top of the loop body, free at its end."]`, 1)
	})
	want := []struct{ shown, tail string }{
		{"Hint 1 of 3", "lessons hint pipe again for the next"},
		{"Hint 2 of 3", "The third hint comes after a check has failed: run lessons check first."},
		{"Hint 2 of 3", "The third hint comes after a check has failed: run lessons check first."},
		{"Hint 3 of 3", "That is every hint. The lesson: lessons show 1."},
		{"Hint 3 of 3", "That is every hint."},
	}
	for i, w := range want {
		if i == 3 { // a check of pipe failed
			if err := os.WriteFile(dir+"/.lessons/progress.json", []byte(`{"passed": {}, "hints": {"pipe": 2}, "failed": {"pipe": "2026-11-28T10:00:00Z"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ios, _, out, errOut := iostreams.Test()
		if code := Run(ios, []string{"--course", dir, "hint"}); code != 0 {
			t.Fatalf("hint %d: exit %d: %s", i+1, code, errOut)
		}
		got := out.String()
		if !strings.Contains(got, w.shown) || !strings.Contains(got, w.tail) || strings.Count(got, "Hint ") != []int{1, 2, 2, 3, 3}[i] {
			t.Errorf("hint %d:\n%s\nwant %q and %q", i+1, got, w.shown, w.tail)
		}
	}
	ios, _, out, _ := iostreams.Test()
	if code := Run(ios, []string{"--course", dir, "hint", "bare"}); code != 0 || !strings.Contains(out.String(), "bare has no hints. The lesson: lessons show 1.") {
		t.Errorf("bare: exit %d: %q", code, out)
	}
	ios, _, _, errOut := iostreams.Test()
	if code := Run(ios, []string{"--course", dir, "hint", "nope"}); code == 0 || !strings.Contains(errOut.String(), `no exercise "nope"`) {
		t.Errorf("nope: exit %d: %q", code, errOut)
	}
}

// hint and hints together are a mistake of the manifest, at its line.
func TestHintAndHintsRefused(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"pipe"}, nil)
	rewrite(t, dir+"/course.toml", func(s string) string {
		return s + "hint = \"one\"\nhints = [\"two\"]\n"
	})
	ios, _, _, errOut := iostreams.Test()
	if code := Run(ios, []string{"--course", dir, "hint"}); code == 0 || !strings.Contains(errOut.String(), "both hint and hints") {
		t.Errorf("exit %d: %q", code, errOut)
	}
}

func rewrite(t *testing.T, file string, edit func(string) string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A count in progress.json edited below zero is none asked for yet, never
// a crash.
func TestHintCountBelowZero(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"pipe"}, map[string]string{".lessons/progress.json": `{"passed": {}, "hints": {"pipe": -5}}`})
	rewrite(t, dir+"/course.toml", func(s string) string { return s + "hints = [\"one\", \"two\"]\n" })
	ios, _, out, errOut := iostreams.Test()
	if code := Run(ios, []string{"--course", dir, "hint"}); code != 0 || !strings.Contains(out.String(), "Hint 1 of 2") || strings.Contains(out.String(), "Hint 2") {
		t.Errorf("exit %d: %q %q", code, out, errOut)
	}
}
