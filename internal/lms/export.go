package lms

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/roster"
	"github.com/cudalessons/lessons/internal/ui"
)

// Columns says what a gradebook import holds: a column per exercise,
// or one column of the total.
type Columns string

const (
	PerExercise Columns = "exercises"
	Total       Columns = "total"
)

// Export is what a writer needs: the gradebook's sheet, who each
// student is, and the columns.
type Export struct {
	Sheet   *gradebook.Sheet
	People  map[string]gradebook.Person
	Columns Columns
	// Assignment names the one column of Total ("lessons" when empty).
	// Canvas matches an existing assignment by "Name (id)" as its own
	// export heads it; another name makes a new assignment.
	Assignment string
	// OutOf scales Total to the assignment's points (Canvas's points
	// possible), when more than 0: 11 of 15 out of 100 is 73.33.
	OutOf int
}

// Check says what is wrong with the columns and the scale asked for
// (--columns, --out-of), as a *failure.Usage.
func (e *Export) Check() error {
	if e.Columns != PerExercise && e.Columns != Total {
		return failure.Usagef("--columns is exercises or total, not %q", e.Columns)
	}
	if e.OutOf != 0 && (e.Columns != Total || e.OutOf < 0) {
		return failure.Usagef("--out-of scales the total: give it a number of points, with --columns total")
	}
	return nil
}

// column is one graded column: its heading, its most points, and each
// student's points ("" when not graded).
type column struct {
	head   string
	max    int
	points func(student string) string
}

// scaled is points of most as out of outOf, to two decimals.
func scaled(points, most, outOf int) string {
	if outOf <= 0 || most == 0 {
		return strconv.Itoa(points)
	}
	v := math.Round(float64(points)*float64(outOf)/float64(most)*100) / 100
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func (e *Export) columns() []column {
	s := e.Sheet
	if e.Columns == Total {
		name := e.Assignment
		if name == "" {
			name = "lessons"
		}
		most := s.Max
		if e.OutOf > 0 {
			most = e.OutOf
		}
		return []column{{head: name, max: most, points: func(st string) string {
			if len(s.Grades[st]) == 0 {
				return ""
			}
			for _, a := range s.Grades[st] {
				if a.Status == gradebook.Error {
					return "" // not a total until it is graded
				}
			}
			return scaled(s.Total(st), s.Max, e.OutOf)
		}}}
	}
	var cols []column
	for _, x := range s.Exercises {
		cols = append(cols, column{head: x.ID, max: x.Points, points: func(st string) string {
			// A file the grader could not judge has no grade yet, not 0.
			if a := s.Grades[st][x.ID]; a != nil && a.Status != gradebook.Error {
				return strconv.Itoa(a.Points)
			}
			return ""
		}})
	}
	return cols
}

func (e *Export) person(st string) gradebook.Person {
	if p, ok := e.People[st]; ok {
		return p
	}
	return gradebook.Person{ID: st}
}

// asID is id as an LMS can match it in an import: none when the import
// writes it as text (a quote first, gradebook.CSVText), since it then
// matches no one.
func asID(id string) string {
	if gradebook.CSVText(id) != id {
		return ""
	}
	return id
}

// WriteCanvas writes Canvas's gradebook import: Student, ID, SIS User
// ID, SIS Login ID and Section, then the graded columns, with a row of
// the points possible first. Canvas finds each student by ID (its user
// id) or the SIS ids; unknown are those who have none, whose rows Canvas
// cannot place.
func (e *Export) WriteCanvas(w io.Writer) (unknown []string, err error) {
	cw := csv.NewWriter(w)
	cols := e.columns()
	head := []string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}
	possible := []string{"Points Possible", "", "", "", ""}
	for _, c := range cols {
		head = append(head, c.head)
		possible = append(possible, strconv.Itoa(c.max))
	}
	cw.Write(head)
	cw.Write(possible)
	for _, st := range e.Sheet.Students {
		p := e.person(st)
		if asID(p.LMSID) == "" && asID(p.SISID) == "" && asID(p.Login) == "" {
			unknown = append(unknown, st)
		}
		name := p.Name
		if name == "" {
			name = st
		}
		// The name and the section are what students and the LMS call
		// them (a display name a student chose): Canvas finds a row by its
		// ids, so these are kept from being read as formulas. The ids
		// too: what the roster gave, never a formula's first character
		// in an id an LMS made.
		row := []string{gradebook.CSVText(name), gradebook.CSVText(p.LMSID), gradebook.CSVText(p.SISID), gradebook.CSVText(p.Login), gradebook.CSVText(p.Section)}
		for _, c := range cols {
			row = append(row, c.points(st))
		}
		cw.Write(row)
	}
	cw.Flush()
	return unknown, cw.Error()
}

