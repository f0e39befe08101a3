package gradebook

import (
	"regexp"
	"strings"
	"testing"
)

// tagRE finds every tag of a page, and attrRE an attribute in one.
var (
	tagRE  = regexp.MustCompile(`<(/?)([A-Za-z!?][A-Za-z0-9-]*)([^>]*)>`)
	attrRE = regexp.MustCompile(`\s[A-Za-z-]+\s*=`)
)

// feedbackTags are the tags the feedback's own markdown makes; a
// student's output may add none, nor an attribute to one.
var feedbackTags = map[string]bool{"h1": true, "h2": true, "p": true, "strong": true, "em": true, "table": true, "thead": true,
	"tbody": true, "tr": true, "th": true, "td": true, "ul": true, "li": true, "br": true, "blockquote": true}

// FuzzFeedbackHTML: what a student's program printed (a check's
// expected and seen, the reason), a spec's check name and hint, and the
// student's id reach STUDENT.html and the class page's Submit: none may
// make a tag, an attribute, a link or a script there.
func FuzzFeedbackHTML(f *testing.F) {
	for _, s := range []string{
		"<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))",
		"<javascript:alert(1)>", "&lt;script&gt;", "&#x3C;script&#x3E;alert(1)&#x3C;/script&#x3E;",
		"![x](data:text/html,<script>alert(1)</script>)", "`<b>`", "<!-- x", "<![CDATA[<script>]]>",
		"| a | b |\n|---|---|\n| <i>x</i> |", "\\<script>", "\\\\<b>x</b>", "&#60;svg onload=alert(1)&#62;",
		"www.evil.example/<x>", "<?php ?>", "*<em>*", "\u2028<b>\u2029",
	} {
		f.Add(s, "alice")
	}
	f.Fuzz(func(t *testing.T, evil, student string) {
		a := &Attempt{Student: student, Exercise: "pool", Status: Failed, MaxPoints: 10, Reason: evil,
			Checks: []Check{{Name: evil, Passed: true, Got: evil}, {Name: evil, Expected: evil, Got: evil, Hint: evil}}}
		s := &Sheet{Exercises: []Exercise{{ID: "pool", Points: 10}}, Students: []string{student}, Max: 10,
			Grades: map[string]map[string]*Attempt{student: {"pool": a}}}
		frag, err := s.FeedbackFragment(student)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tagRE.FindAllStringSubmatch(frag, -1) {
			if !feedbackTags[strings.ToLower(m[2])] {
				t.Fatalf("a tag %q from %q:\n%s", m[0], evil, frag)
			}
			if attrRE.MatchString(m[3]) {
				t.Fatalf("an attribute %q from %q:\n%s", m[0], evil, frag)
			}
		}
		page, err := s.FeedbackHTML(student)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(page), "</head>")
		if strings.Count(head, "<title>") != 1 || strings.Count(head, "</title>") != 1 {
			t.Fatalf("the title was broken out of by %q:\n%s", student, head)
		}
	})
}

// FuzzCSVText: no cell CSVText writes starts as a spreadsheet formula,
// and FromCSVText gives back what it was given.
func FuzzCSVText(f *testing.F) {
	for _, s := range []string{"=1+1", "'=1+1", "''", "'", "+", "-2", "@x", "\tx", "\rx", "alice", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CSVText(s)
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			t.Fatalf("CSVText(%q) = %q starts as a formula", s, c)
		}
		if back := FromCSVText(c); back != s {
			t.Fatalf("FromCSVText(CSVText(%q)) = %q", s, back)
		}
	})
}
