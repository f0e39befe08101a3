// Package progress keeps what a student has passed, in the course's
// .lessons/progress.json, and says which exercise comes next.
package progress

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Progress is what the student has passed, and when.
type Progress struct {
	Passed map[string]time.Time `json:"passed"`
	// Hints is how many of each exercise's hints the student has asked
	// for (lessons hint shows one more each time).
	Hints map[string]int `json:"hints,omitempty"`
	// Failed is when a check of each exercise last failed: the third
	// hint (Gated) is given only after one has.
	Failed map[string]time.Time `json:"failed,omitempty"`
}

// Gated is the hint, counted from 1, that comes only after a check of
// its exercise has failed: the nudge is for a student who has tried.
const Gated = 3

// File is where course c keeps its progress.
func File(c *course.Course) string { return filepath.Join(c.Root, fileName) }

const fileName = ".lessons/progress.json"

// Load reads the progress; none yet is an empty one. A file that cannot
// be read is an error, never taken for an empty one: the next pass would
// write over what the student had passed.
func Load(c *course.Course) (*Progress, error) {
	p := &Progress{Passed: map[string]time.Time{}}
	data, err := safefs.ReadFile(c.Root, fileName)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err == nil {
		err = json.Unmarshal(data, p)
	}
	if err != nil {
		rel := strings.TrimPrefix(File(c), c.Root+string(filepath.Separator))
		return nil, fmt.Errorf("read %s: %v\n\tfix the file (JSON: {\"passed\": {\"ID\": \"time\"}}) or remove it to start over; lessons leaves it as it is", rel, err)
	}
	if p.Passed == nil {
		p.Passed = map[string]time.Time{}
	}
	return p, nil
}

// Save writes the progress whole.
func (p *Progress) Save(c *course.Course) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	// A course that commits .lessons as a link would have the progress
	// written wherever it points.
	if _, err := safefs.Dir(c.Root, ".lessons"); err != nil {
		return err
	}
	return safefs.WriteFile(c.Root, fileName, data, 0o644)
}

// Next is the first exercise of c after the one named after (from the
// start when after is ""), wrapping around, that is not passed; ok is
// false when every other exercise is passed.
func (p *Progress) Next(c *course.Course, after string) (id string, ok bool) {
	at := -1
	for i, x := range c.Exercises {
		if x.ID == after {
			at = i
		}
	}
	n := len(c.Exercises)
	for k := 1; k <= n; k++ {
		x := c.Exercises[(at+k+n)%n]
		if _, done := p.Passed[x.ID]; !done && x.ID != after {
			return x.ID, true
		}
	}
	return "", false
}

// RevealHint counts one more of x's hints as asked for and returns those
// asked for so far, with whether more are left. The Gated hint and those
// after it wait until a check of x has failed (Waiting). It does not save.
func (p *Progress) RevealHint(x *course.Exercise) (shown []string, more bool) {
	if len(x.Hints) == 0 {
		return nil, false
	}
	if p.Hints == nil {
		p.Hints = map[string]int{}
	}
	n := min(max(p.Hints[x.ID], 0)+1, len(x.Hints)) // a hand-edited count below 0 is none
	if _, failed := p.Failed[x.ID]; !failed && n >= Gated {
		n = Gated - 1
	}
	p.Hints[x.ID] = n
	return x.Hints[:n], n < len(x.Hints)
}

// Waiting is whether x's next hint is held back until a check of x has
// failed.
func (p *Progress) Waiting(x *course.Exercise) bool {
	_, failed := p.Failed[x.ID]
	return !failed && len(x.Hints) >= Gated && p.Hints[x.ID] >= Gated-1
}

// Fail records that a check of x failed now. It does not save.
func (p *Progress) Fail(x *course.Exercise) {
	if p.Failed == nil {
		p.Failed = map[string]time.Time{}
	}
	p.Failed[x.ID] = time.Now().UTC()
}
