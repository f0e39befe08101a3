package classroom

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
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
	keys := NewKeys(private, time.Now)
	people := roster
	if instructor {
		people = []Student{{ID: RoleInstructor, Name: "the instructor"}}
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
		role := RoleStudent
		if instructor {
			role = RoleInstructor
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
		cw.Write([]string{l.Student.ID, l.Student.Name, l.Student.Email, l.URL})
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
