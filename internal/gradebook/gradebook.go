// Package gradebook keeps a class's grades in SQLite: students, exercises,
// every attempt (status, points, the source's and the spec's hashes,
// timings, the program's output) and each check's result. Every attempt is
// one transaction in a write-ahead log, so a grader killed at any point
// (kill -9 included) loses nothing that was recorded, and a new run can
// resume from what is there.
package gradebook

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Status of an attempt.
const (
	Passed  = "passed"  // every check passed: full points
	Failed  = "failed"  // it was built and judged, and a check failed
	Missing = "missing" // the student handed in no file for the exercise
	Error   = "error"   // the grader could not judge it (a tool failed); graded again next run
)

// Attempt is one grading of one student's file for one exercise.
type Attempt struct {
	ID         int64
	Student    string
	Exercise   string
	Status     string
	Points     int
	MaxPoints  int
	SourceHash string // sha256 of the student's file, "" when missing
	SpecHash   string // sha256 of the exercise's spec (and of what judges it)
	Reason     string // the first failure, in words; "" when passed
	// Review is what an instructor should look at before trusting the
	// grade, one finding a line: a record the GPU's driver contradicts,
	// a source that names what reaches around the statistics library.
	// "" when nothing is marked.
	Review string
	// Note says how the grade was made when that was not the usual way:
	// a run made again alone on the machine, after the first was stopped
	// at its time limit while waiting in the GPU's driver. "" for none.
	Note string
	// Witness says whether the statistics records of the attempt's runs
	// were compared with what the kernel counted of their CUDA calls from
	// outside the program: Witnessed when every run's was, "not
	// witnessed: WHY" when one was not (no outside witness where it was
	// graded, a Python script's run): such a record is the program's own
	// word, which code in its process can forge. "" when nothing ran,
	// or for a grade made before the gradebook kept it.
	Witness  string
	Output   string // what the program printed (capped)
	BuildMS  int64
	RunMS    int64
	GradedAt time.Time
	Checks   []Check
	// Trace is the run's trace (internal/timeline), when the grade kept
	// one (grade --timeline); feedback draws it.
	Trace []byte
}

