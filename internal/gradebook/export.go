package gradebook

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/timeline"
	"github.com/cudalessons/lessons/internal/ui"
)

// Sheet is the gradebook as a table: one row per student, one column per
// exercise.
type Sheet struct {
	Exercises []Exercise
	Students  []string
	Grades    map[string]map[string]*Attempt
	Max       int // the most points a student can have
	// Hidden is what a student's feedback says of hidden checks: "show"
	// (each, like the others), "summary" (how many passed, "" is this)
	// or "none" (nothing).
	Hidden string
}

// HiddenModes are the values of Sheet.Hidden.
var HiddenModes = []string{"show", "summary", "none"}

// Sheet reads the whole gradebook.
func (b *Book) Sheet() (*Sheet, error) {
	xs, err := b.Exercises()
	if err != nil {
		return nil, err
	}
	ss, err := b.Students()
	if err != nil {
		return nil, err
	}
	g, err := b.Grades()
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return nil, ErrNoGrades
	}
	s := &Sheet{Exercises: xs, Students: ss, Grades: g}
	for _, x := range xs {
		s.Max += x.Points
	}
	return s, nil
}

// Marked lists the attempts marked for review, by student then exercise
// in the sheet's order.
func (s *Sheet) Marked() []*Attempt {
	var out []*Attempt
	for _, st := range s.Students {
		for _, x := range s.Exercises {
			if a := s.Grades[st][x.ID]; a != nil && a.Review != "" {
				out = append(out, a)
			}
		}
	}
	return out
}

// NotWitnessed lists the attempts whose runs' records the outside
// witness did not all compare, by student then exercise in the sheet's
// order.
func (s *Sheet) NotWitnessed() []*Attempt {
	var out []*Attempt
	for _, st := range s.Students {
		for _, x := range s.Exercises {
			if a := s.Grades[st][x.ID]; a != nil && a.Unwitnessed() {
				out = append(out, a)
			}
		}
	}
	return out
}

// someWitnessed says whether the outside witness compared the records
// of some grade of the sheet.
func (s *Sheet) someWitnessed() bool {
	for _, st := range s.Students {
		for _, a := range s.Grades[st] {
			if a.Witness == Witnessed {
				return true
			}
		}
	}
	return false
}

// Total is a student's points over every exercise.
func (s *Sheet) Total(student string) int {
	t := 0
	for _, a := range s.Grades[student] {
		t += a.Points
	}
	return t
}

