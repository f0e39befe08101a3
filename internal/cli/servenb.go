package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/progress"
	"github.com/cudalessons/lessons/internal/serve"
	"github.com/cudalessons/lessons/internal/workspace"
)

// guardServer sets who may reach srv on ln and returns the URL to open,
// which carries the token (?token=) as Jupyter's does: every request
// needs it, on loopback too.
func guardServer(srv *serve.Server, addr string, ln net.Listener) (string, error) {
	if t := os.Getenv("LESSONS_SERVE_TOKEN"); t != "" {
		srv.SetToken(t)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("serve --addr %s: %w", addr, err)
	}
	if host != "" && net.ParseIP(host) == nil {
		srv.AllowHost(host)
	}
	ip := net.ParseIP(host)
	shown := ln.Addr().String()
	if host == "" || ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			srv.AllowHost(name)
			_, port, _ := net.SplitHostPort(shown)
			shown = net.JoinHostPort(name, port)
		}
	}
	return "http://" + shown + "/?token=" + url.QueryEscape(srv.Token()), nil
}

// attachNotebook lets the pages run cells and check exercises; it says
// why not when the machine cannot (no nvcc).
func attachNotebook(ctx context.Context, srv *serve.Server, root string, timeout time.Duration) string {
	m, err := findMachine(ctx, "")
	if err != nil {
		return fmt.Sprintf("the pages cannot run cells or check exercises: %v", err)
	}
	lessonOf := func(page string) (*lesson.Lesson, string, error) {
		c, err := course.Load(root)
		if err != nil {
			return nil, "", err
		}
		for _, e := range c.Lessons {
			if e.Name() == page {
				l, err := c.Parse(e)
				if err != nil {
					return nil, "", err
				}
				ws, err := workspace.For(c, l)
				return l, ws, err
			}
		}
		return nil, "", fmt.Errorf("%s is not a lesson of this course", page)
	}
	srv.SetNotebook(&serve.Notebook{
		Lesson: lessonOf,
		Env: func(ws string) (notebook.Env, error) {
			if err := workspace.MakeWrapper(ws); err != nil {
				return notebook.Env{}, err
			}
			return m.notebookEnv(m.Compiler(), ws), nil
		},
		Timeout:     timeout,
		CompileOnly: m.GPUErr != nil,
	})
	srv.SetChecker(&pageChecker{root: root, m: m})
	if m.GPUErr != nil {
		return fmt.Sprintf("no GPU (%v): the pages compile cells only, and Check builds and reads the file and says where to run it", m.GPUErr)
	}
	return ""
}

// pageChecker is the page's Check: lessons check's job through the
// exercise pipeline, given back as a structured verdict.
type pageChecker struct {
	root string
	m    *machine
}

var _ serve.Checker = (*pageChecker)(nil)

func (p *pageChecker) Exercises(page string) ([]serve.Exercise, error) {
	c, err := course.Load(p.root)
	if err != nil {
		return nil, err
	}
	prog, err := progress.Load(c)
	if err != nil {
		return nil, err
	}
	passed := prog.Passed
	var out []serve.Exercise
	for _, e := range c.Lessons {
		if e.Name() != page {
			continue
		}
		for _, x := range e.Exercises {
			_, ok := passed[x.ID]
			out = append(out, serve.Exercise{ID: x.ID, Student: x.Student, Passed: ok, Hint: x.Hint()})
		}
	}
	return out, nil
}

func (p *pageChecker) Files() map[string][]string {
	c, err := course.Load(p.root)
	if err != nil {
		return nil
	}
	out := map[string][]string{}
	for _, x := range c.Exercises {
		out[x.ID] = exercise.WatchedFiles(c, x)
	}
	return out
}

func (p *pageChecker) Check(ctx context.Context, id string) (*serve.Verdict, error) {
	c, err := course.Load(p.root)
	if err != nil {
		return nil, err
	}
	x, err := c.Exercise(id)
	if err != nil {
		return nil, err
	}
	if p.m.GPUErr != nil { // what can be done without one, in words
		return nil, exercise.WithoutGPU(ctx, c, x, c.Path(x.Student), p.m.Missing())
	}
	st, err := exercise.NewStudent(c, x, c.Path(x.Student), p.m.RunEnv())
	if err != nil {
		return nil, err
	}
	if err := st.Check(ctx, p.m.toolkit()); err != nil {
		return nil, err
	}
	// As in lessons check: the page says only how many hidden checks
	// there are.
	v := &serve.Verdict{Exercise: id, Passed: st.Passed(), Score: st.Score(), Points: st.Spec.Points, Hidden: st.Spec.Hidden(),
		Hints: st.Hints, Output: strings.TrimRight(st.Log+st.Output, "\n")}
	for _, r := range st.Results {
		cr := serve.CheckResult{Name: r.Name, Pass: r.Pass, Skipped: r.Skipped, Want: r.Want, Got: r.Got}
		if r.Check != nil {
			cr.Points = r.Check.Points
			if !r.Pass {
				cr.Hint = r.Check.Hint
			}
		}
		v.Checks = append(v.Checks, cr)
	}
	if !v.Passed {
		return v, nil
	}
	_, err = st.Record(c)
	return v, err
}
