package lms

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// RosterError is a roster that cannot be read, at a line.
type RosterError struct {
	File string
	Line int
	Msg  string
}

func (e *RosterError) Error() string {
	return fmt.Sprintf("roster %s:%d: %s", e.File, e.Line, e.Msg)
}

// rosterColumns are the headers a roster's columns may have, by field,
// compared with case, spaces and underscores aside.
var rosterColumns = map[string][]string{
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
	h = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(h), "\ufeff"))
	return strings.NewReplacer(" ", "", "_", "", "-", "").Replace(h)
}

// ReadRoster reads a roster CSV: a header row, then a student a row. It
// needs an id column; name, email, lms_id, section, sis_id and login are
// read when there. file names it in errors.
func ReadRoster(r io.Reader, file string) ([]gradebook.Person, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, &RosterError{File: file, Line: 1, Msg: "empty: write a header row (id,name,email,lms_id,section) and a row a student"}
	}
	if err != nil {
		return nil, rosterCSVError(file, err)
	}
	col := map[string]int{}
	for i, h := range head {
		k := headerKey(h)
		for field, names := range rosterColumns {
			for _, n := range names {
				if k == n {
					if _, dup := col[field]; !dup {
						col[field] = i
					}
				}
			}
		}
	}
	if _, ok := col["id"]; !ok {
		return nil, &RosterError{File: file, Line: 1, Msg: fmt.Sprintf("no id column in the header %q: name the students' column id (then name, email, lms_id, section)", strings.Join(head, ","))}
	}
	var out []gradebook.Person
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, rosterCSVError(file, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(field string) string {
			if i, ok := col[field]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		if strings.Join(rec, "") == "" {
			continue
		}
		p := gradebook.Person{ID: get("id"), Name: get("name"), Email: get("email"), LMSID: get("lms"),
			Section: get("section"), SISID: get("sis"), Login: get("login"), LMS: get("system"), Handle: get("handle")}
		switch {
		case p.ID == "":
			return nil, &RosterError{File: file, Line: line, Msg: "no id: every student needs one"}
		case Key(p.ID) != p.ID:
			return nil, &RosterError{File: file, Line: line, Msg: fmt.Sprintf("id %q has characters a folder name cannot: use letters, digits, '.', '-' and '_' (%q)", p.ID, Key(p.ID))}
		case seen[p.ID] > 0:
			return nil, &RosterError{File: file, Line: line, Msg: fmt.Sprintf("id %q is on line %d too", p.ID, seen[p.ID])}
		}
		seen[p.ID] = line
		out = append(out, p)
	}
	return out, nil
}

func rosterCSVError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &RosterError{File: file, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return fmt.Errorf("roster %s: %w", file, err)
}

// LoadRoster reads the roster file name.
func LoadRoster(name string) ([]gradebook.Person, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("roster: %w", err)
	}
	return ReadRoster(bytes.NewReader(data), name)
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

// nameKeys are the ways an LMS may run a name together: "Smith, John"
// and "John Smith" both give smithjohn and johnsmith.
func nameKeys(name string) []string {
	squash := func(s string) string {
		var b strings.Builder
		for _, r := range norm.NFD.String(strings.ToLower(s)) {
			if unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) || unicode.IsDigit(r) {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	if last, first, ok := strings.Cut(name, ","); ok {
		return []string{squash(last + first), squash(first + last)}
	}
	words := strings.Fields(name)
	if len(words) < 2 {
		return []string{squash(name)}
	}
	last := words[len(words)-1]
	return []string{squash(name), squash(last + strings.Join(words[:len(words)-1], ""))}
}
