package gradebook

import "fmt"

// Person is who a student of the gradebook is outside it: what a
// learning management system needs to take their grades back. Every
// field but ID may be empty.
type Person struct {
	ID      string // the student as the gradebook names them
	Name    string
	Email   string
	LMSID   string // the LMS's own id (Canvas's user id, Moodle's participant id)
	SISID   string // the institution's id (Canvas's SIS User ID, Moodle's ID number)
	Login   string // Canvas's SIS Login ID
	Section string
	// LMS and Handle say how the LMS named this student's files
	// ("canvas", "smithjohn_12345_678"), so that feedback can go back
	// under a name it recognises.
	LMS    string
	Handle string
}

// The table is created on first use, so gradebooks written before it
// need no migration.
const peopleSchema = `CREATE TABLE IF NOT EXISTS people (
	id      TEXT PRIMARY KEY,
	name    TEXT NOT NULL,
	email   TEXT NOT NULL,
	lms_id  TEXT NOT NULL,
	sis_id  TEXT NOT NULL,
	login   TEXT NOT NULL,
	section TEXT NOT NULL,
	lms     TEXT NOT NULL,
	handle  TEXT NOT NULL
)`

// SetPeople records who the students are, replacing what was known of
// each one named.
func (b *Book) SetPeople(ps []Person) error {
	tx, err := b.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(peopleSchema); err != nil {
		return fmt.Errorf("gradebook %s: %w", b.Path, err)
	}
	for _, p := range ps {
		if _, err := tx.Exec(`INSERT OR REPLACE INTO people (id, name, email, lms_id, sis_id, login, section, lms, handle)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Name, p.Email, p.LMSID, p.SISID, p.Login, p.Section, p.LMS, p.Handle); err != nil {
			return fmt.Errorf("gradebook %s: %w", b.Path, err)
		}
	}
	return tx.Commit()
}

// People is what is known of each student, by ID.
func (b *Book) People() (map[string]Person, error) {
	out := map[string]Person{}
	var n int
	if err := b.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'people'`).Scan(&n); err != nil || n == 0 {
		return out, err
	}
	rows, err := b.db.Query(`SELECT id, name, email, lms_id, sis_id, login, section, lms, handle FROM people ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p Person
		if err := rows.Scan(&p.ID, &p.Name, &p.Email, &p.LMSID, &p.SISID, &p.Login, &p.Section, &p.LMS, &p.Handle); err != nil {
			return nil, err
		}
		out[p.ID] = p
	}
	return out, rows.Err()
}
