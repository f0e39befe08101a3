package render

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

// colabCourse is a course of one lesson with a program and one exercise
// whose checks need the statistics library, and notebook as its
// [notebook] table.
func colabCourse(t *testing.T, notebook string) *course.Course {
	t.Helper()
	root := coursetest.Tiny(t, []string{"pool"}, map[string]string{
		"lessons/day001-a.md": "# Pools\n\nA pool keeps memory.\n\n```cuda file=hello.cu\nint main() {}\n```\n",
		"exercises/pool.cu":   "// TODO: make a pool\nint main() {}\n",
		"exercises/pool.toml": "[[check]]\nexit = 0\n[[check]]\nstat = \"leaked_bytes\"\nat_most = 0\n",
	})
	m, _ := os.ReadFile(filepath.Join(root, "course.toml"))
	os.WriteFile(filepath.Join(root, "course.toml"), append(m, []byte(notebook)...), 0o644)
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cellsOf is a notebook's cells in order, each its kind, what the
// export made it for, and its source.
func cellsOf(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Type     string   `json:"cell_type"`
			Source   []string `json:"source"`
			Metadata struct {
				Lessons map[string]any `json:"lessons"`
			} `json:"metadata"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, c := range nb.Cells {
		fmt.Fprintf(&b, "[%d] %s %v\n%s\n\n", i+1, c.Type, c.Metadata.Lessons["generated"], strings.Join(c.Source, ""))
	}
	return b.String()
}

const colabTable = `
[notebook]
binary = "https://github.com/cudalessons/lessons/releases/download/v1.4.0/lessons-linux-amd64"
repository = "https://github.com/me/cuda-course"
ref = "v2026.1"
`

// TestNotebookInstallsLessons: a course with [notebook] gets notebooks
// whose first cell installs lessons and the course, whose exercise
// files are written into that course and whose check cell runs the real
// lessons check there; a course without one keeps today's cells.
func TestNotebookInstallsLessons(t *testing.T) {
	for _, tc := range []struct{ name, table string }{
		{"colab-binary", colabTable},
		{"colab-go-install", "\n[notebook]\ngo_install = \"github.com/cudalessons/lessons/cmd/lessons@v1.4.0\"\nrepository = \"https://github.com/me/monorepo\"\ndir = \"cuda\"\nroot = \"/kaggle/working/lessons\"\n"},
		{"colab-none", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := colabCourse(t, tc.table)
			dir := t.TempDir()
			if _, err := Notebooks(c, dir); err != nil {
				t.Fatal(err)
			}
			got := cellsOf(t, filepath.Join(dir, "day001-a.ipynb"))
			golden(t, tc.name+".golden", got)
			if tc.table == "" && strings.Contains(got, "lessons check pool\n") {
				t.Error("a course without [notebook] got a check cell")
			}
		})
	}
}

// TestInstallCellRuns runs the first cell's shell as the notebook's
// machine would, against a release on file:// (a stand-in binary) and
// the course's repository on file:// at a tag: lessons lands on its
// path, the course at the tag, the listing runs; run again, it keeps
// what is there.
func TestInstallCellRuns(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here", tool)
		}
	}
	tmp := t.TempDir()
	release := filepath.Join(tmp, "release", "lessons-linux-amd64")
	os.MkdirAll(filepath.Dir(release), 0o755)
	os.WriteFile(release, []byte("#!/bin/sh\necho \"stand-in lessons $* in $(pwd)\"\n"), 0o644)
	repo := filepath.Join(tmp, "repo")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(filepath.Join(repo, "cuda"), 0o755)
	os.WriteFile(filepath.Join(repo, "cuda", "course.toml"), []byte("title = \"at the tag\"\n"), 0o644)
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "one")
	git("tag", "v1")
	os.WriteFile(filepath.Join(repo, "cuda", "course.toml"), []byte("title = \"after the tag\"\n"), 0o644)
	git("commit", "-qam", "two")

	root := filepath.Join(tmp, "machine", "lessons")
	c := colabCourse(t, fmt.Sprintf("\n[notebook]\nbinary = \"file://%s\"\nrepository = \"file://%s\"\nref = \"v1\"\ndir = \"cuda\"\nroot = \"%s\"\n", release, repo, root))
	cell := InstallCell(c.Notebook)
	body, ok := strings.CutPrefix(cell, "%%bash\n")
	if !ok {
		t.Fatalf("the install cell is not a %%%%bash cell:\n%s", cell)
	}
	for run := 1; run <= 2; run++ {
		cmd := exec.Command("bash", "-c", body)
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d of the install cell: %v\n%s", run, err, out)
		}
		if want := "stand-in lessons list in " + filepath.Join(root, "course", "cuda"); strings.TrimSpace(string(out)) != want {
			t.Fatalf("run %d said %q, want %q", run, out, want)
		}
	}
	got, _ := os.ReadFile(filepath.Join(root, "course", "cuda", "course.toml"))
	if string(got) != "title = \"at the tag\"\n" {
		t.Errorf("the course cloned is not the tag's: %q", got)
	}
	if st, err := os.Stat(filepath.Join(root, "bin", "lessons")); err != nil || st.Mode()&0o100 == 0 {
		t.Errorf("lessons is not installed as a program: %v", err)
	}

	// A release that is not there stops the cell, with curl's word, and
	// leaves no half binary to be taken for lessons the next time.
	c2 := colabCourse(t, fmt.Sprintf("\n[notebook]\nbinary = \"file://%s/none\"\nrepository = \"file://%s\"\nroot = \"%s/other\"\n", tmp, repo, tmp))
	body, _ = strings.CutPrefix(InstallCell(c2.Notebook), "%%bash\n")
	out, err := exec.Command("bash", "-c", body).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "curl") {
		t.Errorf("a missing release: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "other", "bin", "lessons")); err == nil {
		t.Error("a failed download left bin/lessons")
	}
}

// TestInstallCellGoInstall runs the first cell of a course that names
// go_install, where Go is (so the cell installs none), against a module
// proxy on file:// holding a stand-in lessons: go install builds it into
// ROOT/bin, and the listing runs it.
func TestInstallCellGoInstall(t *testing.T) {
	for _, tool := range []string{"bash", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here", tool)
		}
	}
	if testing.Short() {
		t.Skip("builds a module")
	}
	tmp := t.TempDir()
	const mod, ver = "example.com/fakelessons", "v1.0.0"
	gomod := "module " + mod + "\n\ngo 1.21\n"
	main := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(\"go-installed lessons\", os.Args[1:]) }\n"
	proxy := filepath.Join(tmp, "proxy", mod, "@v")
	os.MkdirAll(proxy, 0o755)
	os.WriteFile(filepath.Join(proxy, "list"), []byte(ver+"\n"), 0o644)
	os.WriteFile(filepath.Join(proxy, ver+".info"), []byte(`{"Version":"`+ver+`","Time":"2026-01-01T00:00:00Z"}`), 0o644)
	os.WriteFile(filepath.Join(proxy, ver+".mod"), []byte(gomod), 0o644)
	zf, _ := os.Create(filepath.Join(proxy, ver+".zip"))
	zw := zip.NewWriter(zf)
	for name, text := range map[string]string{"go.mod": gomod, "cmd/lessons/main.go": main} {
		w, _ := zw.Create(mod + "@" + ver + "/" + name)
		w.Write([]byte(text))
	}
	zw.Close()
	zf.Close()
	repo := filepath.Join(tmp, "repo")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "course.toml"), []byte("title = \"T\"\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "one"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	root := filepath.Join(tmp, "machine")
	c := colabCourse(t, fmt.Sprintf("\n[notebook]\ngo_install = \"%s/cmd/lessons@%s\"\nrepository = \"file://%s\"\nroot = \"%s\"\n", mod, ver, repo, root))
	body, _ := strings.CutPrefix(InstallCell(c.Notebook), "%%bash\n")
	cmd := exec.Command("bash", "-c", body)
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.Join(tmp, "proxy"), "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPATH="+filepath.Join(tmp, "gopath"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "\ngo-installed lessons [list]") {
		t.Fatalf("the install cell: %v\n%s", err, out)
	}
	// The module cache is read-only, as go leaves it: let TempDir remove it.
	exec.Command("chmod", "-R", "u+w", filepath.Join(tmp, "gopath")).Run()
}

// TestExportRefusesBraces: IPython runs what braces hold on a
// %%writefile or ! line as Python, so a course whose exercise file, or
// spec's flag or argument, holds one is not exported: the student who
// ran the cell would run the course's code.
func TestExportRefusesBraces(t *testing.T) {
	for _, tc := range []struct{ name, file, spec string }{
		{"student file", "exercises/p{__import__('os').system('id')}.cu", "[[check]]\nexit = 0\n"},
		{"flags", "exercises/pool.cu", "flags = [\"-DX={__import__('os').system('id')}\"]\n[[check]]\nexit = 0\n"},
		{"args", "exercises/pool.cu", "args = [\"{1+1}\"]\n[[check]]\nexit = 0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := strings.TrimSuffix(tc.file, ".cu") + ".toml"
			root := coursetest.Tiny(t, []string{"pool"}, map[string]string{tc.file: "int main() {}\n", spec: tc.spec})
			m, _ := os.ReadFile(filepath.Join(root, "course.toml"))
			os.WriteFile(filepath.Join(root, "course.toml"), []byte(strings.Replace(string(m), "exercises/pool.cu", tc.file, 1)), 0o644)
			c, err := course.Load(root)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := Notebooks(c, dir); err == nil || !strings.Contains(err.Error(), "holds a brace") {
				t.Fatalf("exported: %v", err)
			}
		})
	}
}

// TestKeptNotebookGetsInstallFirstOfItsExercises: a lesson that is a
// notebook is kept byte for byte, so the install cell comes first of the
// cells added at its end, before its exercise's, and the export says so.
func TestKeptNotebookGetsInstallFirstOfItsExercises(t *testing.T) {
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "id": "a1", "metadata": {}, "source": ["# Pools\n"]}]}`
	root := coursetest.Tiny(t, []string{"pool"}, map[string]string{"lessons/day001-a.ipynb": nb})
	m, _ := os.ReadFile(filepath.Join(root, "course.toml"))
	m = []byte(strings.Replace(string(m), "day001-a.md", "day001-a.ipynb", 1) + colabTable)
	os.WriteFile(filepath.Join(root, "course.toml"), m, 0o644)
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wrote, err := Notebooks(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	got := cellsOf(t, filepath.Join(dir, "day001-a.ipynb"))
	if !strings.HasPrefix(got, "[1] markdown <nil>\n# Pools\n\n\n[2] code install\n%%bash\n") || !strings.Contains(got, "lessons check pool\n") {
		t.Errorf("cells:\n%s", got)
	}
	if said := Said(wrote, dir); !strings.Contains(said, "added a cell that installs lessons and the course before its exercises") {
		t.Errorf("said: %s", said)
	}
}
