package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
)

// FuzzSite feeds the site builder a lesson of any dialect: a markdown
// lesson and, when the input looks like one, a .ipynb. The site is built
// or the lesson's errors come back; it never panics (a .ipynb lesson of
// one cell once did, in sections), and every page has its body.
func FuzzSite(f *testing.F) {
	for _, s := range []string{
		"# A\n\n## B\n\ntext\n",
		"In [ ]:\n%%writefile a.cu\nint main() {}\n\nIn [ ]:\n!nvcc a.cu\n",
		`{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "print(1)"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`,
		`{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# T\n", "## S\n", "` + "```mermaid\\ngraph TD\\nA-->B\\n```" + `"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`,
		`{"cells": [], "nbformat": 4}`,
		"```sh run\necho\n```\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		name := "day001-a.md"
		if lesson.IsIpynb("", []byte(src)) {
			name = "day001-a.ipynb"
		}
		os.MkdirAll(filepath.Join(dir, "lessons"), 0o755)
		os.WriteFile(filepath.Join(dir, "lessons", name), []byte(src), 0o644)
		os.WriteFile(filepath.Join(dir, "course.toml"), []byte("title = \"F\"\n[[lesson]]\nfile = \"lessons/"+name+"\"\n"), 0o644)
		c, err := course.Load(dir)
		if err != nil {
			return
		}
		site, err := Site(c)
		if err != nil {
			return
		}
		page := string(site["day001-a.html"])
		if !strings.Contains(page, "<main>") || !strings.Contains(string(site["index.html"]), "day001-a.html") {
			t.Fatalf("the page or the index is incomplete:\n%s", page)
		}
	})
}
