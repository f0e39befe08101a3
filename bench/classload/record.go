package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/cudalessons/lessons/internal/gradebook"
)

// entry is one line of the record: what a student sent and what the
// server acknowledged (a 200 answer), so that after a kill -9 and a
// restart -verify can tell what must not have been lost.
type entry struct {
	Student  string `json:"student"`
	Kind     string `json:"kind"` // "sent" (a save on its way), "saved", "submitted"
	Exercise string `json:"exercise"`
	File     string `json:"file,omitempty"` // the copy's path under the student's folder
	N        int    `json:"n,omitempty"`    // the save's number, in the file's marker
	Attempt  int64  `json:"attempt,omitempty"`
}

// recorder appends entries to the record file as they happen: the load
// may be cut short, the record must not be.
type recorder struct {
	mu sync.Mutex
	f  *os.File
}

func openRecorder(name string) (*recorder, error) {
	if name == "" {
		return nil, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &recorder{f: f}, nil
}

func (r *recorder) add(e entry) {
	if r == nil {
		return
	}
	line, _ := json.Marshal(e)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.Write(append(line, '\n'))
}

func (r *recorder) close() error {
	if r == nil {
		return nil
	}
	return r.f.Close()
}

// marker is the line each save appends to the student's file: its
// number tells which save the file on disk holds.
func marker(student string, n int) string {
	return fmt.Sprintf("\n// classload: %s save %d\n", student, n)
}

var markerRE = regexp.MustCompile(`// classload: (\S+) save (\d+)`)

// verify reads the record and checks the class folder against it: each
// student's file holds their last acknowledged save or one sent after it
// (in flight at the kill), and every acknowledged submission is in the
// gradebook as theirs. It says what was lost, and is an error if any.
func verify(w io.Writer, record, class string) error {
	fh, err := os.Open(record)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer fh.Close()
	type state struct {
		file           string
		acked, sent    int
		saves, submits int
		attempts       []int64
		exerciseOf     map[int64]string
	}
	st := map[string]*state{}
	data, err := io.ReadAll(fh)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	// The load may still be writing (a verify at the kill, the students
	// going on): its last line, not yet ended, is not read.
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("verify %s: %v", record, err)
		}
		s := st[e.Student]
		if s == nil {
			s = &state{exerciseOf: map[int64]string{}}
			st[e.Student] = s
		}
		switch e.Kind {
		case "sent":
			s.file, s.sent = e.File, max(s.sent, e.N)
		case "saved":
			s.acked = max(s.acked, e.N)
			s.saves++
		case "submitted":
			s.attempts = append(s.attempts, e.Attempt)
			s.exerciseOf[e.Attempt] = e.Exercise
			s.submits++
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("verify %s: %w", record, err)
	}
	b, err := gradebook.OpenExisting(filepath.Join(class, ".class", "gradebook.db"))
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer b.Close()
	ids := make([]string, 0, len(st))
	for id := range st {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var lost []string
	saves, submits, inFlight := 0, 0, 0
	for _, id := range ids {
		s := st[id]
		saves, submits = saves+s.saves, submits+s.submits
		if s.file != "" {
			data, err := os.ReadFile(filepath.Join(class, "students", id, filepath.FromSlash(s.file)))
			if err != nil {
				lost = append(lost, fmt.Sprintf("%s: the file: %v", id, err))
			} else {
				on := 0
				for _, m := range markerRE.FindAllStringSubmatch(string(data), -1) {
					if m[1] == id {
						on, _ = strconv.Atoi(m[2])
					}
				}
				switch {
				case on < s.acked:
					lost = append(lost, fmt.Sprintf("%s: %s holds save %d, but save %d was acknowledged", id, s.file, on, s.acked))
				case on > s.sent:
					lost = append(lost, fmt.Sprintf("%s: %s holds save %d, never sent", id, s.file, on))
				case on > s.acked:
					inFlight++
				}
			}
		}
		for _, at := range s.attempts {
			a, ok, err := b.Attempt(at)
			switch {
			case err != nil:
				lost = append(lost, fmt.Sprintf("%s: attempt %d: %v", id, at, err))
			case !ok:
				lost = append(lost, fmt.Sprintf("%s: submission %d was acknowledged and is not in the gradebook", id, at))
			case a.Student != id || a.Exercise != s.exerciseOf[at]:
				lost = append(lost, fmt.Sprintf("%s: attempt %d is %s's %s in the gradebook", id, at, a.Student, a.Exercise))
			}
		}
	}
	fmt.Fprintf(w, "verify: %d students, %d saves and %d submissions acknowledged; %d files hold a save sent after their last acknowledged one (in flight at the kill); lost: %d\n",
		len(ids), saves, submits, inFlight, len(lost))
	for _, l := range lost {
		fmt.Fprintf(w, "  lost: %s\n", l)
	}
	if len(lost) > 0 {
		return fmt.Errorf("%d acknowledged edits or submissions lost", len(lost))
	}
	return nil
}