// ReviewLines are Review's findings, one each.
func (a *Attempt) ReviewLines() []string {
	var out []string
	for _, l := range strings.Split(a.Review, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// MarkForReview adds a finding to the attempt's Review, once.
func (a *Attempt) MarkForReview(finding string) {
	finding = strings.Join(strings.Fields(finding), " ")
	if finding == "" || slices.Contains(a.ReviewLines(), finding) {
		return
	}
	if a.Review != "" {
		a.Review += "\n"
	}
	a.Review += finding
}

// Check is one check's result within an attempt.
type Check struct {
	Name     string
	Passed   bool
	Expected string
	Got      string
	Hint     string
	Points   int // what the check earns when it passes (partial credit); 0 when it earns none of its own
	// Hidden checks are graded but not run by lessons check; what a
	// student's feedback says of them is the instructor's choice.
	Hidden bool
}

// Skipped says the check could not be made where it ran (no
// compute-sanitizer there, a tool that ended without its summary): it
// is kept as passed, with why it was not made as what it got.
func (c Check) Skipped() bool { return c.Passed && c.Got != "" }

// Exercise is an exercise as the gradebook knows it.
type Exercise struct {
	ID       string
	Points   int
	Position int
}

// Book is an open gradebook.
type Book struct {
	db   *sql.DB
	Path string
	lock *os.File // OpenToGrade's hold on the gradebook; nil otherwise
}

const schema = `
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
CREATE TABLE IF NOT EXISTS traces (
	attempt INTEGER PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
	events  BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS checks (
	attempt  INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
	position INTEGER NOT NULL,
	name     TEXT NOT NULL,
	passed   INTEGER NOT NULL,
	expected TEXT NOT NULL,
	got      TEXT NOT NULL,
	hint     TEXT NOT NULL,
	points   INTEGER NOT NULL DEFAULT 0,
	hidden   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (attempt, position)
);
-- A student's grade for an exercise is their latest attempt.
CREATE VIEW IF NOT EXISTS grades AS
	SELECT a.* FROM attempts a
	WHERE a.id = (SELECT max(b.id) FROM attempts b WHERE b.student = a.student AND b.exercise = a.exercise);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '3');
`

// migrations bring a gradebook of an older schema (the key) to the next.
var migrations = map[string]string{
	// 2: each check's points, for partial credit.
	"1": `ALTER TABLE checks ADD COLUMN points INTEGER NOT NULL DEFAULT 0; UPDATE meta SET value = '2' WHERE key = 'schema';`,
	// 3: hidden checks.
	"2": `ALTER TABLE checks ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0; UPDATE meta SET value = '3' WHERE key = 'schema';`,
	// 4: attempts marked for an instructor's review.
	"3": `ALTER TABLE attempts ADD COLUMN review TEXT NOT NULL DEFAULT ''; UPDATE meta SET value = '4' WHERE key = 'schema';`,
	// 5: a note on how an attempt was graded (a run made again alone).
	"4": `ALTER TABLE attempts ADD COLUMN note TEXT NOT NULL DEFAULT ''; UPDATE meta SET value = '5' WHERE key = 'schema';`,
	// 6: whether the outside witness compared an attempt's records.
	"5": `ALTER TABLE attempts ADD COLUMN witness TEXT NOT NULL DEFAULT ''; UPDATE meta SET value = '6' WHERE key = 'schema';`,
}

const schemaVersion = "6"

// Witnessed is Attempt.Witness of an attempt whose every run's record
// the outside witness compared.
const Witnessed = "compared"

// Unwitnessed says whether a that ran is marked not witnessed.
func (a *Attempt) Unwitnessed() bool { return strings.HasPrefix(a.Witness, "not witnessed") }

// OpenExisting opens the gradebook at path for a command that reads it:
// one that is not there is an error that says how to make it.
func OpenExisting(path string) (*Book, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no gradebook at %s: grade a class first (lessons grade SUBMISSIONS) or name it with --gradebook", path)
	}
	return Open(path)
}

// OpenIfThere opens the gradebook at path when there is one there, and
// is nil (which Close accepts) when there is none: what a dry run reads.
func OpenIfThere(path string) (*Book, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	return Open(path)
}

// ReadSheet reads the sheet of the gradebook at path, which must exist.
func ReadSheet(path string) (*Sheet, error) {
	b, err := OpenExisting(path)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Sheet()
}

// busyTimeout is how long a statement waits for another process's
// write to end: the DSN's busy_timeout.
const busyTimeout = 10 * time.Second

// Open opens the gradebook at path, creating it when it is not there.
func Open(path string) (*Book, error) {
	// WAL with synchronous=NORMAL keeps every committed attempt through a
	// crash of the grader; the busy timeout lets export read while a grade
	// run writes. (The driver sets busy_timeout before the other pragmas
	// wherever it is named; journal_mode(WAL) still may not wait: see
	// connect.)
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)", path, busyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("gradebook %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serializes them anyway
	v, err := bringUpToDate(db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("gradebook %s: %w", path, err)
	}
	if v != schemaVersion {
		db.Close()
		return nil, fmt.Errorf("gradebook %s: schema %q, this lessons reads schema %s: a newer lessons wrote it", path, v, schemaVersion)
	}
	return &Book{db: db, Path: path}, nil
}

// bringUpToDate creates the gradebook's tables when they are not there
// and brings an older schema up to date, all in one write transaction
// taken at its start: two processes opening one gradebook at once (a
// grade run starting while export or a progress poll opens it) see the
// schema one after the other, so neither runs a migration the other has
// already run. It is the schema's version after.
func bringUpToDate(db *sql.DB) (string, error) {
	ctx := context.Background()
	conn, err := connect(ctx, db)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	// A gradebook already up to date (every open but the first) is only
	// read: no write lock, so export opens while a grade run writes.
	var now string
	if conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&now) == nil && now == schemaVersion {
		return now, nil
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return "", fmt.Errorf("%w (is it a lessons gradebook?)", err)
	}
	v, err := func() (string, error) {
		if _, err := conn.ExecContext(ctx, schema); err != nil {
			return "", fmt.Errorf("%w (is it a lessons gradebook?)", err)
		}
		for {
			var v string
			if err := conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v); err != nil {
				return "", fmt.Errorf("%w (is it a lessons gradebook?)", err)
			}
			m, ok := migrations[v]
			if !ok {
				return v, nil
			}
			if _, err := conn.ExecContext(ctx, m); err != nil {
				return "", fmt.Errorf("bringing schema %s up to date: %w", v, err)
			}
		}
	}()
	if err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return "", err
	}
	return v, nil
}

