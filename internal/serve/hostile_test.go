package serve

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	coursepkg "github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/workspace"
)

// subCell writes its file into a folder of the workspace.
const subCell = "# Day 2: B\n\n```cuda file=sub/hello.cu\n// fake: echo hi\nint main() {}\n```\n\n```sh run\nls\n```\n"

// hostile is a served course whose workspaces are the real ones
// (workspace.For: .lessons/work/PAGE in the course), and a folder outside
// it with a file that nothing may change.
func hostile(t *testing.T) (c *course, outside string) {
	t.Helper()
	c = newCourse(t, map[string]string{"day001-a": dayOne, "day002-b": subCell})
	c.srv.nb.Lesson = func(page string) (*lesson.Lesson, string, error) {
		l, _, err := c.lesson(page)
		if err != nil {
			return nil, "", err
		}
		l.Path = "lessons/" + page + ".md"
		ws, err := workspace.For(&coursepkg.Course{Root: c.root}, l)
		return l, ws, err
	}
	outside = t.TempDir()
	for _, f := range []string{"victim", "hello.cu", "hello"} {
		if err := os.WriteFile(filepath.Join(outside, f), []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return c, outside
}

func untouched(t *testing.T, outside string) {
	t.Helper()
	entries, _ := os.ReadDir(outside)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if data, _ := os.ReadFile(filepath.Join(outside, e.Name())); string(data) != "keep" {
			t.Errorf("outside/%s = %q: written through the link", e.Name(), data)
		}
	}
	if strings.Join(names, " ") != "hello hello.cu victim" {
		t.Errorf("outside holds %v: the page wrote or removed there", names)
	}
}

func body(t *testing.T, op string, c *course, req map[string]any) string {
	t.Helper()
	res := c.post(op, req)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// A course that commits its workspace, or a folder on its way, as a link
// out (absolute or ../..): the page's Run, edit and Restart refuse it, and
// nothing outside changes.
func TestWorkspaceLinkedOutRefused(t *testing.T) {
	for _, at := range []string{".lessons", ".lessons/work", ".lessons/work/day001-a"} {
		for _, kind := range []string{"absolute", "relative"} {
			t.Run(kind+"/"+at, func(t *testing.T) {
				c, outside := hostile(t)
				link := filepath.Join(c.root, at)
				os.MkdirAll(filepath.Dir(link), 0o755)
				target := outside
				if kind == "relative" {
					target, _ = filepath.Rel(filepath.Dir(link), outside)
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				for _, op := range []struct {
					name string
					req  map[string]any
				}{
					{"run", map[string]any{"page": "day001-a", "session": "p", "cell": 2}},
					{"edit", map[string]any{"page": "day001-a", "cell": 1, "text": "pwned"}},
					{"reset", map[string]any{"page": "day001-a", "cell": 1}},
					{"restart", map[string]any{"page": "day001-a", "session": "p"}},
				} {
					if b := body(t, op.name, c, op.req); !strings.Contains(b, "is a link") {
						t.Errorf("%s: %s, want the link refused", op.name, b)
					}
				}
				untouched(t, outside)
			})
		}
	}
}

// A workspace that is a real folder but holds a committed link out: the
// file cells and the page's edits are not written through it.
func TestLinkInsideWorkspaceRefused(t *testing.T) {
	for _, kind := range []string{"absolute", "relative"} {
		t.Run(kind, func(t *testing.T) {
			c, outside := hostile(t)
			ws := filepath.Join(c.root, ".lessons/work/day002-b")
			os.MkdirAll(ws, 0o755)
			target := outside
			if kind == "relative" {
				target, _ = filepath.Rel(ws, outside)
			}
			if err := os.Symlink(target, filepath.Join(ws, "sub")); err != nil {
				t.Fatal(err)
			}
			if b := body(t, "edit", c, map[string]any{"page": "day002-b", "cell": 1, "text": "pwned"}); !strings.Contains(b, "leads out") {
				t.Errorf("edit: %s", b)
			}
			evs, _ := events(t, c.post("run", map[string]any{"page": "day002-b", "session": "p", "cell": 1}))
			if e := last(evs); e.Status == "ok" || !strings.Contains(e.Reason, "leads out") {
				t.Errorf("file cell through the link: %+v", e)
			}
			body(t, "restart", c, map[string]any{"page": "day002-b", "session": "p"})
			untouched(t, outside)
		})
	}
}

// A cell can make a FIFO where a file cell's edit is kept (mkfifo
// .lessons-edits/1-hello.cu, in its own workspace): the page's every read of the cells waited on it for ever,
// each request a goroutine and a descriptor held. The edit is read only
// from a regular file; the FIFO is as if there were no edit.
func TestFIFOInWorkspaceNotWaitedOn(t *testing.T) {
	c, _ := hostile(t)
	ws := filepath.Join(c.root, ".lessons/work/day001-a")
	os.MkdirAll(filepath.Join(ws, editsDir), 0o755)
	fifo := filepath.Join(ws, editFile(&lesson.Cell{Number: 1, Name: "hello.cu"}))
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
	done := make(chan []cellState, 1)
	go func() { done <- c.cells("day001-a") }()
	select {
	case cells := <-done:
		if len(cells) == 0 || cells[0].Edited || !strings.Contains(cells[0].Text, "hello from the GPU") {
			t.Errorf("the FIFO should read as no edit: %+v", cells)
		}
	case <-time.After(20 * time.Second): // a hang's guard, not a timing
		t.Fatal("the page is still reading the FIFO in the workspace")
	}
}
