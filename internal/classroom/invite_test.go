package classroom

import (
	"strings"
	"testing"
)

// The invitation links' CSV (lessons invite --out) is opened in a
// spreadsheet for a mail merge: a student's name that is a formula is
// written as text.
func TestWriteLinksNamesAreText(t *testing.T) {
	var b strings.Builder
	links := []Link{{Student: Student{ID: "s1", Name: "=HYPERLINK(\"http://x\",\"y\")", Email: "a@b"}, URL: "http://h/l"}}
	if err := WriteLinks(&b, links); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), ",=HYPERLINK") || !strings.Contains(b.String(), "'=HYPERLINK") {
		t.Errorf("the name was written as a formula:\n%s", b.String())
	}
}

// An email is the student's own in Moodle, and =cmd|'/Ccalc'!A0@x.y is
// an address the roster takes: it is written as text too.
func TestWriteLinksEmailsAreText(t *testing.T) {
	var b strings.Builder
	links := []Link{{Student: Student{ID: "s1", Name: "Mallory", Email: `=cmd|'/Ccalc'!A0@x.y`}, URL: "http://h/l"}}
	if err := WriteLinks(&b, links); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), ",=cmd") || !strings.Contains(b.String(), ",'=cmd") {
		t.Errorf("the email was written as a formula:\n%s", b.String())
	}
}
