package lms

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// The attacks of a student on their classmates through the LMS's
// download: each builds the download a hostile student can make (what
// they upload, what they call themselves) and checks that no one's
// entry stands for another's and that no one's entry stops the class.

// arrangeQuiet arranges src and gives the class and the folder it wrote.
func arrangeQuiet(t *testing.T, src string, r []gradebook.Person) (*Class, string) {
	t.Helper()
	ts, err := Targets(testCourse(t))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cl, err := Arrange(src, out, ts, Options{Roster: r})
	if err != nil {
		t.Fatalf("arrange: %v", err)
	}
	return cl, out
}

func readOr(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return string(data)
}

// Door 1: a Moodle download without folders, where a student's upload
// is named with a classmate's id after Moodle's mark: Moodle's name for
// it ends with the student's own name, so the first mark is Moodle's.
func TestAttackMoodleUploadNamedForAClassmate(t *testing.T) {
	forged := zipOf(t, entry{name: "day070/async_pipeline.cu", data: "// MALLORY\n" + pipeDone})
	src := writeZip(t,
		entry{name: "Victor Ward_999_assignsubmission_file_async_pipeline.cu", data: "// victor\n" + pipeDone},
		entry{name: "Mallory Hill_111_assignsubmission_file_x_999_assignsubmission_file_notes.zip", data: string(forged)},
		entry{name: "Ana López_222_assignsubmission_file_async_pipeline.cu", data: "// ana\n" + pipeDone},
	)
	for _, r := range [][]gradebook.Person{nil, {
		{ID: "vward", Name: "Victor Ward", LMSID: "999"},
		{ID: "mhill", Name: "Mallory Hill", LMSID: "111"},
		{ID: "alopez", Name: "Ana López", LMSID: "222"},
	}} {
		cl, out := arrangeQuiet(t, src, r)
		if cl.Layout != Moodle {
			t.Fatalf("layout %s", cl.Layout)
		}
		victim := "victor-ward"
		if r != nil {
			victim = "vward"
		}
		got := readOr(t, filepath.Join(out, victim, "day070/async_pipeline.cu"))
		if !strings.HasPrefix(got, "// victor") {
			t.Errorf("roster %v: the victim's graded file is %q, want their own", r != nil, firstLine(got))
		}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if d != nil && !d.IsDir() && strings.Contains(readOr(t, p), "MALLORY") && !strings.Contains(p, "mallory") && !strings.Contains(p, "mhill") {
				t.Errorf("roster %v: the attacker's file was filed at %s", r != nil, p)
			}
			return nil
		})
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Door 1, the attack of our own: a student whose display name is a
// classmate's (Canvas and Moodle let a student edit it), with a roster
// that has no LMS ids, so that names join submissions to it. Whatever
// the order the two sort in, the classmate's row is never the
// attacker's.
func TestAttackDisplayNameOfAClassmate(t *testing.T) {
	for _, ids := range [][2]string{{"1000", "1001"}, {"1002", "1001"}} {
		attacker, victim := ids[0], ids[1]
		src := writeZip(t,
			entry{name: "smithjohn_" + victim + "_5001_async_pipeline.cu", data: "// john\n" + pipeDone},
			entry{name: "smithjohn_" + attacker + "_5002_async_pipeline.cu", data: "// FAKE\n" + pipeStub},
		)
		cl, out := arrangeQuiet(t, src, []gradebook.Person{{ID: "jsmith", Name: "John Smith"}})
		if got := readOr(t, filepath.Join(out, "jsmith/day070/async_pipeline.cu")); strings.Contains(got, "FAKE") {
			t.Errorf("attacker %s: the roster's jsmith was graded on the attacker's file", attacker)
		}
		for _, p := range cl.People {
			if p.ID == "jsmith" && p.LMSID == attacker {
				t.Errorf("attacker %s: jsmith's LMS id is the attacker's: grades would go to them", attacker)
			}
		}
	}
}