// WriteMoodle writes Moodle's grade import (Grades, Import, CSV file):
// ID number, Email address and Full name, then the graded columns. Map
// the identity column to "ID number" or "Email address" and each graded
// column to its grade item. unknown are the students with neither.
func (e *Export) WriteMoodle(w io.Writer) (unknown []string, err error) {
	cw := csv.NewWriter(w)
	cols := e.columns()
	head := []string{"ID number", "Email address", "Full name"}
	for _, c := range cols {
		head = append(head, c.head)
	}
	cw.Write(head)
	for _, st := range e.Sheet.Students {
		p := e.person(st)
		if asID(p.SISID) == "" && asID(p.Email) == "" {
			unknown = append(unknown, st)
		}
		name := p.Name
		if name == "" {
			name = st
		}
		// The email is the student's own in Moodle (its profile), and
		// =cmd|'/Ccalc'!A0@x.y is an address: one that starts as a
		// formula is text, so Moodle will not match it (unknown).
		row := []string{gradebook.CSVText(p.SISID), gradebook.CSVText(p.Email), gradebook.CSVText(name)}
		for _, c := range cols {
			row = append(row, c.points(st))
		}
		cw.Write(row)
	}
	cw.Flush()
	return unknown, cw.Error()
}

// gsTest and gsResults are Gradescope's autograder results.json.
// Every output is marked "text": Gradescope's default,
// "simple_format", and its "html" and "md" read markup in what a
// check's got line quotes of the student's own output, so a program
// that prints markup would have it rendered on its grade page.
type gsTest struct {
	Name         string  `json:"name"`
	Score        float64 `json:"score"`
	MaxScore     float64 `json:"max_score"`
	Status       string  `json:"status"`
	Visibility   string  `json:"visibility"`
	Output       string  `json:"output"`
	OutputFormat string  `json:"output_format"`
}

type gsResults struct {
	Score            float64  `json:"score"`
	Visibility       string   `json:"visibility"`
	Output           string   `json:"output"`
	OutputFormat     string   `json:"output_format"`
	TestOutputFormat string   `json:"test_output_format"`
	Tests            []gsTest `json:"tests"`
}

// GradescopeName is where WriteGradescope's results of a student go,
// under the folder given to Gradescope: EMAIL/results.json when their
// email is known (what Gradescope's submission_metadata.json names
// them by), else ID/results.json.
func (e *Export) GradescopeName(st string) string {
	p := e.person(st)
	if safeName(p.Email) {
		return p.Email + "/results.json"
	}
	return st + "/results.json"
}

