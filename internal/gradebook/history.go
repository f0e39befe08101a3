package gradebook

// History is every attempt of a student at an exercise, oldest first,
// without their checks: a class's submissions, kept.
func (b *Book) History(student, exercise string) ([]*Attempt, error) {
	rows, err := b.db.Query(`SELECT `+attemptCols+` FROM attempts WHERE student = ? AND exercise = ? ORDER BY id`, student, exercise)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Attempt
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Attempt is one attempt, with its checks; ok is false when there is no
// attempt of that id.
func (b *Book) Attempt(id int64) (a *Attempt, ok bool, err error) {
	rows, err := b.db.Query(`SELECT `+attemptCols+` FROM attempts WHERE id = ?`, id)
	if err != nil {
		return nil, false, err
	}
	if !rows.Next() {
		rows.Close()
		return nil, false, rows.Err()
	}
	a, err = scanAttempt(rows)
	rows.Close()
	if err != nil {
		return nil, false, err
	}
	crows, err := b.db.Query(`SELECT name, passed, expected, got, hint, points, hidden FROM checks WHERE attempt = ? ORDER BY position`, id)
	if err != nil {
		return nil, false, err
	}
	defer crows.Close()
	for crows.Next() {
		var c Check
		if err := crows.Scan(&c.Name, &c.Passed, &c.Expected, &c.Got, &c.Hint, &c.Points, &c.Hidden); err != nil {
			return nil, false, err
		}
		a.Checks = append(a.Checks, c)
	}
	return a, true, crows.Err()
}
