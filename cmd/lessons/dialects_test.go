package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudalessons/lessons/internal/cli"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/iostreams"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/serve"
)

// The three ways a lesson is written, each with a file cell, a cell that
// builds and runs it and a Python cell, and headings for the site.
var dialectLessons = map[string]string{
	"ipynb": `{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Day 1: Notebook\n", "\n", "## Setup\n", "Some prose."]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["%%writefile hello.cu\n", "// fake: echo hello from the GPU\n", "int main() {}\n"]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["# build it\n", "!nvcc -o hello hello.cu && ./hello"]},
  {"cell_type": "markdown", "metadata": {}, "source": "## Python"},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}], "source": "x = 6 * 7\nprint(x)"},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": "assert x == 42, 'the state of the cell before'"}
 ],
 "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
 "nbformat": 4, "nbformat_minor": 5
}
`,
	"md": "# Day 2: Markdown\n\n## Part one\n\nProse.\n\n" +
		"```cuda file=b.cu run\n// fake: echo b ran\nint main() {}\n```\n\n" +
		"```sh run\necho from the shell\n```\n\n## Part two\n\n```python\nprint('only to read')\n```\n",
	"export": "# Day 3: Export\n\n## Files\n\nIn [ ]:\n%%writefile c.cu\n// fake: echo c ran\nint main() {}\n\n" +
		"In [ ]:\n!nvcc -o c c.cu && ./c\n\n## Python\n\nIn [ ]:\nimport math\nprint(math.sqrt(16))\n",
}

var dialectFiles = map[string]string{"ipynb": "day001-notebook.ipynb", "md": "day002-markdown.md", "export": "day003-export.md"}

// dialectCourse writes a course of the named kinds of lesson.
func dialectCourse(t *testing.T, kinds ...string) string {
	files := map[string]string{}
	var manifest strings.Builder
	manifest.WriteString("title = \"Dialects\"\n")
	for _, k := range kinds {
		manifest.WriteString("[[lesson]]\nfile = \"lessons/" + dialectFiles[k] + "\"\n")
		files["lessons/"+dialectFiles[k]] = dialectLessons[k]
	}
	files["course.toml"] = manifest.String()
	return coursetest.Write(t, files)
}

// lessonsRun runs the command line in process and returns its exit code
// and output.
func lessonsRun(args ...string) (int, string, string) {
	ios, _, out, errOut := iostreams.Test()
	code := cli.Run(ios, args)
	return code, out.String(), errOut.String()
}

