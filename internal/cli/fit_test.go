package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/cudalessons/lessons/internal/iostreams"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/cli -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./internal/cli -run '%s' -update to accept); got:\n%s", path, t.Name(), got)
	}
}

// TestOutputFits: lessons help (and a command's), and lessons list, fit
// 60, 80 and 120 columns (help had 16 lines over 80).
func TestOutputFits(t *testing.T) {
	for _, width := range []int{60, 80, 120} {
		for _, args := range [][]string{{"help"}, {"help", "verify"}, {"list"}} {
			t.Run(fmt.Sprintf("%s/%d", strings.Join(args, "-"), width), func(t *testing.T) {
				ios, _, out, errOut := iostreams.Test()
				ios.SetWidth(width)
				root := NewRoot(ios)
				dir := "../.." // the course's own help
				if args[0] == "list" {
					dir = tinyCourse(t) // no student's progress
				}
				root.SetArgs(append(args, "--course", dir))
				if err := root.Execute(); err != nil {
					t.Fatalf("%v: %s", err, errOut)
				}
				for i, l := range strings.Split(out.String(), "\n") {
					if w := ansi.StringWidth(l); w > width {
						t.Errorf("line %d is %d wide, more than %d: %q", i+1, w, width, l)
					}
				}
				// --jobs defaults to this machine's cores: the golden
				// says so in words, and holds on a machine of any size.
				got := strings.ReplaceAll(out.String(), fmt.Sprintf("builds at once (default %d)", runtime.NumCPU()), "builds at once (default: the cores)")
				golden(t, fmt.Sprintf("%s.%d.golden", strings.Join(args, "-"), width), got)
			})
		}
	}
}
