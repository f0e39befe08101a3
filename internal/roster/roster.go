// Package roster reads and writes a class's roster: the one CSV that
// grade --roster, grade unpack (which writes it), serve --class and
// invite all read. A roster is either a header row naming its columns
// (id, name, email, lms_id, section, sis_id, login, lms, handle, in the
// spellings an LMS exports) and a student a row, or, with no header,
// id,name,email a row.
package roster

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"os"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/ui"
)

// Error is a roster that cannot be read, at a line of its file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("roster %s:%d: %s", e.File, e.Line, e.Msg)
}

// Reserved is the id no student may have: the class server names its
// instructor so.
const Reserved = "instructor"

// columns are the headers a roster's columns may have, by field,
// compared with case, spaces, '-' and '_' aside.
var columns = map[string][]string{
	"id":      {"id", "student", "studentid", "username"},
	"name":    {"name", "fullname", "studentname"},
	"email":   {"email", "emailaddress", "mail"},
	"lms":     {"lmsid", "canvasid", "canvasuserid", "userid", "moodleid", "participantid"},
	"section": {"section", "sections", "group"},
	"sis":     {"sisid", "sisuserid", "idnumber"},
	"login":   {"login", "sisloginid", "loginid"},
	"system":  {"lms"},
	"handle":  {"handle"},
}

func headerKey(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	return strings.NewReplacer(" ", "", "_", "", "-", "").Replace(h)
}

// header reads rec as a header row: it is one when a cell names a
// column and no cell is an address (a student's row has their email).
func header(rec []string) (map[string]int, bool) {
	col := map[string]int{}
	for i, h := range rec {
		if strings.Contains(h, "@") {
			return nil, false
		}
		k := headerKey(h)
		for field, names := range columns {
			for _, n := range names {
				if _, dup := col[field]; k == n && !dup {
					col[field] = i
				}
			}
		}
	}
	return col, len(col) > 0
}

// Read reads a roster CSV from r; file names it in errors. Its first row
// is a header when a cell names a column and none holds an '@' (a
// student's row without a header has their email); else every row is
// id,name,email. Ids are
// folder names (letters, digits, '.', '-', '_', at most 64 bytes, as Key
// makes them), unique whatever their case, never Reserved; an email, where
// given, is an address. A roster with no student is an error.
func Read(r io.Reader, file string) ([]gradebook.Person, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var col map[string]int
	headed := false
	var out []gradebook.Person
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		if col == nil && len(rec) > 0 {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
		}
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		if col == nil {
			if col, headed = header(rec); headed {
				if _, ok := col["id"]; !ok {
					return nil, &Error{file, line, fmt.Sprintf("no id column in the header %q: name the students' column id (then name, email, lms_id, section)", strings.Join(rec, ","))}
				}
				continue
			}
			col = map[string]int{"id": 0, "name": 1, "email": 2}
		}
		if !headed && len(rec) != 3 {
			return nil, &Error{file, line, fmt.Sprintf("%d fields, want 3 (id,name,email), or begin the file with a header row naming the columns (id,name,email,lms_id,section)", len(rec))}
		}
		get := func(field string) string {
			if i, ok := col[field]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		p := gradebook.Person{ID: get("id"), Name: text(gradebook.FromCSVText(get("name"))), Email: gradebook.FromCSVText(get("email")), LMSID: gradebook.FromCSVText(get("lms")),
			Section: text(gradebook.FromCSVText(get("section"))), SISID: gradebook.FromCSVText(get("sis")), Login: gradebook.FromCSVText(get("login")), LMS: get("system"), Handle: gradebook.FromCSVText(get("handle"))}
		if msg := check(p, seen); msg != "" {
			return nil, &Error{file, line, msg}
		}
		seen[strings.ToLower(p.ID)] = line
		if p.Email != "" {
			seen["@"+strings.ToLower(p.Email)] = line
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, &Error{file, 1, "no students: write a header row (id,name,email) and a row a student"}
	}
	return out, nil
}

// check says what is wrong with p, a student of a roster whose ids so
// far are seen (lower case, by line), or "".
func check(p gradebook.Person, seen map[string]int) string {
	switch {
	case p.ID == "":
		return "no id: every student needs one"
	case !ValidID(p.ID):
		if strings.EqualFold(p.ID, Reserved) {
			return fmt.Sprintf("id %q is the class server's name for its instructor: give the student another", p.ID)
		}
		return fmt.Sprintf("id %q has characters a folder name cannot (it names the student's folder): use letters, digits, '.', '-' and '_', at most 64 (%q)", p.ID, Key(p.ID))
	case seen[strings.ToLower(p.ID)] > 0:
		return fmt.Sprintf("id %q is on line %d too (ids are unique, whatever their case)", p.ID, seen[strings.ToLower(p.ID)])
	}
	if p.Email != "" {
		if a, err := mail.ParseAddress(p.Email); err != nil || a.Address != p.Email {
			return fmt.Sprintf("email %q is not an address (name@host)", p.Email)
		}
		// An email names one student: the class server's proxy signs its
		// owner in by it, and Gradescope's results go in a folder named
		// by it (the second would replace the first's).
		if at := seen["@"+strings.ToLower(p.Email)]; at > 0 {
			return fmt.Sprintf("email %q is on line %d too (an email names one student, whatever its case)", p.Email, at)
		}
	}
	return ""
}

// text is a name or section as students call themselves (an LMS's
// export holds display names they chose): on one line, with no escape
// sequence or other control character, since lessons invite prints it
// to the instructor's terminal and the class's pages show it.
func text(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(ui.Printable(s))
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: file, Line: pe.Line, Msg: pe.Err.Error() + ": fix the quoting of this line"}
	}
	return fmt.Errorf("roster %s: %w", file, err)
}

// Load reads the roster file name; no name is no roster (nil), for the
// commands where one is optional.
func Load(name string) ([]gradebook.Person, error) {
	if name == "" {
		return nil, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("roster: %w", err)
	}
	return Read(bytes.NewReader(data), name)
}

// Write writes people as a roster CSV that Read reads back, with the
// LMS's naming of each student kept.
func Write(w io.Writer, people []gradebook.Person) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "name", "email", "lms_id", "section", "sis_id", "login", "lms", "handle"})
	for _, p := range people {
		// A name, a section and a Moodle handle (which starts with the
		// name) are what students call themselves: kept from being read
		// as formulas when roster.csv is opened in a spreadsheet, and
		// read back by Read as they were. So are the ids an LMS or a
		// student set: an email is the student's own in Moodle, and
		// =cmd|'/Ccalc'!A0@x.y is an address.
		cw.Write([]string{p.ID, gradebook.CSVText(p.Name), gradebook.CSVText(p.Email), gradebook.CSVText(p.LMSID), gradebook.CSVText(p.Section),
			gradebook.CSVText(p.SISID), gradebook.CSVText(p.Login), p.LMS, gradebook.CSVText(p.Handle)})
	}
	cw.Flush()
	return cw.Error()
}

// ValidID tells whether id may name a student: it is a folder name as
// Key makes one, and not Reserved.
func ValidID(id string) bool {
	return id != "" && Key(id) == id && !strings.EqualFold(id, Reserved)
}

var keyRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Key is s as a student's folder name: letters, digits, '.', '-' and
// '_' (accents dropped, anything else a '-'), never hidden, at most 64
// bytes.
func Key(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	k := strings.Trim(keyRE.ReplaceAllString(b.String(), "-"), "-.")
	if len(k) > 64 {
		k = strings.Trim(k[:64], "-.")
	}
	return k
}
