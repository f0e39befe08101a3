// Package classroom is the class mode of the notebook page: one server
// on a GPU machine for a whole class. Students sign in (a single-use link
// the instructor hands out, or an authenticating reverse proxy), each
// works in a copy of the course of their own under the class folder, every
// run and check of their code waits in one fair queue and runs in the
// grading sandbox, Submit grades into the class gradebook, and the
// instructor has a view of the class. The page itself is serve's: each
// student has a serve.Server of their own, reached only through this
// package's sign-in.
package classroom

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"regexp"
	"strings"
)

// Student is one line of the roster.
type Student struct {
	ID, Name, Email string
}

// RosterError is a roster that cannot be read, at a line of its file.
type RosterError struct {
	File string
	Line int
	Msg  string
}

func (e *RosterError) Error() string {
	return fmt.Sprintf("roster %s:%d: %s", e.File, e.Line, e.Msg)
}

// idPattern is what a student's id may be: it names their folder under
// the class, so it is a plain name, never a path.
var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidID tells whether id may name a student.
func ValidID(id string) bool {
	return idPattern.MatchString(id) && id != "instructor" && !strings.Contains(id, "..")
}

// ParseRoster reads a roster CSV (id,name,email, a header line allowed)
// from r; file names it in errors. Ids are lower case, unique, and
// plain names (letters, digits, '.', '_', '-'): each is a folder.
func ParseRoster(file string, r io.Reader) ([]Student, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var out []Student
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &RosterError{file, pe.Line, pe.Err.Error() + ": fix the quoting of this line"}
			}
			return nil, &RosterError{file, line, err.Error()}
		}
		if len(out) == 0 && len(seen) == 0 && len(rec) > 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "id") {
			seen[""] = line // the header
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != 3 {
			return nil, &RosterError{file, line, fmt.Sprintf("%d fields, want 3: id,name,email", len(rec))}
		}
		s := Student{ID: strings.TrimSpace(rec[0]), Name: strings.TrimSpace(rec[1]), Email: strings.TrimSpace(rec[2])}
		if !ValidID(s.ID) {
			return nil, &RosterError{file, line, fmt.Sprintf("id %q is not a plain lower-case name (a-z, 0-9, '.', '_', '-', at most 64, not \"instructor\"): it names the student's folder", s.ID)}
		}
		if prev, ok := seen[s.ID]; ok {
			return nil, &RosterError{file, line, fmt.Sprintf("id %s is already on line %d: ids are unique", s.ID, prev)}
		}
		if s.Email != "" {
			if a, err := mail.ParseAddress(s.Email); err != nil || a.Address != s.Email {
				return nil, &RosterError{file, line, fmt.Sprintf("email %q is not an address (name@host)", s.Email)}
			}
		}
		seen[s.ID] = line
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, &RosterError{file, 1, "no students: write one line a student, id,name,email"}
	}
	return out, nil
}
