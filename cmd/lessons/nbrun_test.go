package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// nbRun is the script command nbrun NOTEBOOK [NAME=FILE...]: it runs the
// notebook's code cells in order as Colab runs them, in the script's
// folder and environment: a %%bash cell by bash (a failure stops the
// notebook, as it raises there), a %%writefile cell writes its file,
// each ! line by sh (a failure is printed, and the next cell runs),
// comments are read past; a Python line is refused (these notebooks
// have none). NAME=FILE is a student's edit: the %%writefile cell of a
// file named NAME writes FILE's contents instead of its own. What the
// cells print is the command's stdout, each cell's after a "[N]" line.
func nbRun(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: nbrun NOTEBOOK [NAME=FILE...]")
	}
	edits := map[string]string{}
	for _, a := range args[1:] {
		name, file, _ := strings.Cut(a, "=")
		edits[name] = ts.ReadFile(file)
	}
	var nb struct {
		Cells []struct {
			Type   string   `json:"cell_type"`
			Source []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &nb); err != nil {
		ts.Fatalf("nbrun: %v", err)
	}
	var out strings.Builder
	for i, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		src := strings.Join(c.Source, "")
		fmt.Fprintf(&out, "[%d]\n", i+1)
		first, rest, _ := strings.Cut(src, "\n")
		switch {
		case first == "%%bash":
			err := ts.Exec("bash", "-c", rest)
			out.WriteString(ts.ReadFile("stdout") + ts.ReadFile("stderr"))
			if err != nil {
				ts.Fatalf("nbrun: cell %d (%%%%bash) failed: %v\n%s", i+1, err, out.String())
			}
		case strings.HasPrefix(first, "%%writefile "):
			name := strings.TrimSpace(strings.TrimPrefix(first, "%%writefile "))
			if e, ok := edits[filepath.Base(name)]; ok {
				rest = e
			} else {
				rest += "\n"
			}
			ts.Check(os.WriteFile(ts.MkAbs(name), []byte(rest), 0o644))
			fmt.Fprintf(&out, "Writing %s\n", name)
		default:
			for _, line := range strings.Split(src, "\n") {
				line = strings.TrimSpace(line)
				switch {
				case line == "" || strings.HasPrefix(line, "#"):
				case strings.HasPrefix(line, "!"):
					err := ts.Exec("sh", "-c", line[1:])
					out.WriteString(ts.ReadFile("stdout") + ts.ReadFile("stderr"))
					if err != nil {
						fmt.Fprintf(&out, "(%v)\n", err)
					}
				default:
					ts.Fatalf("nbrun: cell %d is Python (%q): run it in Jupyter", i+1, line)
				}
			}
		}
	}
	if neg {
		ts.Fatalf("nbrun: unsupported: ! nbrun")
	}
	ts.Stdout().Write([]byte(out.String()))
}
