package lms

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// sheet is a graded class: jsmith passed one exercise and failed the
// other with partial credit and a hidden check; jdoe handed in nothing
// for one; ruizmarta's file could not be judged; zed is known only to
// the gradebook.
func sheet() *gradebook.Sheet {
	xs := []gradebook.Exercise{{ID: "async-pipeline", Points: 10}, {ID: "block-pool", Points: 5, Position: 1}}
	return &gradebook.Sheet{
		Exercises: xs,
		Students:  []string{"jdoe", "jsmith", "ruizmarta", "zed"},
		Max:       15,
		Grades: map[string]map[string]*gradebook.Attempt{
			"jsmith": {
				"async-pipeline": {Status: gradebook.Passed, Points: 10, MaxPoints: 10, Checks: []gradebook.Check{
					{Name: "exits with status 0", Passed: true}, {Name: "a hidden run", Passed: true, Hidden: true}}},
				"block-pool": {Status: gradebook.Failed, Points: 1, MaxPoints: 5, Reason: "prints \"allocated\": it does not", Checks: []gradebook.Check{
					{Name: "exits with status 0", Passed: true, Points: 1},
					{Name: `prints "allocated"`, Expected: "allocated", Got: "it does not", Hint: "Print it.", Points: 4},
					{Name: "a hidden run", Hidden: true, Expected: "0", Got: "1"}}},
			},
			"jdoe": {
				"async-pipeline": {Status: gradebook.Passed, Points: 10, MaxPoints: 10, Checks: []gradebook.Check{{Name: "exits with status 0", Passed: true}}},
				"block-pool":     {Status: gradebook.Missing, MaxPoints: 5, Reason: "no file handed in"},
			},
			"ruizmarta": {
				"async-pipeline": {Status: gradebook.Error, MaxPoints: 10, Reason: "nvcc: killed"},
			},
		},
	}
}

var people = map[string]gradebook.Person{
	"jsmith":    {ID: "jsmith", Name: "Smith, John", Email: "jsmith@uni.edu", LMSID: "1001", SISID: "S-1", Login: "jsmith", Section: "A", LMS: "canvas", Handle: "smithjohn_1001_5001"},
	"jdoe":      {ID: "jdoe", Name: "Doe, Jane", Email: "jdoe@uni.edu", LMSID: "1002", Section: "B", LMS: "moodle", Handle: "Jane Doe_333"},
	"ruizmarta": {ID: "ruizmarta", Name: "ruizmarta", LMSID: "1004", LMS: "canvas", Handle: "ruizmarta_1004_5004"},
}

