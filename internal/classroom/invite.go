package classroom

import (
	"context"
	"encoding/csv"
	"fmt"
	"github.com/cudalessons/lessons/internal/gradebook"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/roster"
)

// Link is a person's sign-in link.
type Link struct {
	Student Student
	URL     string
}

// Invite makes a fresh single-use sign-in link, at the server base (its
// public https:// address), for each student of roster (only those named
// in only, when given), or for the instructor; the links made before for
// the same people stop working.
func Invite(dir, base string, roster []Student, only []string, instructor bool) ([]Link, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("invite --url %s: give the class server's address as students open it (https://gpu.uni.example)", base)
	}
	private := filepath.Join(dir, PrivateDir)
	if err := os.MkdirAll(private, 0o700); err != nil {
		return nil, fmt.Errorf("invite: %w", err)
	}
	keys := access.NewKeys(private, time.Now)
	people := roster
	if instructor {
		people = []Student{{ID: access.RoleInstructor, Name: "the instructor"}}
	} else if len(only) > 0 {
		people = nil
		for _, id := range only {
			found := false
			for _, s := range roster {
				if s.ID == id {
					people, found = append(people, s), true
				}
			}
			if !found {
				return nil, fmt.Errorf("invite: %s is not on the roster", id)
			}
		}
	}
	var out []Link
	for _, s := range people {
		role := access.RoleStudent
		if instructor {
			role = access.RoleInstructor
		}
		sec, err := keys.Invite(s.ID, role)
		if err != nil {
			return nil, err
		}
		out = append(out, Link{Student: s, URL: strings.TrimRight(base, "/") + classPrefix + "signin?link=" + sec})
	}
	return out, nil
}

// WriteLinks writes links as CSV (id,name,email,link), for a mail merge.
func WriteLinks(w io.Writer, links []Link) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "name", "email", "link"})
	for _, l := range links {
		// The name is what the student or an LMS wrote: a formula there
		// would run in the mail merge's spreadsheet (gradebook.CSVText).
		// So is the email, which a Moodle student sets themselves.
		cw.Write([]string{l.Student.ID, gradebook.CSVText(l.Student.Name), gradebook.CSVText(l.Student.Email), l.URL})
	}
	cw.Flush()
	return cw.Error()
}

// Submit hands in text as a student's file for exercise to the class
// server at base, with their token (from the page), and returns the
// grade's feedback: lessons submit.
func Submit(ctx context.Context, client *http.Client, base, token, exercise, text string) (*SubmitResult, error) {
	var out SubmitResult
	if err := post(ctx, client, base, token, "api/submit", exercise, text, &out); err != nil {
		return nil, fmt.Errorf("submit %s to %s: %w", exercise, base, err)
	}
	return &out, nil
}

// InviteRoster is Invite with the roster read from its CSV file (none
// needed for the instructor's link): lessons invite.
func InviteRoster(dir, base, rosterFile string, only []string, instructor bool) ([]Link, error) {
	var people []Student
	if !instructor {
		if rosterFile == "" {
			return nil, failure.Usagef("invite needs --roster FILE (a CSV of id,name,email, or the roster.csv that grade unpack writes)")
		}
		var err error
		if people, err = roster.Load(rosterFile); err != nil {
			return nil, err
		}
	}
	return Invite(dir, base, people, only, instructor)
}

// SubmitFile hands in file as the student's exercise to the class server
// (server, or $LESSONS_CLASS_SERVER) with their token
// ($LESSONS_CLASS_TOKEN): lessons submit.
func SubmitFile(ctx context.Context, server, exercise, file string) (*SubmitResult, error) {
	if server == "" {
		server = os.Getenv("LESSONS_CLASS_SERVER")
	}
	tok := os.Getenv("LESSONS_CLASS_TOKEN")
	if server == "" || tok == "" {
		return nil, failure.Usagef("submit needs the server (--server or $LESSONS_CLASS_SERVER) and your token ($LESSONS_CLASS_TOKEN, from the page's \"Token for lessons submit\")")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	return Submit(ctx, http.DefaultClient, server, tok, exercise, string(data))
}
