package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// Result is one graded item, as a run task writes it.
type Result struct {
	Item    Item               `json:"item"`
	Attempt *gradebook.Attempt `json:"attempt"`
	Task    string             `json:"task"` // JOB_INDEX of the task that graded it
	Node    string             `json:"node"`
}

// ResultName is the file of an item's result: a hash of the student, the
// exercise and both hashes, so a changed file or spec never matches an
// old result, and no student's name reaches the filesystem.
func ResultName(it Item) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", it.Student, it.Exercise, it.SourceHash, it.SpecHash)
	return hex.EncodeToString(h.Sum(nil))[:32] + ".json"
}

// WriteResult writes an item's result into dir, atomically.
func WriteResult(dir string, r *Result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := WriteAtomic(filepath.Join(dir, ResultName(r.Item)), data); err != nil {
		return fmt.Errorf("write result of %s %s: %w", r.Item.Student, r.Item.Exercise, err)
	}
	return nil
}

// ReadResult reads an item's result from dir; ok is false when there is
// none yet.
func ReadResult(dir string, it Item) (r *Result, ok bool, err error) {
	path := filepath.Join(dir, ResultName(it))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	r = &Result{}
	if err := json.Unmarshal(data, r); err != nil || r.Attempt == nil || r.Item != it {
		// Files are renamed into place whole: this one is not ours.
		return nil, false, fmt.Errorf("result %s: not a result of %s %s (%v); remove it and collect again", path, it.Student, it.Exercise, err)
	}
	return r, true, nil
}

// Book is what merging needs of the gradebook.
type Book interface {
	Latest(student, exercise string) (*gradebook.Attempt, bool, error)
	Record(a *gradebook.Attempt) error
}

// Merged counts what a merge found.
type Merged struct {
	New     []*gradebook.Attempt // recorded by this merge
	Done    int                  // items with a result (this merge's and earlier ones)
	Missing []Item               // items with no result yet
}

// Merge records into book each item's result found in dir that is not
// recorded yet. It is safe to run again (and after a crash half way): a
// result already in the book (the same hashes and the same time graded)
// is not recorded twice.
func Merge(book Book, dir string, items []Item) (*Merged, error) {
	m := &Merged{}
	for _, it := range items {
		r, ok, err := ReadResult(dir, it)
		if err != nil {
			return m, err
		}
		if !ok {
			m.Missing = append(m.Missing, it)
			continue
		}
		m.Done++
		prev, ok, err := book.Latest(it.Student, it.Exercise)
		if err != nil {
			return m, err
		}
		a := r.Attempt
		if ok && prev.SourceHash == a.SourceHash && prev.SpecHash == a.SpecHash && prev.GradedAt.Equal(a.GradedAt) {
			continue
		}
		a.ID = 0
		if err := book.Record(a); err != nil {
			return m, fmt.Errorf("merge %s %s: %w", it.Student, it.Exercise, err)
		}
		m.New = append(m.New, a)
	}
	return m, nil
}