// connect is a connection to db, tried again while it finds the
// gradebook busy, for as long as the busy timeout. A connection's setup
// sets journal_mode(WAL), which on a gradebook just made (or one still
// in the first schema's rollback journal) takes the file to itself a
// moment, and SQLite answers "database is locked" at once to another
// process that sets it then, without the busy timeout's wait (eight
// opening one gradebook at once, TestOpenedAtOnce, failed so).
func connect(ctx context.Context, db *sql.DB) (*sql.Conn, error) {
	deadline := time.Now().Add(busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		conn, err := db.Conn(ctx)
		var e *sqlite.Error
		if err == nil || !errors.As(err, &e) || e.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return conn, err
		}
		time.Sleep(wait)
	}
}

// ErrGradedElsewhere is OpenToGrade's error when another grade run holds
// the gradebook.
var ErrGradedElsewhere = errors.New("another lessons grade is recording into this gradebook")

// OpenToGrade opens the gradebook at path, as Open does, for a grade run
// that records into it, and holds it until Close: a second grade run on
// the same gradebook (a grader thought killed, a second terminal) is
// refused at once instead of grading the class again beside the first
// and recording every grade twice. Readers (export, feedback) still
// read while it is held. The hold is a lock on PATH.lock beside it,
// which the system lets go of when the process ends, kill -9 too.
func OpenToGrade(path string) (*Book, error) {
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("gradebook %s: %w", path, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("gradebook %s: %w: wait for it to end (or stop it), then grade again; what it recorded is kept", path, ErrGradedElsewhere)
		}
		return nil, fmt.Errorf("gradebook %s: holding it for this grade: %w", path, err)
	}
	b, err := Open(path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	b.lock = lock
	return b, nil
}

// Close closes the gradebook (and lets go of OpenToGrade's hold).
func (b *Book) Close() error {
	if b == nil {
		return nil // OpenIfThere's none
	}
	err := b.db.Close()
	if b.lock != nil {
		b.lock.Close()
	}
	return err
}

