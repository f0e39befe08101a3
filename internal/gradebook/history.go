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
