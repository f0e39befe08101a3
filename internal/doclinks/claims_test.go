package doclinks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// A citation is docs/claims.md sending its reader to lines of a lesson or
// of the instructors' appendix: "day069 (86-96)" in the figures table's
// first column, or "Day 69 (27-37)" in a row's backing. The test holds
// each to the figure it cites: the cited lines must hold that figure's
// numbers, so a citation goes stale the day its lesson moves.
type citation struct {
	line   int    // of docs/claims.md
	file   string // the cited file, relative to the repository's root; "" when no one file is the day's
	ranges [][2]int
	figure string // the text whose numbers the cited lines must hold
	table  bool   // the figures table's first column: every distinctive number must be there
}

var (
	citeTable = regexp.MustCompile(`^\| (day(\d{3})|appendix) \(([0-9][-0-9, ]*)\) \|`)
	citeProse = regexp.MustCompile(`Day (\d+) \(([0-9][-0-9, ]*)\)`)
	numberRe  = regexp.MustCompile(`(?:^|[^\w.])(\d+(?:,\d{3})*(?:\.\d+)?)`)
	// an issue's, a review's or a day's number names it: it is no figure
	namesRe = regexp.MustCompile(`(?i)\b(issue|review|days?|recheck|session) \d+`)
	wordRe  = regexp.MustCompile(`\b(one|two|three|four|five|six|seven|eight|nine|ten)\b`)
	words   = map[string]string{"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
)

func dayFile(day string) string {
	m, _ := filepath.Glob(filepath.Join(root, "lessons", "day"+day+"-*.md"))
	if len(m) != 1 {
		return ""
	}
	r, err := filepath.Rel(root, m[0])
	if err != nil {
		return ""
	}
	return filepath.ToSlash(r)
}

// parseRanges reads "86-96", "79, 86" or "112-117, 155-173".
func parseRanges(s string) ([][2]int, error) {
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("line %q is not a number", lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("line %q is not a number", hi)
			}
		}
		if a < 1 || b < a {
			return nil, fmt.Errorf("lines %s run backwards", part)
		}
		out = append(out, [2]int{a, b})
	}
	return out, nil
}

// outsideParens drops what a figure says in parentheses: the figures a
// row replaced ("were the H100's ...") and its asides.
func outsideParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// numbers are the numbers a text writes in digits, without thousands
// commas or trailing zeros after the point. A number glued to a letter
// (version "G1", "sm_90") is a name.
func numbers(s string) []string {
	var out []string
	s = namesRe.ReplaceAllString(s, "")
	for _, m := range numberRe.FindAllStringSubmatch(s, -1) {
		n := strings.ReplaceAll(m[1], ",", "")
		if strings.Contains(n, ".") {
			n = strings.TrimRight(strings.TrimRight(n, "0"), ".")
		}
		out = append(out, n)
	}
	return out
}

// spelled adds the numbers up to ten a lesson writes as words ("five
// runs"): a figure's digits may be a lesson's words.
func spelled(s string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		out = append(out, words[w])
	}
	return out
}

// distinctive keeps the numbers a stale line would not hold by chance:
// those with a fraction, or of three digits or more, years aside. A
// figure with none keeps all of its numbers.
func distinctive(ns []string) []string {
	var out []string
	for _, n := range ns {
		year := len(n) == 4 && strings.HasPrefix(n, "20")
		if strings.Contains(n, ".") || len(n) >= 3 && !year {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ns
	}
	return out
}

// holds says whether the lines' numbers include want, written as it is
// or rounded to fewer decimals (claims.md's 100.252 ms is a lesson's
// 100.25 ms).
func holds(have []string, want string) bool {
	w, err := strconv.ParseFloat(want, 64)
	for _, h := range have {
		if h == want {
			return true
		}
		_, frac, ok := strings.Cut(h, ".")
		if !ok || err != nil || !strings.Contains(want, ".") {
			continue
		}
		if strconv.FormatFloat(w, 'f', len(frac), 64) == h {
			return true
		}
	}
	return false
}

func citations(t *testing.T, claims string) []citation {
	t.Helper()
	var out []citation
	for i, text := range strings.Split(claims, "\n") {
		if m := citeTable.FindStringSubmatch(text); m != nil {
			file := "docs/course-appendix.md"
			if m[2] != "" {
				file = dayFile(m[2])
			}
			rs, err := parseRanges(m[3])
			if err != nil {
				t.Errorf("docs/claims.md:%d: %v", i+1, err)
				continue
			}
			cells := strings.Split(text, " | ")
			if len(cells) < 2 {
				t.Errorf("docs/claims.md:%d: a row of the figures table with no figure", i+1)
				continue
			}
			out = append(out, citation{line: i + 1, file: file, ranges: rs, figure: cells[1], table: true})
			continue
		}
		for _, m := range citeProse.FindAllStringSubmatchIndex(text, -1) {
			rs, err := parseRanges(text[m[4]:m[5]])
			if err != nil {
				t.Errorf("docs/claims.md:%d: %v", i+1, err)
				continue
			}
			day := text[m[2]:m[3]]
			// the figure is what the cell says up to 400 bytes before the
			// citation, and the rest of its sentence
			start := max(strings.LastIndex(text[:m[0]], " | ")+3, m[0]-400)
			end := len(text)
			for _, stop := range []string{". ", " |"} {
				if k := strings.Index(text[m[1]:], stop); k >= 0 {
					end = min(end, m[1]+k)
				}
			}
			figure := text[start:m[0]] + " " + text[m[1]:end]
			out = append(out, citation{line: i + 1, file: dayFile(fmt.Sprintf("%03s", day)), ranges: rs, figure: figure})
		}
	}
	return out
}

// TestClaimsCiteLines fails when docs/claims.md cites lines of a lesson
// that do not hold the figure it cites: in the figures table, every
// distinctive number of the row's figure; in a row's backing, at least
// one number of the text around the citation.
func TestClaimsCiteLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "claims.md"))
	if err != nil {
		t.Fatal(err)
	}
	cs := citations(t, string(data))
	if len(cs) < 30 {
		t.Fatalf("found %d citations in docs/claims.md; its figures table alone has more: has the form of a citation changed?", len(cs))
	}
	read := func(file string) ([]byte, error) { return os.ReadFile(filepath.Join(root, filepath.FromSlash(file))) }
	for _, c := range cs {
		if msg := stale(c, read); msg != "" {
			t.Error(msg)
		}
	}
}

