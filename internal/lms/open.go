package lms

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/roster"
)

// Submissions is a class's submissions as grade reads them: Dir holds a
// folder per student. Close removes what Open unpacked.
type Submissions struct {
	*Class
	temp string
}

// Open reads src for grading course c. A download (IsDownload) is
// arranged into a temporary folder; a folder per student is read where
// it is, the roster only checked against it.
func Open(src string, c *course.Course, roster []gradebook.Person) (*Submissions, error) {
	if !IsDownload(src) {
		return &Submissions{Class: folderClass(src, roster)}, nil
	}
	ts, err := Targets(c)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "lessons-lms-")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "submissions")
	if err := os.Mkdir(out, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	cl, err := Arrange(src, out, ts, Options{Roster: roster})
	if err == nil && len(cl.People) == 0 {
		err = fmt.Errorf("read %s: no student's files in it (%d files not graded): is it the LMS's download of the submissions?", src, len(cl.Notes))
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Submissions{Class: cl, temp: tmp}, nil
}

// Close removes the folder Open unpacked into, if any.
func (s *Submissions) Close() error {
	if s.temp == "" {
		return nil
	}
	return os.RemoveAll(s.temp)
}

// Unpacked says whether Dir is a folder Open made.
func (s *Submissions) Unpacked() bool { return s.temp != "" }

// folderClass is a folder per student with the roster: who on it has no
// folder, and whose folder is not on it.
func folderClass(dir string, roster []gradebook.Person) *Class {
	cl := &Class{Dir: dir, Layout: Folders, People: roster}
	if roster == nil {
		return cl
	}
	have := map[string]bool{}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() && e.Name()[0] != '.' {
				have[e.Name()] = true
			}
		}
	}
	for _, p := range roster {
		if !have[p.ID] {
			cl.Missing = append(cl.Missing, p.ID)
		}
		delete(have, p.ID)
		// What each handed in, for the report ("4 students handed in 0
		// files" was said of every folder of files).
		if ents, err := os.ReadDir(filepath.Join(dir, p.ID)); err == nil {
			for _, e := range ents {
				if e.Type().IsRegular() && e.Name()[0] != '.' {
					cl.Files++
				}
			}
		}
	}
	for id := range have {
		cl.Unlisted = append(cl.Unlisted, id)
	}
	sort.Strings(cl.Unlisted)
	return cl
}

// Merge joins a roster to what the gradebook knows of its students: a
// field the roster gives wins; how the LMS named their files is kept.
func Merge(known map[string]gradebook.Person, roster []gradebook.Person) map[string]gradebook.Person {
	out := map[string]gradebook.Person{}
	for id, p := range known {
		out[id] = p
	}
	for _, r := range roster {
		p := out[r.ID]
		p.ID = r.ID
		for _, f := range []struct {
			dst *string
			src string
		}{
			{&p.Name, r.Name}, {&p.Email, r.Email}, {&p.LMSID, r.LMSID}, {&p.SISID, r.SISID},
			{&p.Login, r.Login}, {&p.Section, r.Section}, {&p.LMS, r.LMS}, {&p.Handle, r.Handle},
		} {
			if f.src != "" {
				*f.dst = f.src
			}
		}
		out[r.ID] = p
	}
	return out
}

// WriteFeedback writes each student's feedback page (s.FeedbackHTML)
// under the name their LMS attaches it by (FeedbackName), into the
// folder out, or into a zip when out ends in .zip. It returns how many
// it wrote.
func WriteFeedback(s *gradebook.Sheet, people map[string]gradebook.Person, out string, write func(name string, data []byte) error) (int, error) {
	var zbuf bytes.Buffer
	var zw *zip.Writer
	if filepath.Ext(out) == ".zip" {
		zw = zip.NewWriter(&zbuf)
	}
	for _, st := range s.Students {
		p, ok := people[st]
		if !ok {
			p = gradebook.Person{ID: st}
		}
		page, err := s.FeedbackHTML(st)
		if err != nil {
			return 0, err
		}
		name := FeedbackName(p, ".html")
		if zw != nil {
			// Dated now: zip's Create leaves the date at 1980, which an
			// LMS and an unzip then show.
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()})
			if err != nil {
				return 0, fmt.Errorf("feedback %s: %w", out, err)
			}
			w.Write(page)
			continue
		}
		dest := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return 0, err
		}
		if err := write(dest, page); err != nil {
			return 0, err
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return 0, err
		}
		if err := write(out, zbuf.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(s.Students), nil
}

// Unpack arranges the download src into out, a new or empty folder, for
// grading course c, with the students as roster.csv beside their folders
// (what grade --roster and grade export --roster read back).
func Unpack(src, out string, c *course.Course, listed []gradebook.Person, write func(name string, data []byte) error) (*Class, error) {
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("unpack into %s: the folder is not empty: name a new one", out)
	}
	ts, err := Targets(c)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	cl, err := Arrange(src, out, ts, Options{Roster: listed})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := roster.Write(&buf, cl.People); err != nil {
		return nil, err
	}
	return cl, write(filepath.Join(out, "roster.csv"), buf.Bytes())
}

// WriteGradescopeDir writes every student's results.json under dir, at
// GradescopeName; it returns how many.
func (e *Export) WriteGradescopeDir(dir string, write func(name string, data []byte) error) (int, error) {
	for _, st := range e.Sheet.Students {
		name := filepath.Join(dir, filepath.FromSlash(e.GradescopeName(st)))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return 0, err
		}
		var b bytes.Buffer
		if err := e.WriteGradescope(&b, st); err != nil {
			return 0, err
		}
		if err := write(name, b.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(e.Sheet.Students), nil
}
