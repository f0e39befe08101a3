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
