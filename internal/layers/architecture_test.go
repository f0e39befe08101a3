package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// floorRow is a row of ARCHITECTURE.md's table of floors: | N | `pkg` | job |.
var floorRow = regexp.MustCompile("(?m)^\\| (\\d+) \\| `([^`]+)` \\|")

// TestArchitectureListsEveryPackage fails when ARCHITECTURE.md's table of
// floors and the floors above disagree: a package missing there, on
// another floor there, or there and on no floor here.
func TestArchitectureListsEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]int{}
	for _, m := range floorRow.FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(m[1])
		documented[m[2]] = n
	}
	known := map[string]bool{}
	for i, f := range floors {
		for _, p := range f {
			known[p] = true
			switch n, ok := documented[p]; {
			case !ok:
				t.Errorf("%s (floor %d) is not in ARCHITECTURE.md's table of floors: add a row | %d | `%s` | its job |", p, i, i, p)
			case n != i:
				t.Errorf("ARCHITECTURE.md puts %s on floor %d; it is on floor %d here", p, n, i)
			}
		}
	}
	for p := range documented {
		if !known[p] {
			t.Errorf("ARCHITECTURE.md's table of floors names %s, which is on no floor in internal/layers", p)
		}
	}
}
