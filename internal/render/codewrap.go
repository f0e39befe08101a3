package render

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// wrapCode breaks a line of code (plain or colored) into pieces of at
// most room columns. It breaks between tokens near the edge, as an editor
// that wraps code does: best after a space, else after punctuation that
// ends a token (a comma, an opening bracket, ::) and before a name; never
// inside a name or a number, and never so that a piece starts with
// closing punctuation. Only a run with no such place in its last half is
// cut at the edge.
func wrapCode(line string, room int) []string {
	plain := []rune(ansi.Strip(line))
	cols := make([]int, len(plain)+1) // cols[i]: the column before rune i
	for i, r := range plain {
		cols[i+1] = cols[i] + max(ansi.StringWidth(string(r)), 0)
	}
	if cols[len(plain)] <= room {
		return []string{line}
	}
	var pieces []string
	start := 0
	for cols[len(plain)]-cols[start] > room {
		b := codeBreak(plain, cols, start, room)
		pieces = append(pieces, ansi.Cut(line, cols[start], cols[b]))
		start = b
	}
	return append(pieces, ansi.Cut(line, cols[start], cols[len(plain)]))
}

// codeBreak picks where the piece that starts at rune start ends.
func codeBreak(plain []rune, cols []int, start, room int) int {
	last := start + 1 // the last rune index a piece may end before
	for last < len(plain) && cols[last+1]-cols[start] <= room {
		last++
	}
	// Near the edge first (a break in the first half leaves a short
	// piece), then anywhere rather than inside a name.
	for _, near := range []int{cols[start] + room/2, cols[start] + 1} {
		for _, ok := range []func(prev, cur rune) bool{afterSpace, betweenTokens} {
			for b := last; b > start && cols[b] >= near; b-- {
				if ok(plain[b-1], plain[b]) {
					return b
				}
			}
		}
	}
	return last
}

func afterSpace(prev, cur rune) bool {
	return prev == ' ' && cur != ' ' && !strings.ContainsRune(closing, cur)
}

// closing is punctuation that stays with what it closes or ends.
const closing = ")]};,."

func betweenTokens(prev, cur rune) bool {
	switch {
	case strings.ContainsRune(closing, cur):
		return false
	case identRune(prev) && identRune(cur):
		return false // inside a name or number
	case prev == '"' || prev == '\'':
		return false
	}
	return strings.ContainsRune(",;([{:", prev) || !identRune(prev) && identRune(cur) || identRune(prev) && !identRune(cur) && cur != '(' && cur != '['
}

func identRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
