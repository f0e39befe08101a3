package course

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
)

// Lookup finds the lesson q names: a path to any markdown file or
// notebook, or a day, dayNNN or slug of the course that load loads (only
// then loaded); the course is nil for a lesson read by path.
func Lookup(q string, load func() (*Course, error)) (*lesson.Lesson, *Course, error) {
	if looksLikePath(q) {
		st, err := os.Stat(q)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("%s: no such file", q)
		case err != nil:
			return nil, nil, err
		case st.IsDir():
			return nil, nil, fmt.Errorf("%s is a folder: name a lesson file in it", q)
		}
		l, err := lesson.ParseFile(q)
		return l, nil, err
	}
	c, err := load()
	if err != nil {
		return nil, nil, err
	}
	e, err := c.FindEntry(q)
	if err != nil {
		return nil, nil, err
	}
	l, err := c.Parse(e)
	return l, c, err
}

func looksLikePath(q string) bool {
	if strings.ContainsRune(q, filepath.Separator) || strings.ContainsRune(q, '/') {
		return true
	}
	if st, err := os.Stat(q); err == nil && !st.IsDir() && filepath.Ext(q) != "" {
		return true // a file here (go.mod), not a day or a slug
	}
	switch strings.ToLower(filepath.Ext(q)) {
	case ".md", ".markdown", ".qmd", ".txt", ".ipynb":
		return true
	}
	return false
}