// TestEveryDialect walks every command over a course of each kind of
// lesson and a mix: nothing panics, nothing fails, and the site, the
// served pages and the notebooks are there. An import of the exported
// notebooks, kept or converted, makes a course that walks the same.
func TestEveryDialect(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(fakeNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("LESSONS_GPU", "Fake GPU,9.0,85899345920")
	t.Setenv("LESSONS_CACHE", t.TempDir())
	t.Setenv("NO_COLOR", "1")
	for _, kinds := range [][]string{{"ipynb"}, {"md"}, {"export"}, {"ipynb", "md", "export"}} {
		t.Run(strings.Join(kinds, "+"), func(t *testing.T) {
			if testing.Short() && kinds[0] != "md" {
				t.Skip("notebooks run their Python cells and walk every command again: -short walks the markdown course alone")
			}
			dir := dialectCourse(t, kinds...)
			walk(t, dir, len(kinds))
			out := t.TempDir()
			mustRun(t, "--course", dir, "export", "--ipynb", out)
			for _, to := range []string{"ipynb", "md"} {
				imported := filepath.Join(t.TempDir(), "course")
				mustRun(t, "import", out, "--to", to, "--dir", imported)
				walk(t, imported, len(kinds))
			}
		})
	}
}

// walk runs every command over the course in dir, of n lessons.
func walk(t *testing.T, dir string, n int) {
	t.Helper()
	c, err := course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Lessons) != n {
		t.Fatalf("%s has %d lessons, want %d", dir, len(c.Lessons), n)
	}
	mustRun(t, "--course", dir, "list")
	mustRun(t, "--course", dir, "lint")
	for _, e := range c.Lessons {
		name := e.Name()
		if out := mustRun(t, "--course", dir, "show", name, "--plain"); strings.TrimSpace(out) == "" {
			t.Errorf("show %s printed nothing", name)
		}
		out := mustRun(t, "--course", dir, "run", name, "--workspace", filepath.Join(t.TempDir(), "ws"))
		if !strings.Contains(out, " ran") && !strings.Contains(out, "hello from the GPU") {
			t.Errorf("run %s: the program's output is missing:\n%s", name, out)
		}
	}
	site := filepath.Join(t.TempDir(), "site")
	mustRun(t, "--course", dir, "export", "--html", site)
	for _, e := range c.Lessons {
		if _, err := os.Stat(filepath.Join(site, e.Name()+".html")); err != nil {
			t.Errorf("export --html: %v", err)
		}
	}
	mustRun(t, "--course", dir, "export", "--ipynb", filepath.Join(t.TempDir(), "nb"))
	mustRun(t, "--course", dir, "verify")
	srv := serve.New(func() (map[string][]byte, error) {
		c, err := course.Load(dir)
		if err != nil {
			return nil, err
		}
		return render.Site(c)
	})
	if err := srv.Err(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	wsBase := t.TempDir()
	nb := &serve.Notebook{
		Lesson: func(page string) (*lesson.Lesson, string, error) {
			e, err := c.FindEntry(page)
			if err != nil {
				return nil, "", err
			}
			l, err := c.Parse(e)
			return l, filepath.Join(wsBase, page), err
		},
		Env: func(ws string) (notebook.Env, error) {
			return notebook.WithPython(context.Background(), notebook.Env{Runner: runner.Exec{}}), nil
		},
		Timeout: time.Minute,
	}
	srv.SetNotebook(nb)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer func() {
		for _, e := range c.Lessons {
			res := post(t, hs.URL, srv.Token(), "restart", map[string]any{"page": e.Name(), "session": "walk"})
			res.Body.Close()
		}
	}()
	// The page's Run: every runnable cell of every lesson, in order, as
	// Run all does.
	for _, e := range c.Lessons {
		l, err := c.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, cell := range l.Cells {
			if !cell.Runnable() {
				continue
			}
			res := post(t, hs.URL, srv.Token(), "run", map[string]any{"page": e.Name(), "session": "walk", "cell": cell.Number})
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			lines := strings.Split(strings.TrimSpace(string(body)), "\n")
			if !strings.Contains(lines[len(lines)-1], `"status":"ok"`) {
				t.Errorf("the page's Run of %s cell [%d]: %s", e.Name(), cell.Number, body)
			}
		}
	}
	pages := []string{"index.html"}
	for _, e := range c.Lessons {
		pages = append(pages, e.Name()+".html")
	}
	for _, p := range pages {
		res, err := hs.Client().Get(hs.URL + "/" + p + "?token=" + srv.Token())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), "<main") {
			t.Errorf("serve %s: %s\n%s", p, res.Status, body)
		}
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := lessonsRun(args...)
	if code != 0 {
		t.Fatalf("lessons %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// fakeNVCC "builds" a shell script from the source's "// fake: " lines.
const fakeNVCC = `#!/bin/sh
case "$*" in *--version*) echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0 ;; esac
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    *.cu) src="$1" ;;
  esac
  shift
done
[ -n "$out" ] || exit 0
{ echo '#!/bin/sh'; sed -n 's|^// fake: ||p' "$src"; } > "$out"
chmod +x "$out"
`

// post sends a request to the served page's API as the page does.
func post(t *testing.T, url, token, op string, body map[string]any) *http.Response {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url+"/_lessons/api/"+op, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(serve.TokenHeader, token)
	req.Header.Set("Origin", url)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
