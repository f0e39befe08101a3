package classroom

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/safefs"
)

// The instructor's choice of which submission counts, where it is not
// the latest: kept beside the gradebook (.class/counts.json), applied
// to the class's view and its export.

func countKey(student, exercise string) string { return student + " " + exercise }

func (c *Class) countsPath() string { return filepath.Join(c.private, "counts.json") }

// loadCounts reads the choices; none when there is no file.
func (c *Class) loadCounts() (map[string]int64, error) {
	m := map[string]int64{}
	data, err := os.ReadFile(c.countsPath())
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		return nil, fmt.Errorf("the choices of what counts, %s: %w (restore it, or delete it: the latest submissions count)", c.countsPath(), err)
	}
	return m, nil
}

// Count makes attempt the one that counts of student's submissions of
// exercise; 0 makes it the latest again.
func (c *Class) Count(student, exercise string, attempt int64) error {
	if attempt != 0 {
		a, ok, err := c.book.Attempt(attempt)
		if err != nil {
			return err
		}
		if !ok || a.Student != student || a.Exercise != exercise {
			return fmt.Errorf("class: %s has no submission #%d of %s", student, attempt, exercise)
		}
	}
	c.countsMu.Lock()
	defer c.countsMu.Unlock()
	m, err := c.loadCounts()
	if err != nil {
		return err
	}
	if attempt == 0 {
		delete(m, countKey(student, exercise))
	} else {
		m[countKey(student, exercise)] = attempt
	}
	data, _ := json.MarshalIndent(m, "", " ")
	return safefs.WriteAtomic(c.countsPath(), data, 0o600)
}

// Sheet is the gradebook as the class's export gives it: each student's
// latest submission of each exercise, or the one the instructor chose.
func (c *Class) Sheet() (*gradebook.Sheet, error) {
	sheet, err := c.book.Sheet()
	if err != nil {
		return nil, err
	}
	sheet.Hidden = c.cfg.Hidden
	c.countsMu.Lock()
	m, err := c.loadCounts()
	c.countsMu.Unlock()
	if err != nil {
		return nil, err
	}
	for _, id := range m {
		a, ok, err := c.book.Attempt(id)
		if err != nil {
			return nil, err
		}
		if ok && sheet.Grades[a.Student] != nil {
			sheet.Grades[a.Student][a.Exercise] = a
		}
	}
	return sheet, nil
}
