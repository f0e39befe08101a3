package classroom

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/gradebook"
)

// ClassState is the instructor's view of the class: every student and
// exercise, and the queue.
type ClassState struct {
	Exercises []string       `json:"exercises"`
	Students  []StudentState `json:"students"`
	Queue     queue.State    `json:"queue"`
	// Stopped are submissions a killed server never graded ("who exercise").
	Stopped []string `json:"stopped,omitempty"`
	// Workers are the nodes' workers connected now (Config.Workers).
	Workers []string `json:"workers,omitempty"`
}

// StudentState is one student's row of the instructor's view.
type StudentState struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Last      time.Time         `json:"last,omitempty"`
	What      string            `json:"what,omitempty"`
	Checks    map[string]string `json:"checks"`    // the last check's status, this run of the server
	Submitted map[string]string `json:"submitted"` // the latest submission: "passed 10/10"
	Waiting   int               `json:"waiting"`
	Running   int               `json:"running"`
	GPUHourMS int64             `json:"gpuHourMS"`
}

// State is the class as the instructor's view shows it.
func (c *Class) State() (*ClassState, error) {
	sheet, err := c.Sheet()
	grades := map[string]map[string]*gradebook.Attempt{}
	switch {
	case err == nil:
		grades = sheet.Grades
	case !errors.Is(err, gradebook.ErrNoGrades):
		return nil, err
	}
	c.countsMu.Lock()
	counts, err := c.loadCounts()
	c.countsMu.Unlock()
	if err != nil {
		return nil, err
	}
	q := c.queue.State()
	st := &ClassState{Queue: q, Stopped: c.Stopped}
	if c.cfg.Workers != nil {
		st.Workers = c.cfg.Workers()
	}
	for _, x := range c.course.Exercises {
		st.Exercises = append(st.Exercises, x.ID)
	}
	ids := make([]string, 0, len(c.roster))
	for id := range c.roster {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		s := StudentState{ID: id, Name: c.roster[id].Name, Checks: map[string]string{}, Submitted: map[string]string{},
			Waiting: q.Waiting[id], Running: q.Running[id], GPUHourMS: q.GPUHour[id].Milliseconds()}
		if a := c.activity[id]; a != nil {
			s.Last, s.What = a.Last, a.What
			for k, v := range a.Checks {
				s.Checks[k] = v
			}
		}
		if ran := c.cells.LastRun(id); ran.After(s.Last) {
			s.Last, s.What = ran, "run"
		}
		for x, a := range grades[id] {
			s.Submitted[x] = fmt.Sprintf("%s %d/%d", a.Status, a.Points, a.MaxPoints)
			if counts[countKey(id, x)] == a.ID {
				s.Submitted[x] += fmt.Sprintf(" (#%d chosen)", a.ID)
			}
		}
		st.Students = append(st.Students, s)
	}
	return st, nil
}

func (c *Class) instructor(w http.ResponseWriter, r *http.Request, p person, from, op string) {
	switch op {
	case "instructor":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s: the class</title>
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%%}.passed{background:#dfd}.failed{background:#fdd}</style></head>
<body><h1>%s: the class</h1><p><a href="%sexport.csv">export CSV</a> · <a href="%sexport.json">export JSON</a></p>
<div id="queue"></div><table id="class"></table><h2>Which submission counts</h2><form id="count"><input name="student" placeholder="student id"> <input name="exercise" placeholder="exercise id"> <input name="attempt" placeholder="submission # (0: the latest)"> <button>Count it</button></form><pre id="history"></pre><h2>A student's file</h2><form id="look"><input name="student" placeholder="student id"> <input name="exercise" placeholder="exercise id"> <button>Show</button></form><pre id="file"></pre>
<script src="%sinstructor.js"></script></body></html>
`, html.EscapeString(c.course.Title), html.EscapeString(c.course.Title), classPrefix, classPrefix, assetPath)
	case "instructor/state":
		st, err := c.State()
		reply(w, st, err)
	case "instructor/file":
		x, err := c.exercise(r.URL.Query().Get("exercise"))
		student := r.URL.Query().Get("student")
		if err == nil {
			if _, ok := c.roster[student]; !ok {
				err = fmt.Errorf("class: %s is not on the roster", student)
			}
		}
		if err != nil {
			reply(w, nil, err)
			return
		}
		c.audit.Log(p.ID, from, "read file", student+" "+x.ID)
		data, err := c.readCopy(student, x)
		reply(w, map[string]string{"student": student, "exercise": x.ID, "text": string(data)}, err)
	case "instructor/history":
		q := r.URL.Query()
		as, err := c.book.History(q.Get("student"), q.Get("exercise"))
		reply(w, historyOf(as), err)
	case "instructor/count":
		if r.Method != http.MethodPost {
			http.Error(w, "class: POST which submission counts", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			Student, Exercise string
			Attempt           int64
		}
		err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&req)
		if err == nil {
			err = c.audit.Log(p.ID, from, "count", fmt.Sprintf("%s %s #%d", req.Student, req.Exercise, req.Attempt))
		}
		if err == nil {
			err = c.Count(req.Student, req.Exercise, req.Attempt)
		}
		reply(w, map[string]bool{"counted": true}, err)
	case "export.csv", "export.json":
		sheet, err := c.Sheet()
		if err != nil {
			reply(w, nil, err)
			return
		}
		c.audit.Log(p.ID, from, "export", op)
		if strings.HasSuffix(op, ".csv") {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="grades.csv"`)
			sheet.WriteCSV(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		sheet.WriteJSON(w)
	default:
		http.Error(w, "class: no such request: "+r.URL.Path, http.StatusNotFound)
	}
}