func TestWriteCanvas(t *testing.T) {
	for _, tc := range []struct {
		golden  string
		e       Export
		unknown []string
	}{
		{"canvas_exercises.csv", Export{Sheet: sheet(), People: people, Columns: PerExercise}, []string{"zed"}},
		{"canvas_total.csv", Export{Sheet: sheet(), People: people, Columns: Total, Assignment: "Memory allocators (4711)"}, []string{"zed"}},
		{"canvas_out_of.csv", Export{Sheet: sheet(), People: people, Columns: Total, OutOf: 100}, []string{"zed"}},
	} {
		var b bytes.Buffer
		unknown, err := tc.e.WriteCanvas(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(unknown, tc.unknown) {
			t.Errorf("%s: unknown %q, want %q", tc.golden, unknown, tc.unknown)
		}
		golden(t, tc.golden, b.Bytes())
	}
}

func TestWriteMoodle(t *testing.T) {
	var b bytes.Buffer
	e := Export{Sheet: sheet(), People: people, Columns: PerExercise}
	unknown, err := e.Write("moodle", &b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unknown, []string{"ruizmarta", "zed"}) {
		t.Errorf("unknown %q", unknown)
	}
	golden(t, "moodle.csv", b.Bytes())
	if msg := Unknown("moodle", unknown); !strings.Contains(msg, "no ID number or email for 2 students") || !strings.Contains(msg, "ruizmarta, zed") {
		t.Errorf("Unknown: %s", msg)
	}
}

func TestWriteGradescope(t *testing.T) {
	s := sheet()
	e := Export{Sheet: s, People: people}
	var all bytes.Buffer
	for _, st := range s.Students {
		var b bytes.Buffer
		if err := e.WriteGradescope(&b, st); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Score        float64 `json:"score"`
			OutputFormat string  `json:"output_format"`
			TestFormat   string  `json:"test_output_format"`
			Tests        []struct {
				Name         string
				Score        float64
				MaxScore     float64 `json:"max_score"`
				Output       string
				OutputFormat string `json:"output_format"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(b.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if len(r.Tests) != 2 || r.Score != float64(s.Total(st)) {
			t.Errorf("%s: %+v", st, r)
		}
		// A student's output quoted in a got line is shown as text,
		// never read as markup (Gradescope's default reads some).
		if r.OutputFormat != "text" || r.TestFormat != "text" {
			t.Errorf("%s: output formats %q and %q, want text", st, r.OutputFormat, r.TestFormat)
		}
		for _, x := range r.Tests {
			if x.OutputFormat != "text" {
				t.Errorf("%s %s: output format %q, want text", st, x.Name, x.OutputFormat)
			}
		}
		all.WriteString("== " + e.GradescopeName(st) + "\n")
		all.Write(b.Bytes())
	}
	golden(t, "gradescope.json.golden", all.Bytes())

	dir := t.TempDir()
	n, err := e.WriteGradescopeDir(dir, func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) })
	if err != nil || n != 4 {
		t.Fatal(n, err)
	}
	for _, f := range []string{"jsmith@uni.edu/results.json", "jdoe@uni.edu/results.json", "ruizmarta/results.json", "zed/results.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestFeedbackName(t *testing.T) {
	for _, tc := range []struct {
		p    gradebook.Person
		want string
	}{
		{people["jsmith"], "smithjohn_1001_5001_feedback.html"},
		{people["jdoe"], "Jane Doe_333_assignsubmission_file_/feedback.html"},
		{gradebook.Person{ID: "x", LMS: "moodle", Handle: "../../etc_1"}, "..-..-etc_1_assignsubmission_file_/feedback.html"},
		{gradebook.Person{ID: "zed"}, "zed.html"},
	} {
		if got := FeedbackName(tc.p, ".html"); got != tc.want {
			t.Errorf("FeedbackName(%+v) = %q, want %q", tc.p, got, tc.want)
		}
		if got := FeedbackName(tc.p, ".html"); !filepath.IsLocal(got) {
			t.Errorf("%q leaves the folder", got)
		}
	}
}

func TestWriteFeedbackZip(t *testing.T) {
	out := filepath.Join(t.TempDir(), "feedback.zip")
	n, err := WriteFeedback(sheet(), people, out, func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) })
	if err != nil || n != 4 {
		t.Fatal(n, err)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Modified.Year() < 2020 { // zip's Create dates a file 1980
			t.Errorf("%s is dated %v", f.Name, f.Modified)
		}
	}
	want := []string{"Jane Doe_333_assignsubmission_file_/feedback.html", "smithjohn_1001_5001_feedback.html", "ruizmarta_1004_5004_feedback.html", "zed.html"}
	if !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
}

func TestMerge(t *testing.T) {
	known := map[string]gradebook.Person{"jsmith": {ID: "jsmith", Name: "smithjohn", LMSID: "1001", LMS: "canvas", Handle: "smithjohn_1001_5001"}}
	got := Merge(known, []gradebook.Person{{ID: "jsmith", Name: "John Smith", Email: "j@u"}, {ID: "new", Email: "n@u"}})
	if p := got["jsmith"]; p.Name != "John Smith" || p.Email != "j@u" || p.LMSID != "1001" || p.Handle != "smithjohn_1001_5001" {
		t.Errorf("merged %+v", p)
	}
	if got["new"].Email != "n@u" {
		t.Errorf("new %+v", got["new"])
	}
}
