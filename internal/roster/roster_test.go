package roster

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// TestReadShapes: the roster an instructor writes by hand (id,name,email,
// with or without a header), an LMS's export with its own column names,
// and what grade unpack writes all read.
func TestReadShapes(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []gradebook.Person
	}{
		{"no header", "ada,Ada Lovelace,ada@uni.example\n\nbob,\"Bob, Jr\",\n",
			[]gradebook.Person{{ID: "ada", Name: "Ada Lovelace", Email: "ada@uni.example"}, {ID: "bob", Name: "Bob, Jr"}}},
		{"header", "id,name,email\nada, Ada ,ada@uni.example\n",
			[]gradebook.Person{{ID: "ada", Name: "Ada", Email: "ada@uni.example"}}},
		{"canvas", "\ufeffStudent ID,Full Name,Email Address,Canvas User ID,Section,SIS User ID,SIS Login ID,Notes\n" +
			"jsmith,John Smith,jsmith@uni.edu,1001,A,S-1,jsmith,likes pools\n,,,,,,,\njdoe,\"Doe, Jane\",jdoe@uni.edu,,B\n",
			[]gradebook.Person{{ID: "jsmith", Name: "John Smith", Email: "jsmith@uni.edu", LMSID: "1001", Section: "A", SISID: "S-1", Login: "jsmith"},
				{ID: "jdoe", Name: "Doe, Jane", Email: "jdoe@uni.edu", Section: "B"}}},
		{"unpack", "id,name,email,lms_id,section,sis_id,login,lms,handle\nZoe-K,Zoë K,,42,,,,moodle,Zoë K_42_assignsubmission_file_\n",
			[]gradebook.Person{{ID: "Zoe-K", Name: "Zoë K", LMSID: "42", LMS: "moodle", Handle: "Zoë K_42_assignsubmission_file_"}}},
	} {
		got, err := Read(strings.NewReader(tc.in), "roster.csv")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestReadErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "roster.csv:1: no students"},
		{"id,name,email\n", "roster.csv:1: no students"},
		{"name,email\nJohn,j@u.example\n", "roster.csv:1: no id column"},
		{"id,name\njsmith,John\n,Nobody\n", "roster.csv:3: no id"},
		{"ada,A,a@x.example\nADA,B,b@x.example\n", "roster.csv:2: id \"ADA\" is on line 1 too"},
		{"ada,A\n", "roster.csv:1: 2 fields, want 3"},
		{"id,name\n\n../etc,John\n", "roster.csv:3: id \"../etc\" has characters"},
		{"instructor,I,i@x.example\n", "roster.csv:1: id \"instructor\" is the class server's name"},
		{"ada,A,not-an-address\n", "roster.csv:1: email \"not-an-address\""},
		{"ada,A,a@x.example\nbob,B,A@X.example\n", "roster.csv:2: email \"A@X.example\" is on line 1 too"},
		{"ok,A,a@x.example\nada,\"A,a@x.example\n", "roster.csv:2: extraneous or missing \" in quoted-field"},
	} {
		_, err := Read(strings.NewReader(tc.in), "roster.csv")
		var re *Error
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an Error with %q", tc.in, err, tc.want)
		}
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"alice":            "alice",
		"Zoë K":            "Zoe-K",
		"../../etc":        "etc",
		".hidden":          "hidden",
		"a/b\\c":           "a-b-c",
		"José María López": "Jose-Maria-Lopez",
		"":                 "",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRead: any file is read or refused at a line of it; what is read
// has ids that are folder names, unique whatever their case, and Write
// writes it back as the same people.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"id,name,email\nada,Ada,ada@x.example\n", "a,\"b\nc\",d@e.f\n",
		"\ufeffStudent ID,Full Name,Canvas User ID\nx,Y Z,9\n", "id,lms\n..,canvas\n", "Ada,A,\nada,B,\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Read(strings.NewReader(in), "r.csv")
		if err != nil {
			var re *Error
			if !errors.As(err, &re) || re.Line < 1 || !strings.HasPrefix(err.Error(), "roster r.csv:") {
				t.Fatalf("error without the file and a line: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range got {
			id := strings.ToLower(p.ID)
			if !ValidID(p.ID) || seen[id] || strings.ContainsAny(p.ID, `/\`) || strings.HasPrefix(p.ID, ".") {
				t.Fatalf("accepted id %q", p.ID)
			}
			seen[id] = true
		}
		var b bytes.Buffer
		if err := Write(&b, got); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&b, "back.csv")
		if err != nil {
			t.Fatalf("what Write wrote does not read back: %v\n%s", err, b.String())
		}
		norm := func(ps []gradebook.Person) []gradebook.Person {
			r := strings.NewReplacer("\r\n", "\n", "\r", "\n")
			for i := range ps {
				ps[i].Name, ps[i].Section, ps[i].Handle = r.Replace(ps[i].Name), r.Replace(ps[i].Section), r.Replace(ps[i].Handle)
			}
			return ps
		}
		if !reflect.DeepEqual(norm(back), norm(got)) {
			t.Fatalf("read back %+v, want %+v", back, got)
		}
	})
}

// What a student calls themselves reaches roster.csv (grade unpack
// writes it, an instructor opens it in a spreadsheet): a name, section
// or handle that is a formula is written as text and read back as it was.
func TestWriteHoldsNoFormulas(t *testing.T) {
	people := []gradebook.Person{
		{ID: "m1", Name: "=1+1", Section: "@SUM(A1)", Handle: "=1+1_444", LMS: "moodle"},
		{ID: "m2", Name: "-2+3", Section: "+A1"},
		{ID: "ann", Name: "'quoted", Section: "A"},
	}
	var b bytes.Buffer
	if err := Write(&b, people); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		for _, c := range strings.Split(line, ",") {
			if c != "" && strings.ContainsRune("=+-@", rune(c[0])) {
				t.Errorf("a cell starts as a formula: %q", c)
			}
		}
	}
	back, err := Read(&b, "roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, people) {
		t.Errorf("read back %+v, want %+v", back, people)
	}
}

// A display name a student chose reaches the roster an LMS exports;
// lessons invite prints it to the instructor's terminal. Its escape
// sequences and control characters are gone when it is read.
func TestReadNamesWithoutControls(t *testing.T) {
	in := "id,name,email,section\nann,\"\x1b[2J\x1b[31mAnn\x1b]0;pwned\x07 Lee\r\nX\",ann@uni.example,\"A\x1b[8m\"\n"
	got, err := Read(strings.NewReader(in), "roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{got[0].Name, got[0].Section} {
		for _, r := range f {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Errorf("a control character %U in %q", r, f)
			}
		}
	}
	if !strings.Contains(got[0].Name, "Ann") || !strings.Contains(got[0].Name, "Lee") || got[0].Section != "A" {
		t.Errorf("the text around the escapes was lost: %+v", got[0])
	}
}