// Door 2: a Canvas download where one student's upload is named with
// Moodle's mark and holds more entries than the class has files: the
// layout is the LMS's (Canvas), and every classmate is graded.
func TestAttackCanvasReadAsMoodle(t *testing.T) {
	var many []entry
	for i := 0; i < 50; i++ {
		many = append(many, entry{name: fmt.Sprintf("f%02d.txt", i), data: "x"})
	}
	src := writeZip(t,
		entry{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// john\n" + pipeDone},
		entry{name: "doejane_1002_5002_async_pipeline.cu", data: "// jane\n" + pipeDone},
		entry{name: "lopezana_1003_5003_async_pipeline.cu", data: "// ana\n" + pipeDone},
		entry{name: "hillmallory_1004_5004_x_1001_assignsubmission_file_.zip", data: string(zipOf(t, many...))},
	)
	cl, out := arrangeQuiet(t, src, nil)
	if cl.Layout != Canvas {
		t.Fatalf("layout %s, want canvas", cl.Layout)
	}
	for _, who := range []string{"smithjohn", "doejane", "lopezana"} {
		if got := readOr(t, filepath.Join(out, who, "day070/async_pipeline.cu")); got == "" {
			t.Errorf("%s's file was not kept", who)
		}
	}
}

// Door 2, the attack of our own: many uploads, not many entries in one:
// Canvas makes each of a student's files a top-level entry, so a student
// who uploads more files than the class has students, each named with
// Moodle's mark, still has one vote.
func TestAttackManyUploadsNamedAsMoodle(t *testing.T) {
	es := []entry{
		{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// john\n" + pipeDone},
		{name: "doejane_1002_5002_async_pipeline.cu", data: "// jane\n" + pipeDone},
	}
	for i := 0; i < 5; i++ {
		es = append(es, entry{name: fmt.Sprintf("hillmallory_1004_5004_%d_1001_assignsubmission_file_x.cu", i), data: "x"})
	}
	cl, _ := arrangeQuiet(t, writeZip(t, es...), nil)
	if cl.Layout != Canvas {
		t.Fatalf("layout %s, want canvas", cl.Layout)
	}
}

// Door 3: one student's upload of two zips of 26,000 empty entries
// each (a few hundred KB) is refused and listed; the class is graded.
func TestAttackOneZipStopsTheClass(t *testing.T) {
	bomb := make([]entry, 26000)
	for i := range bomb {
		bomb[i] = entry{name: fmt.Sprintf("e%05d", i)}
	}
	b := string(zipOf(t, bomb...))
	outer := zipOf(t, entry{name: "a.zip", data: b}, entry{name: "b.zip", data: b})
	src := writeZip(t,
		entry{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// john\n" + pipeDone},
		entry{name: "hillmallory_1004_5004_work.zip", data: string(outer)},
		entry{name: "doejane_1002_5002_async_pipeline.cu", data: "// jane\n" + pipeDone},
	)
	cl, out := arrangeQuiet(t, src, nil)
	for _, who := range []string{"smithjohn", "doejane"} {
		if readOr(t, filepath.Join(out, who, "day070/async_pipeline.cu")) == "" {
			t.Errorf("%s's file was not kept", who)
		}
	}
	refused := false
	for _, n := range cl.Notes {
		if n.Kind == Refused && n.File == "hillmallory_1004_5004_work.zip" && strings.Contains(n.Why, "more than 2000 files") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the bomb is not listed as refused: %+v", cl.Notes)
	}
}

// Door 3, the attack of our own: the same bomb spread over many uploads
// of one student, each under a per-entry budget, together over the
// download's: a student's budget is theirs across all their entries.
func TestAttackBombSpreadOverUploads(t *testing.T) {
	part := make([]entry, 1800)
	for i := range part {
		part[i] = entry{name: fmt.Sprintf("e%04d", i)}
	}
	p := string(zipOf(t, part...))
	es := []entry{{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// john\n" + pipeDone}}
	for i := 0; i < 30; i++ {
		es = append(es, entry{name: fmt.Sprintf("hillmallory_1004_5004_part%02d.zip", i), data: p})
	}
	cl, out := arrangeQuiet(t, writeZip(t, es...), nil)
	if readOr(t, filepath.Join(out, "smithjohn", "day070/async_pipeline.cu")) == "" {
		t.Errorf("john's file was not kept")
	}
	n := 0
	for _, note := range cl.Notes {
		if note.Kind == Refused && strings.HasPrefix(note.File, "hillmallory") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d refusals of the attacker's uploads, want one", n)
	}
}

// A Moodle name with the mark twice, as a file (the student named it,
// or put the mark in their display name), stands for no one; as a
// folder, the last mark ends it and is Moodle's.
func TestParseMoodle(t *testing.T) {
	for _, tc := range []struct {
		in     string
		folder bool
		id     string
		amb    bool
	}{
		{"John Smith_111_assignsubmission_file_x.cu", false, "111", false},
		{"John Smith_111_assignsubmission_file_", true, "111", false},
		{"x_999_assignsubmission_file_ Eve_111_assignsubmission_file_", true, "111", false},
		{"Eve_111_assignsubmission_file_x_999_assignsubmission_file_n.zip", true, "111", true},
		{"Eve_111_assignsubmission_file_x_999_assignsubmission_file_", false, "111", true},
		{"a_1_assignsubmission_file_2_assignsubmission_file_x", false, "1", true},
	} {
		e, ok := parseMoodle(tc.in, tc.folder)
		if !ok || e.id != tc.id || e.ambiguous != tc.amb {
			t.Errorf("parseMoodle(%q, %v) = %+v, %v; want id %s, ambiguous %v", tc.in, tc.folder, e, ok, tc.id, tc.amb)
		}
	}
}

// FuzzParseMoodle: whatever a student calls their file, Moodle's name
// for it is read as their id or as no one's.
func FuzzParseMoodle(f *testing.F) {
	f.Add("Mallory", "111", "x_999_assignsubmission_file_n.zip", false)
	f.Add("x_999_assignsubmission_file_ Eve", "111", "", true)
	f.Fuzz(func(t *testing.T, name, id, upload string, folder bool) {
		if id == "" || strings.Trim(id, "0123456789") != "" || name == "" || strings.Contains(name, "_") && !folder {
			return
		}
		if folder {
			upload = ""
		}
		e, ok := parseMoodle(name+"_"+id+"_assignsubmission_file_"+upload, folder)
		if !ok {
			t.Fatalf("not read as Moodle's")
		}
		if !e.ambiguous && e.id != id {
			t.Errorf("%q / %q / %q read as id %q", name, id, upload, e.id)
		}
	})
}

// overlapZip is a zip whose copies entries all point at one stored
// file's data (a "full overlap" bomb, after Fifield's non-recursive zip
// bomb): each entry's ratio is that of its data, the whole inflates
// copies times over.
func overlapZip(t *testing.T, data string, copies int) []byte {
	t.Helper()
	one := zipOf(t, entry{name: "a0000.txt", data: data})
	eocd := bytes.LastIndex(one, []byte("PK\x05\x06"))
	cdOff := int(binary.LittleEndian.Uint32(one[eocd+16:]))
	cd := one[cdOff:eocd]
	out := append([]byte(nil), one[:cdOff]...)
	for i := 0; i < copies; i++ {
		rec := append([]byte(nil), cd...)
		copy(rec[46:], fmt.Sprintf("a%04d.txt", i))
		out = append(out, rec...)
	}
	end := append([]byte(nil), one[eocd:]...)
	binary.LittleEndian.PutUint16(end[8:], uint16(copies))
	binary.LittleEndian.PutUint16(end[10:], uint16(copies))
	binary.LittleEndian.PutUint32(end[12:], uint32(len(cd)*copies))
	binary.LittleEndian.PutUint32(end[16:], uint32(cdOff))
	return append(out, end...)
}

// Door 3, a trick from public sources (Fifield's overlapping zip bomb):
// a student's 2 MiB zip whose entries overlap inflates to 120 MiB, each
// entry within the ratio limit. One student's budget of bytes refuses it,
// listed; the class is read.
func TestAttackOverlappingZipBomb(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 4<<20-64; i++ {
		fmt.Fprintf(&b, "%x", i*2654435761)
	}
	bomb := overlapZip(t, b.String()[:4<<20-64], 30)
	src := writeZip(t,
		entry{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// john\n" + pipeDone},
		entry{name: "hillmallory_1004_5004_work.zip", data: string(bomb), store: true},
	)
	cl, out := arrangeQuiet(t, src, nil)
	if readOr(t, filepath.Join(out, "smithjohn", "day070/async_pipeline.cu")) == "" {
		t.Errorf("john's file was not kept")
	}
	refused := false
	for _, n := range cl.Notes {
		refused = refused || n.Kind == Refused && strings.HasPrefix(n.File, "hillmallory") && strings.Contains(n.Why, "bytes")
	}
	if !refused {
		t.Errorf("the overlapping bomb was read whole: %+v", cl.Notes)
	}
}

// Each student's budget is theirs in a zip of the class's folder too,
// wrapped in a folder and led by an archiver's own files: a student
// over it is refused alone.
func TestBudgetPerStudentInAWrappedFolder(t *testing.T) {
	es := []entry{{name: "__MACOSX/._submissions", data: "junk"}}
	for _, who := range []string{"alice", "bob"} {
		es = append(es, entry{name: "submissions/" + who + "/async_pipeline.cu", data: "// " + who + "\n" + pipeDone})
	}
	for i := 0; i < 2100; i++ {
		es = append(es, entry{name: fmt.Sprintf("submissions/mallory/f%04d.txt", i)})
	}
	cl, out := arrangeQuiet(t, writeZip(t, es...), nil)
	for _, who := range []string{"alice", "bob"} {
		if readOr(t, filepath.Join(out, who, "day070/async_pipeline.cu")) == "" {
			t.Errorf("%s's file was not kept", who)
		}
	}
	n := 0
	for _, note := range cl.Notes {
		if note.Kind == Refused {
			n++
			if !strings.Contains(note.File, "mallory") {
				t.Errorf("refused: %+v", note)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d refusals, want mallory's one", n)
	}
}
