package lms

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// nameKeys are the ways an LMS may run a name together: "Smith, John"
// and "John Smith" both give smithjohn and johnsmith.
func nameKeys(name string) []string {
	squash := func(s string) string {
		var b strings.Builder
		for _, r := range norm.NFD.String(strings.ToLower(s)) {
			if unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) || unicode.IsDigit(r) {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	if last, first, ok := strings.Cut(name, ","); ok {
		return []string{squash(last + first), squash(first + last)}
	}
	words := strings.Fields(name)
	if len(words) < 2 {
		return []string{squash(name)}
	}
	last := words[len(words)-1]
	return []string{squash(name), squash(last + strings.Join(words[:len(words)-1], ""))}
}