// WriteGradescope writes one student's results.json for Gradescope's
// autograder: the total as the score, a test per exercise with its
// points, its status and each check (hidden checks as the sheet's
// Hidden says), visible to the student.
func (e *Export) WriteGradescope(w io.Writer, st string) error {
	s := e.Sheet
	r := gsResults{Score: float64(s.Total(st)), Visibility: "visible", Tests: []gsTest{}, OutputFormat: "text", TestOutputFormat: "text",
		Output: fmt.Sprintf("Graded by lessons on a GPU: %d of %d points.", s.Total(st), s.Max)}
	for _, x := range s.Exercises {
		t := gsTest{Name: x.ID, MaxScore: float64(x.Points), Visibility: "visible", Status: "failed", OutputFormat: "text"}
		a := s.Grades[st][x.ID]
		switch {
		case a == nil:
			t.Output = "Not graded."
		case a.Status == gradebook.Missing:
			t.Output = "No file was handed in for this exercise."
		case a.Status == gradebook.Error:
			t.Output = "The grader could not judge this file: " + a.Reason
		default:
			t.Score = float64(a.Points)
			if a.Status == gradebook.Passed {
				t.Status = "passed"
			}
			t.Output = checksText(a, s.Hidden)
		}
		r.Tests = append(r.Tests, t)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// checksText is an attempt's checks as plain lines.
func checksText(a *gradebook.Attempt, hidden string) string {
	var b strings.Builder
	nh, np := 0, 0
	for _, c := range a.Checks {
		if c.Hidden && hidden != "show" {
			nh++
			if c.Passed {
				np++
			}
			continue
		}
		if c.Passed {
			fmt.Fprintf(&b, "✓ %s\n", c.Name)
			continue
		}
		fmt.Fprintf(&b, "✗ %s\n  expected: %s\n  got: %s\n", c.Name, c.Expected, c.Got)
		if c.Hint != "" {
			fmt.Fprintf(&b, "  hint: %s\n", c.Hint)
		}
	}
	if nh > 0 && hidden != "none" {
		fmt.Fprintf(&b, "%d of %d hidden checks passed\n", np, nh)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// FeedbackName is where a student's feedback file goes (ext ".html" or
// ".md") so that their LMS attaches it to them: Canvas's "Re-upload
// submissions" takes a zip of files named as its download named theirs
// (smithjohn_12345_678_feedback.html); Moodle's "Upload multiple feedback
// files in a zip" takes a folder per student named as its download
// (John Smith_123456_assignsubmission_file_/feedback.html). A student
// whose files no LMS named gets ID.ext, as grade feedback writes.
func FeedbackName(p gradebook.Person, ext string) string {
	switch {
	case p.LMS == string(Canvas) && p.Handle != "":
		return roster.Key(p.Handle) + "_feedback" + ext
	case p.LMS == string(Moodle) && p.Handle != "":
		// The handle is the LMS's own (a name with spaces): keep it, with
		// only what would leave the folder taken out.
		h := strings.NewReplacer("/", "-", `\`, "-", "\x00", "").Replace(p.Handle)
		if h == "." || h == ".." {
			h = p.ID
		}
		return h + "_assignsubmission_file_/feedback" + ext
	}
	return p.ID + ext
}

// Unknown says whom an LMS will not find, for a warning.
func Unknown(lms string, ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	sort.Strings(ids)
	need := "ID number or email"
	if lms == string(Canvas) {
		need = "Canvas ID or SIS id"
	}
	return fmt.Sprintf("no %s for %s, so %s will not find their rows: %s; give a roster with --roster (id,name,email,lms_id,section)",
		need, ui.Count(len(ids), "student"), layoutTitle(Layout(lms)), strings.Join(ids, ", "))
}

// Write writes the import CSV of system ("canvas" or "moodle").
func (e *Export) Write(system string, w io.Writer) (unknown []string, err error) {
	if system == string(Canvas) {
		return e.WriteCanvas(w)
	}
	return e.WriteMoodle(w)
}

// safeName says whether s can name a file as it is: no separator, not
// hidden, not . or ..
func safeName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "/\\\x00") && !strings.HasPrefix(s, ".")
}

// Outputs are where each format goes; "" writes none.
type Outputs struct {
	Canvas, Moodle string // files
	Gradescope     string // a folder
}

// WriteAll writes each format out names with write; warnings say whom
// an LMS will not find in what was written.
func (e *Export) WriteAll(out Outputs, write func(name string, data []byte) error) (warnings []string, err error) {
	for _, x := range [][2]string{{string(Canvas), out.Canvas}, {string(Moodle), out.Moodle}} {
		if x[1] == "" {
			continue
		}
		var b bytes.Buffer
		unknown, err := e.Write(x[0], &b)
		if err != nil {
			return nil, err
		}
		if err := write(x[1], b.Bytes()); err != nil {
			return nil, err
		}
		if msg := Unknown(x[0], unknown); msg != "" {
			warnings = append(warnings, msg)
		}
	}
	if out.Gradescope != "" {
		if _, err := e.WriteGradescopeDir(out.Gradescope, write); err != nil {
			return nil, err
		}
	}
	return warnings, nil
}

// People is who the students of book are: what grade learnt, with
// roster (which may be nil) merged in.
func People(book *gradebook.Book, roster []gradebook.Person) (map[string]gradebook.Person, error) {
	known, err := book.People()
	if err != nil {
		return nil, err
	}
	return Merge(known, roster), nil
}