// SetExercises records the exercises, their points and their order.
func (b *Book) SetExercises(xs []Exercise) error {
	tx, err := b.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, x := range xs {
		if _, err := tx.Exec(`INSERT INTO exercises (id, points, position) VALUES (?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET points = excluded.points, position = excluded.position`, x.ID, x.Points, x.Position); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Latest is the latest attempt of student on exercise, without its checks;
// ok is false when there is none.
func (b *Book) Latest(student, exercise string) (a *Attempt, ok bool, err error) {
	rows, err := b.db.Query(`SELECT `+attemptCols+` FROM grades WHERE student = ? AND exercise = ?`, student, exercise)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, false, rows.Err()
	}
	a, err = scanAttempt(rows)
	return a, err == nil, err
}

const attemptCols = `id, student, exercise, status, points, max_points, source_hash, spec_hash, reason, output, build_ms, run_ms, graded_at, review, note, witness`

func scanAttempt(rows *sql.Rows) (*Attempt, error) {
	a := &Attempt{}
	var at string
	err := rows.Scan(&a.ID, &a.Student, &a.Exercise, &a.Status, &a.Points, &a.MaxPoints, &a.SourceHash, &a.SpecHash, &a.Reason, &a.Output, &a.BuildMS, &a.RunMS, &at, &a.Review, &a.Note, &a.Witness)
	if err != nil {
		return nil, err
	}
	a.GradedAt, _ = time.Parse(time.RFC3339Nano, at)
	return a, nil
}

// Record adds an attempt and its checks, in one transaction.
func (b *Book) Record(a *Attempt) error {
	switch a.Status {
	case Passed, Failed, Missing, Error:
	default:
		return fmt.Errorf("gradebook: unknown status %q", a.Status)
	}
	if a.GradedAt.IsZero() {
		a.GradedAt = time.Now().UTC()
	}
	tx, err := b.db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT OR IGNORE INTO students (id, first_seen) VALUES (?, ?)`, a.Student, a.GradedAt.Format(time.RFC3339Nano)); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT OR IGNORE INTO exercises (id, points, position) VALUES (?, ?, (SELECT count(*) FROM exercises))`, a.Exercise, a.MaxPoints); err != nil {
		return err
	}
	res, err := tx.Exec(`INSERT INTO attempts (student, exercise, status, points, max_points, source_hash, spec_hash, reason, output, build_ms, run_ms, graded_at, review, note, witness)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.Student, a.Exercise, a.Status, a.Points, a.MaxPoints, a.SourceHash, a.SpecHash, a.Reason, a.Output, a.BuildMS, a.RunMS, a.GradedAt.Format(time.RFC3339Nano), a.Review, a.Note, a.Witness)
	if err != nil {
		return err
	}
	if a.ID, err = res.LastInsertId(); err != nil {
		return err
	}
	if len(a.Trace) > 0 {
		if _, err := tx.Exec(`INSERT INTO traces (attempt, events) VALUES (?, ?)`, a.ID, a.Trace); err != nil {
			return err
		}
	}
	for i, c := range a.Checks {
		if _, err := tx.Exec(`INSERT INTO checks (attempt, position, name, passed, expected, got, hint, points, hidden) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, i, c.Name, c.Passed, c.Expected, c.Got, c.Hint, c.Points, c.Hidden); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Exercises are the exercises in their course order.
func (b *Book) Exercises() ([]Exercise, error) {
	rows, err := b.db.Query(`SELECT id, points, position FROM exercises ORDER BY position, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var xs []Exercise
	for rows.Next() {
		var x Exercise
		if err := rows.Scan(&x.ID, &x.Points, &x.Position); err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	return xs, rows.Err()
}

// Students are the students, sorted.
func (b *Book) Students() ([]string, error) {
	rows, err := b.db.Query(`SELECT id FROM students ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Grades are every student's latest attempt at every exercise, with
// checks, keyed by student then exercise.
func (b *Book) Grades() (map[string]map[string]*Attempt, error) {
	rows, err := b.db.Query(`SELECT ` + attemptCols + ` FROM grades ORDER BY student, exercise`)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*Attempt{}
	out := map[string]map[string]*Attempt{}
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if out[a.Student] == nil {
			out[a.Student] = map[string]*Attempt{}
		}
		out[a.Student][a.Exercise] = a
		byID[a.ID] = a
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	crows, err := b.db.Query(`SELECT c.attempt, c.name, c.passed, c.expected, c.got, c.hint, c.points, c.hidden FROM checks c JOIN grades g ON g.id = c.attempt ORDER BY c.attempt, c.position`)
	if err != nil {
		return nil, err
	}
	defer crows.Close()
	for crows.Next() {
		var id int64
		var c Check
		if err := crows.Scan(&id, &c.Name, &c.Passed, &c.Expected, &c.Got, &c.Hint, &c.Points, &c.Hidden); err != nil {
			return nil, err
		}
		if a := byID[id]; a != nil {
			a.Checks = append(a.Checks, c)
		}
	}
	if err := crows.Err(); err != nil {
		return nil, err
	}
	trows, err := b.db.Query(`SELECT t.attempt, t.events FROM traces t JOIN grades g ON g.id = t.attempt`)
	if err != nil {
		return nil, err
	}
	defer trows.Close()
	for trows.Next() {
		var id int64
		var ev []byte
		if err := trows.Scan(&id, &ev); err != nil {
			return nil, err
		}
		if a := byID[id]; a != nil {
			a.Trace = ev
		}
	}
	return out, trows.Err()
}

// Attempts counts every attempt recorded, the superseded ones included.
func (b *Book) Attempts() (int, error) {
	var n int
	err := b.db.QueryRow(`SELECT count(*) FROM attempts`).Scan(&n)
	return n, err
}

// ErrNoGrades is returned by the exports of an empty gradebook.
var ErrNoGrades = errors.New("the gradebook has no grades yet: run lessons grade SUBMISSIONS first")