// WriteCSV writes one row per student: the student, the points of each
// exercise (empty when never graded), and the total.
func (s *Sheet) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"student"}
	for _, x := range s.Exercises {
		head = append(head, x.ID)
	}
	head = append(head, "total")
	marked := s.Marked()
	if len(marked) > 0 {
		head = append(head, "review") // only then: a sheet read before keeps its columns
	}
	// Which grades were not witnessed, only where some were: a sheet
	// of which none was (a grader that may not load BPF) says so in the
	// grade's start line and summary, and keeps its columns.
	unwitnessed := s.NotWitnessed()
	if len(unwitnessed) == 0 || !s.someWitnessed() {
		unwitnessed = nil
	}
	if len(unwitnessed) > 0 {
		head = append(head, "not_witnessed")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, st := range s.Students {
		row := []string{CSVText(st)}
		for _, x := range s.Exercises {
			if a := s.Grades[st][x.ID]; a != nil {
				row = append(row, strconv.Itoa(a.Points))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, strconv.Itoa(s.Total(st)))
		if len(marked) > 0 {
			var ids []string
			for _, x := range s.Exercises {
				if a := s.Grades[st][x.ID]; a != nil && a.Review != "" {
					ids = append(ids, x.ID)
				}
			}
			row = append(row, strings.Join(ids, " "))
		}
		if len(unwitnessed) > 0 {
			var ids []string
			for _, x := range s.Exercises {
				if a := s.Grades[st][x.ID]; a != nil && a.Unwitnessed() {
					ids = append(ids, x.ID)
				}
			}
			row = append(row, strings.Join(ids, " "))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSVText is s as a cell no spreadsheet reads as a formula: a student
// is named as a folder or an LMS has it (a Moodle user edits their own
// full name), and one that starts with = + - @ (or a tab, a carriage
// return) would be evaluated when a CSV of grades or a roster is opened.
// Such a cell starts with a quote, as spreadsheets write text.
// FromCSVText reads it back.
func CSVText(s string) string {
	if quoted(s) {
		return "'" + s
	}
	return s
}

// quoted says whether CSVText puts a quote before s: it starts as a
// formula, or is quotes before one (so that a name that starts with a
// quote itself reads back as it was).
func quoted(s string) bool {
	s = strings.TrimLeft(s, "'")
	return s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0]))
}

// FromCSVText is a cell CSVText wrote, as it was.
func FromCSVText(s string) string {
	if strings.HasPrefix(s, "'") && quoted(s[1:]) {
		return s[1:]
	}
	return s
}

type jsonCheck struct {
	Name     string `json:"name"`
	Passed   bool   `json:"passed"`
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	Hint     string `json:"hint,omitempty"`
	Points   int    `json:"points,omitempty"`
	Hidden   bool   `json:"hidden,omitempty"`
}

type jsonGrade struct {
	Status     string      `json:"status"`
	Points     int         `json:"points"`
	MaxPoints  int         `json:"max_points"`
	Reason     string      `json:"reason,omitempty"`
	Review     []string    `json:"review,omitempty"`
	Note       string      `json:"note,omitempty"`
	Witness    string      `json:"witness,omitempty"`
	SourceHash string      `json:"source_sha256,omitempty"`
	BuildMS    int64       `json:"build_ms"`
	RunMS      int64       `json:"run_ms"`
	GradedAt   time.Time   `json:"graded_at"`
	Checks     []jsonCheck `json:"checks"`
}

type jsonStudent struct {
	ID        string                `json:"id"`
	Total     int                   `json:"total"`
	Exercises map[string]*jsonGrade `json:"exercises"`
}

// WriteJSON writes every student's grades with each check.
func (s *Sheet) WriteJSON(w io.Writer) error {
	out := struct {
		Exercises []Exercise     `json:"exercises"`
		MaxPoints int            `json:"max_points"`
		Students  []*jsonStudent `json:"students"`
	}{Exercises: s.Exercises, MaxPoints: s.Max}
	for _, st := range s.Students {
		js := &jsonStudent{ID: st, Total: s.Total(st), Exercises: map[string]*jsonGrade{}}
		for id, a := range s.Grades[st] {
			g := &jsonGrade{Status: a.Status, Points: a.Points, MaxPoints: a.MaxPoints, Reason: a.Reason, SourceHash: a.SourceHash,
				Review: a.ReviewLines(), Note: a.Note, Witness: a.Witness, BuildMS: a.BuildMS, RunMS: a.RunMS, GradedAt: a.GradedAt, Checks: []jsonCheck{}}
			for _, c := range a.Checks {
				g.Checks = append(g.Checks, jsonCheck(c))
			}
			js.Exercises[id] = g
		}
		out.Students = append(out.Students, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Feedback is a student's feedback in markdown: every exercise, every
// check with what was expected and seen, the hints of what failed, and the
// points.
func (s *Sheet) Feedback(student string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Feedback for %s\n\n", mdText(student))
	fmt.Fprintf(&b, "**Total: %d of %d points.**\n\n", s.Total(student), s.Max)
	b.WriteString("| Exercise | Result | Points |\n|---|---|---|\n")
	for _, x := range s.Exercises {
		a := s.Grades[student][x.ID]
		if a == nil {
			fmt.Fprintf(&b, "| %s | not graded | 0 / %d |\n", x.ID, x.Points)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d / %d |\n", x.ID, a.Status, a.Points, a.MaxPoints)
	}
	for _, x := range s.Exercises {
		a := s.Grades[student][x.ID]
		fmt.Fprintf(&b, "\n## %s\n\n", x.ID)
		switch {
		case a == nil:
			b.WriteString("Not graded yet.\n")
			continue
		case a.Status == Missing:
			b.WriteString("No file was handed in for this exercise.\n")
			continue
		case a.Status == Error:
			fmt.Fprintf(&b, "The grader could not judge this file: %s. It will be graded again.\n", mdText(a.Reason))
			continue
		}
		fmt.Fprintf(&b, "%s: %d of %d points.\n\n", strings.ToUpper(a.Status[:1])+a.Status[1:], a.Points, a.MaxPoints)
		if lines := a.ReviewLines(); len(lines) > 0 {
			b.WriteString("**Marked for the instructor's review:**\n\n")
			for _, l := range lines {
				fmt.Fprintf(&b, "- %s\n", mdText(l))
			}
			b.WriteString("\n")
		}
		var hints []string
		hidden, hiddenPassed := 0, 0
		for _, c := range a.Checks {
			if c.Hidden && s.Hidden != "show" {
				hidden++
				if c.Passed {
					hiddenPassed++
				}
				continue
			}
			pts := ""
			switch {
			case c.Points > 0 && c.Passed:
				pts = " — " + ui.Count(c.Points, "point")
			case c.Points > 0:
				pts = " — 0 of " + ui.Count(c.Points, "point")
			}
			if c.Skipped() {
				fmt.Fprintf(&b, "- – %s (%s)%s\n", mdText(c.Name), mdText(c.Got), pts)
				continue
			}
			if c.Passed {
				fmt.Fprintf(&b, "- ✓ %s%s\n", mdText(c.Name), pts)
				continue
			}
			fmt.Fprintf(&b, "- ✗ %s%s  \n  expected: %s  \n  got: %s\n", mdText(c.Name), pts, mdText(c.Expected), mdText(c.Got))
			if c.Hint != "" {
				hints = append(hints, c.Hint)
			}
		}
		if hidden > 0 && s.Hidden != "none" {
			fmt.Fprintf(&b, "- %d of %d hidden %s passed (they run only when the exercise is graded, not when it is checked)\n", hiddenPassed, hidden, map[bool]string{true: "check", false: "checks"}[hidden == 1])
		}
		for _, h := range hints {
			fmt.Fprintf(&b, "\n> Hint: %s\n", mdText(h))
		}
	}
	return b.String()
}

// mdText keeps text that came from a program or a spec from being read as
// markdown, and from carrying escape sequences or control bytes (a
// student's compiler errors and output reach an editor, a terminal's
// cat, or the page).
func mdText(s string) string {
	s = ui.Printable(s)
	r := strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;", "|", "\\|", "#", "\\#", "\n", " ")
	return r.Replace(s)
}

// FeedbackFragment is Feedback as HTML to put in a page (the class
// page's Submit): what the student's program printed is escaped, raw
// HTML left out and dangerous links dropped, as goldmark does unless
// told to be unsafe.
func (s *Sheet) FeedbackFragment(student string) (string, error) {
	var body bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	if err := md.Convert([]byte(s.Feedback(student)), &body); err != nil {
		return "", err
	}
	return body.String(), nil
}

// FeedbackHTML is Feedback as a page of its own.
func (s *Sheet) FeedbackHTML(student string) ([]byte, error) {
	var body bytes.Buffer
	frag, err := s.FeedbackFragment(student)
	if err != nil {
		return nil, err
	}
	body.WriteString(frag)
	var page bytes.Buffer
	fmt.Fprintf(&page, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Feedback for %s</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .6rem}blockquote{border-left:4px solid #e0a800;margin:0;padding:.2rem 1rem;background:#fff8e1}</style>
</head><body>
`, html.EscapeString(ui.Printable(student)))
	page.Write(body.Bytes())
	s.writeTimelines(&page, student)
	page.WriteString("</body></html>\n")
	return page.Bytes(), nil
}

// WriteTable writes the sheet as a table for a terminal of width columns:
// a row per student, a column per exercise (✓ and the points, ✗ and why,
// missing, ? for what could not be graded) and the total; a record per
// student where the columns would not fit.
func (s *Sheet) WriteTable(w io.Writer, width int) error {
	t := ui.Table{Header: []string{"STUDENT"}}
	for _, x := range s.Exercises {
		t.Header = append(t.Header, x.ID)
	}
	t.Header = append(t.Header, "TOTAL")
	for _, st := range s.Students {
		row := []string{ui.Printable(st)}
		for _, x := range s.Exercises {
			a := s.Grades[st][x.ID]
			switch {
			case a == nil:
				row = append(row, "-")
			case a.Status == Passed:
				row = append(row, fmt.Sprintf("✓ %d", a.Points))
			case a.Status == Missing:
				row = append(row, "missing")
			case a.Status == Error:
				row = append(row, "? "+ui.Clip(a.Reason, 40))
			case a.Points > 0: // partial credit
				row = append(row, fmt.Sprintf("✗ %d %s", a.Points, ui.Clip(a.Reason, 40)))
			default:
				row = append(row, "✗ "+ui.Clip(a.Reason, 40))
			}
		}
		t.Rows = append(t.Rows, append(row, fmt.Sprintf("%d/%d", s.Total(st), s.Max)))
	}
	return t.Write(w, width)
}

// Count is how many of the sheet's grades have status.
func (s *Sheet) Count(status string) int {
	n := 0
	for _, st := range s.Students {
		for _, a := range s.Grades[st] {
			if a.Status == status {
				n++
			}
		}
	}
	return n
}

// WriteFeedback writes each student's feedback into dir, STUDENT.md and
// STUDENT.html, each whole or not at all, and returns how many students
// it wrote for.
func (s *Sheet) WriteFeedback(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	for _, st := range s.Students {
		if err := safefs.WriteAtomic(filepath.Join(dir, st+".md"), []byte(s.Feedback(st)), 0o644); err != nil {
			return 0, err
		}
		page, err := s.FeedbackHTML(st)
		if err != nil {
			return 0, err
		}
		if err := safefs.WriteAtomic(filepath.Join(dir, st+".html"), page, 0o644); err != nil {
			return 0, err
		}
	}
	return len(s.Students), nil
}

// WriteSummary is the table a grade ends with (width columns wide),
// then how many grades are marked for review when some are.
func (s *Sheet) WriteSummary(w io.Writer, width int) {
	s.WriteTable(w, width)
	if n := len(s.Marked()); n > 0 {
		fmt.Fprintf(w, "\n%s marked for review (the review column of lessons grade export, and the feedback).\n", ui.Count(n, "grade"))
	}
	switch n := len(s.NotWitnessed()); {
	case n == 0:
	case !s.someWitnessed():
		fmt.Fprintf(w, "No grade was witnessed from outside the programs: their statistics records are their own word (the witness of lessons grade export's JSON).\n")
	default:
		fmt.Fprintf(w, "%s not witnessed from outside the programs: their statistics records are their own word (the not_witnessed column of lessons grade export).\n", ui.Count(n, "grade"))
	}
}

// writeTimelines adds the timeline of each of a student's runs that kept
// one, as an image (an image's SVG runs nothing).
func (s *Sheet) writeTimelines(page *bytes.Buffer, student string) {
	for _, x := range s.Exercises {
		a := s.Grades[student][x.ID]
		if a == nil || len(a.Trace) == 0 {
			continue
		}
		tl, err := timeline.Parse(a.Trace)
		if err != nil {
			continue
		}
		svg := timeline.SVG(tl, timeline.SVGOptions{Theme: "light"})
		fmt.Fprintf(page, "<h2>What %s did with the allocator</h2>\n<p><img style=\"max-width:100%%;height:auto\" alt=\"%s\" src=\"data:image/svg+xml;base64,%s\"></p>\n",
			html.EscapeString(x.ID), html.EscapeString(tl.Summary()), base64.StdEncoding.EncodeToString([]byte(svg)))
	}
}
