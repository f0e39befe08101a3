package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
)

// NotebookGo is the Go a notebook's first cell installs for [notebook]
// go_install on a machine without Go (Colab's image has none).
const NotebookGo = "1.26.8"

// InstallCell is the first cell of an exported notebook of a course
// whose course.toml has a [notebook] table: a %%bash cell that puts
// lessons (a release's binary, or go install) and the course (a
// shallow clone) in n.Root on the notebook's machine, once (run again,
// it keeps what is there), and lists the course. Every value it writes
// was checked by course.Load: single-quoted, none can end its quotes.
func InstallCell(n *course.Notebook) string {
	var b strings.Builder
	b.WriteString("%%bash\n")
	b.WriteString("# Installs lessons and this course on this machine, for the exercises' check\n")
	b.WriteString("# cells (on Colab, pick a GPU first: Runtime > Change runtime type > GPU).\n")
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "ROOT=%s\n", n.Root)
	b.WriteString("mkdir -p \"$ROOT/bin\"\n")
	b.WriteString("if [ ! -x \"$ROOT/bin/lessons\" ]; then\n")
	if n.Binary != "" {
		fmt.Fprintf(&b, "  curl -fsSL -o \"$ROOT/bin/lessons.part\" '%s'\n", n.Binary)
		b.WriteString("  chmod +x \"$ROOT/bin/lessons.part\"\n")
		b.WriteString("  mv \"$ROOT/bin/lessons.part\" \"$ROOT/bin/lessons\"\n")
	} else {
		b.WriteString("  if ! command -v go >/dev/null; then\n")
		fmt.Fprintf(&b, "    curl -fsSL 'https://go.dev/dl/go%s.linux-amd64.tar.gz' | tar -xz -C \"$ROOT\"\n", NotebookGo)
		b.WriteString("    export PATH=\"$ROOT/go/bin:$PATH\"\n")
		b.WriteString("  fi\n")
		fmt.Fprintf(&b, "  GOBIN=\"$ROOT/bin\" go install '%s'\n", n.GoInstall)
	}
	b.WriteString("fi\n")
	b.WriteString("if [ ! -d \"$ROOT/course/.git\" ]; then\n")
	branch := ""
	if n.Ref != "" {
		branch = fmt.Sprintf("--branch '%s' ", n.Ref)
	}
	// Shallow where the server can (smart HTTP, as GitHub's); a static
	// web server's dumb HTTP cannot, and gets the whole history.
	clone := fmt.Sprintf("git -c advice.detachedHead=false clone --quiet %s'%s' \"$ROOT/course\"", branch, n.Repository)
	fmt.Fprintf(&b, "  %s 2>/dev/null ||\n    %s\n", strings.Replace(clone, "--quiet ", "--quiet --depth 1 ", 1), clone)
	b.WriteString("fi\n")
	course := "$ROOT/course"
	if n.Dir != "" {
		course += "/" + n.Dir
	}
	fmt.Fprintf(&b, "cd \"%s\"\n", course)
	b.WriteString("\"$ROOT/bin/lessons\" list")
	return b.String()
}

// checkedCells adds the cells of exercise x that the course's lessons
// checks on the notebook's machine: its files written into the course
// the first cell installed, and a cell that runs lessons check there,
// the statistics library and the sanitizers included.
func checkedCells(n *course.Notebook, x *course.Exercise, files []string, data [][]byte, add func(code bool, src string)) {
	dir := path.Join(n.Course(), path.Dir(x.Student))
	for i, f := range files {
		add(true, "%%writefile "+path.Join(dir, f)+"\n"+strings.TrimSuffix(string(data[i]), "\n"))
	}
	add(true, fmt.Sprintf("# The exercise's checks, all of them, on this machine's GPU: lessons check.\n!cd %s && %s check %s", n.Course(), n.Lessons(), x.ID))
	add(false, fmt.Sprintf("A hint, one more each time: `!cd %s && %s hint %s`.", n.Course(), n.Lessons(), x.ID))
}
