package course

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/safefs"
)

// DefaultNotebookRoot is where a notebook's first cell puts lessons and
// the course when [notebook] names no root: under Colab's working folder.
const DefaultNotebookRoot = "/content/lessons"

// Notebook is the [notebook] table, checked: where the first cell of an
// exported notebook gets lessons (Binary or GoInstall) and the course
// (Repository at Ref, the course in its Dir), and the folder (Root) on
// the notebook's machine they go in. Every value is safe to write into
// a shell line between single quotes, and Root and Dir into a notebook's
// ! line as they are.
type Notebook struct {
	Binary, GoInstall, Repository, Ref, Dir, Root string
}

// Course is the folder of the course on the notebook's machine.
func (n *Notebook) Course() string { return path.Join(n.Root, "course", n.Dir) }

// Lessons is the path of the lessons binary on the notebook's machine.
func (n *Notebook) Lessons() string { return path.Join(n.Root, "bin", "lessons") }

var (
	// urlChars are what a URL of [notebook] may hold: no quote, space,
	// $, backtick, backslash or brace, which a shell or IPython would read.
	urlChars   = regexp.MustCompile(`^[A-Za-z0-9._~:/?#@!&*+,;=%-]+$`)
	moduleRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~/-]*@[A-Za-z0-9][A-Za-z0-9._+-]*$`)
	refRE      = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]*$`)
	plainPath  = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	schemeList = "https, http or file"
)

// notebookProblem is what is wrong with a key of [notebook].
type notebookProblem struct{ key, msg, fix string }

// checkNotebook checks the [notebook] table: nil when it says nothing.
func checkNotebook(m ManifestNotebook) (*Notebook, []notebookProblem) {
	if m == (ManifestNotebook{}) {
		return nil, nil
	}
	n := &Notebook{Binary: m.Binary, GoInstall: m.GoInstall, Repository: m.Repository, Ref: m.Ref, Dir: m.Dir, Root: m.Root}
	var bad []notebookProblem
	add := func(key, fix, format string, args ...any) {
		bad = append(bad, notebookProblem{key, fmt.Sprintf(format, args...), fix})
	}
	switch {
	case m.Binary != "" && m.GoInstall != "":
		add("go_install", "keep one: binary (a release's lessons for Linux, the way on Colab) or go_install", "[notebook] gives both binary and go_install")
	case m.Binary == "" && m.GoInstall == "":
		add("", `add binary = "https://.../lessons-linux-amd64" (a release's asset), or go_install = "MODULE/cmd/lessons@VERSION"`, "[notebook] does not say where the notebook gets lessons")
	}
	if m.Binary != "" {
		if why := badURL(m.Binary); why != "" {
			add("binary", "give the URL of the binary itself, "+schemeList+", as a release lists it", "[notebook] binary %q %s", m.Binary, why)
		}
	}
	if m.GoInstall != "" && !moduleRE.MatchString(m.GoInstall) {
		add("go_install", `write the module's command path, @ and a version: go_install = "github.com/cudalessons/lessons/cmd/lessons@v1.4.0"`, "[notebook] go_install %q is not MODULE/PATH@VERSION", m.GoInstall)
	}
	switch {
	case m.Repository == "":
		add("", `add repository = "https://github.com/you/course" (the notebook's checks need the course)`, "[notebook] does not say where the course's repository is")
	case strings.HasPrefix(m.Repository, "git@"):
		add("repository", "give its https:// URL: a notebook's machine has no key of yours", "[notebook] repository %q is reached over ssh", m.Repository)
	default:
		if why := badURL(m.Repository); why != "" {
			add("repository", "give the URL git clone takes, "+schemeList, "[notebook] repository %q %s", m.Repository, why)
		}
	}
	if m.Ref != "" && (!refRE.MatchString(m.Ref) || strings.Contains(m.Ref, "..")) {
		add("ref", `name a branch or a tag: ref = "main", ref = "v2026.1"`, "[notebook] ref %q is not a branch or tag name", m.Ref)
	}
	if m.Dir != "" {
		if err := safefs.Local(m.Dir); err != nil || !plainPath.MatchString(m.Dir) {
			add("dir", `name the course's folder from the repository's root: dir = "course"`, "[notebook] dir %q is not a plain folder inside the repository", m.Dir)
		}
	}
	if n.Root == "" {
		n.Root = DefaultNotebookRoot
	} else if !path.IsAbs(m.Root) || !plainPath.MatchString(m.Root) || path.Clean(m.Root) != m.Root || m.Root == "/" {
		add("root", `give an absolute folder of letters, digits, ., _, - and /: root = "/content/lessons"`, "[notebook] root %q is not a plain absolute folder", m.Root)
	}
	return n, bad
}

// badURL says what is wrong with u as a URL to fetch ("" when nothing).
func badURL(u string) string {
	if !urlChars.MatchString(u) {
		return "holds a character a URL here may not (a space, a quote, $, `, \\ or a brace)"
	}
	p, err := url.Parse(u)
	if err != nil {
		return "is not a URL"
	}
	switch p.Scheme {
	case "https", "http":
		if p.Host == "" {
			return "names no host"
		}
	case "file":
		if p.Path == "" {
			return "names no file"
		}
	default:
		return "is not an " + schemeList + " URL"
	}
	return ""
}

// notebookErrors are checkNotebook's problems at their lines of data.
func notebookErrors(file string, data []byte, bad []notebookProblem) lesson.Errors {
	var errs lesson.Errors
	for _, b := range bad {
		errs = append(errs, &lesson.Error{File: file, Line: tableKeyLine(data, "notebook", b.key), Msg: b.msg, Fix: b.fix})
	}
	return errs
}

// tableKeyLine is the line of key in the [table] of a TOML file (the
// table's own line when key is "" or absent; 1 when the table is not
// found: written as dotted keys).
func tableKeyLine(data []byte, table, key string) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	line, header := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "[") {
			if header > 0 {
				break
			}
			name := strings.TrimSpace(strings.Trim(strings.SplitN(text, "#", 2)[0], " []"))
			if name == table && !strings.HasPrefix(text, "[[") {
				header = line
			}
			continue
		}
		if header > 0 && key != "" {
			if k, _, ok := strings.Cut(text, "="); ok && strings.TrimSpace(k) == key {
				return line
			}
		}
	}
	if header == 0 {
		return 1
	}
	return header
}