// TestStaleCitation holds the rule to a lesson that moved: the same row
// passes on the lines that say its figure and fails two lines off.
func TestStaleCitation(t *testing.T) {
	lesson := "# Day 99\n\nintro\n\nthe loop took 96.21 ms against 6.34 ms,\na speedup of 15.1x.\n"
	read := func(string) ([]byte, error) { return []byte(lesson), nil }
	row := func(lines string) citation {
		cs := citations(t, "| day099 ("+lines+") | 96.21 ms against 6.34 ms, 15.1x (were 98.4 ms) | `D99` | x |\n")
		if len(cs) != 1 {
			t.Fatalf("citations of one row: %d", len(cs))
		}
		cs[0].file = "lessons/day099-x.md"
		return cs[0]
	}
	if msg := stale(row("5-6"), read); msg != "" {
		t.Errorf("the right lines: %s", msg)
	}
	if msg := stale(row("3-4"), read); !strings.Contains(msg, "96.21, 6.34, 15.1") {
		t.Errorf("stale lines: got %q, want the three figures named", msg)
	}
	if msg := stale(row("5"), read); !strings.Contains(msg, "15.1") || strings.Contains(msg, "96.21,") {
		t.Errorf("half the figure: got %q, want 15.1 alone named", msg)
	}
	if msg := stale(row("5-9"), read); !strings.Contains(msg, "past its") {
		t.Errorf("past the end: got %q", msg)
	}
	prose := citations(t, "| a claim | measured 100.252 ms (`M3`); Day 99 (5-6) quotes it |\n")
	prose[0].file = "lessons/day099-x.md"
	if msg := stale(prose[0], read); !strings.Contains(msg, "100.252") {
		t.Errorf("a backing's figure not in its lines: got %q", msg)
	}
}

// stale says what is wrong with one citation, or "".
func stale(c citation, read func(string) ([]byte, error)) string {
	if c.file == "" {
		return fmt.Sprintf("docs/claims.md:%d cites a day with no one lesson under lessons/", c.line)
	}
	src, err := read(c.file)
	if err != nil {
		return fmt.Sprintf("docs/claims.md:%d: %v", c.line, err)
	}
	lines := strings.Split(string(src), "\n")
	var held, heldText []string
	for _, r := range c.ranges {
		if r[1] > len(lines) {
			return fmt.Sprintf("docs/claims.md:%d cites %s:%d-%d, past its %d lines", c.line, c.file, r[0], r[1], len(lines))
		}
		text := strings.Join(lines[r[0]-1:r[1]], "\n")
		held = append(held, numbers(text)...)
		held = append(held, spelled(text)...)
		heldText = append(heldText, text)
	}
	want := distinctive(numbers(outsideParens(c.figure)))
	if len(want) == 0 {
		want = distinctive(numbers(c.figure))
	}
	var missing []string
	for _, n := range want {
		if !holds(held, n) {
			missing = append(missing, n)
		}
	}
	if len(want) == 0 {
		// a figure without numbers ("several times longer"): most of its long words
		want = longWords(c.figure)
		text := strings.ToLower(strings.Join(heldText, "\n"))
		for _, w := range want {
			if !strings.Contains(text, w) {
				missing = append(missing, w)
			}
		}
		if 2*len(missing) <= len(want) {
			missing = nil
		}
	}
	if len(missing) > 0 && (c.table || len(missing) == len(want)) {
		return fmt.Sprintf("docs/claims.md:%d cites %s lines %s, which do not hold %s of its figure %q: cite the lines that say it",
			c.line, c.file, rangesString(c.ranges), strings.Join(missing, ", "), strings.TrimSpace(c.figure))
	}
	return ""
}

func rangesString(rs [][2]int) string {
	var parts []string
	for _, r := range rs {
		if r[0] == r[1] {
			parts = append(parts, strconv.Itoa(r[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
	}
	return strings.Join(parts, ", ")
}

// longWords are a figure's words of six letters or more, lower case.
func longWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 6 {
			out = append(out, w)
		}
	}
	return out
}
