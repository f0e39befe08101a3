package verify

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestTableFits: verify's table has one unit of time, right aligned, and
// its result last, wrapped under itself: never padded, and never wider
// than 60, 80 or 120 columns.
func TestTableFits(t *testing.T) {
	items := []*Item{
		{Kind: "lesson", Name: "day070-stream-ordered", Want: "runs", OK: true, Got: "ran 6 cells", Took: 4210 * time.Millisecond},
		{Kind: "solution", Name: "block-pool", Want: "pass", OK: true, Got: "passed", Took: 110 * time.Millisecond},
		{Kind: "exercise", Name: "async-pipeline", Want: "fail", OK: true, Got: "failed: the pool's used high watermark was 0 bytes, want at least 4194304 (check pool-used-high)", Took: 13400 * time.Millisecond},
		{Kind: "exercise", Name: "pool-reuse", Want: "fail", OK: false, Got: "passed: an untouched exercise must fail a check", Took: 980 * time.Millisecond},
	}
	table, surprises := Table(items)
	if surprises != 1 {
		t.Errorf("%d surprises, want 1", surprises)
	}
	for _, width := range []int{60, 80, 120} {
		var b bytes.Buffer
		if err := table.Write(&b, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for i, l := range strings.Split(out, "\n") {
			if w := ansi.StringWidth(l); w > width || l != strings.TrimRight(l, " ") {
				t.Errorf("at %d columns: line %d is %d wide or padded: %q", width, i+1, w, l)
			}
		}
		for _, want := range []string{"0.11s", "4.21s", "13.40s"} {
			if !strings.Contains(out, want) {
				t.Errorf("at %d columns: no %s in:\n%s", width, want, out)
			}
		}
		path := filepath.Join("testdata", fmt.Sprintf("table.%d.golden", width))
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/verify -update creates it)", err)
		}
		if out != string(want) {
			t.Errorf("%s differs (-update to accept); got:\n%s", path, out)
		}
	}
}
