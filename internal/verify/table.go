package verify

import (
	"fmt"
	"time"

	"github.com/cudalessons/lessons/internal/ui"
)

// Table is the verify table for a terminal, and how many items surprised
// (did not do what was expected). Times are in one unit, seconds, right
// aligned, so a column of them compares at a glance; the result, the one
// cell of any length, comes last, so nothing is padded after it.
func Table(items []*Item) (ui.Table, int) {
	t := ui.Table{Header: []string{"KIND", "NAME", "EXPECTED", "TIME", "RESULT"}, Right: []bool{false, false, false, true}}
	surprises := 0
	for _, it := range items {
		mark := "✓"
		if it.Skipped {
			mark = "-"
		}
		if !it.OK {
			mark = "✗"
			surprises++
		}
		t.Rows = append(t.Rows, []string{it.Kind, it.Name, it.Want, Seconds(it.Took), mark + " " + it.Got})
	}
	return t, surprises
}

// Seconds is a duration in seconds with two decimals: 0.11s, 4.21s, 13.40s.
func Seconds(d time.Duration) string {
	return fmt.Sprintf("%.2fs", d.Seconds())
}
