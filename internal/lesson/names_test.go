package lesson

import (
	"strings"
	"testing"
)

// A notebook's %%writefile names stay in the lesson's workspace: IPython
// expands ~, so ~/.bashrc named the home folder's file.
func TestWritefileNamesStayInTheWorkspace(t *testing.T) {
	for _, name := range []string{"~/.bashrc", "/etc/passwd", "../x.cu", "a/../../x.cu", `a\..\x.cu`, ".", "./"} {
		src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%writefile ` + strings.ReplaceAll(name, `\`, `\\`) + `\nx\n"}]}`
		_, err := ParseIpynb("n.ipynb", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "leaves the lesson's workspace") {
			t.Errorf("%%%%writefile %s: %v", name, err)
		}
	}
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%writefile src/a~b.cu\nx\n"}]}`
	if _, err := ParseIpynb("n.ipynb", []byte(src)); err != nil {
		t.Errorf("a name inside: %v", err)
	}
}

// Colab runs a notebook in /content: a %%writefile there writes the
// workspace's file, and says so.
func TestColabContentIsTheWorkspace(t *testing.T) {
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%writefile /content/test.cu\nint main() {}\n"}]}`
	l, err := ParseIpynb("c.ipynb", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := l.Cells[0]
	if c.Kind != File || c.Name != "test.cu" || c.Lang != "cuda" || !strings.Contains(c.Note, "Colab's /content/test.cu, written as test.cu") {
		t.Errorf("%+v", c)
	}
	for _, name := range []string{"/content/../x.cu", "/content/", "/contents/x.cu"} {
		src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "%%writefile ` + name + `\nx\n"}]}`
		if _, err := ParseIpynb("c.ipynb", []byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A markdown lesson's file= and flags= become a notebook's %%writefile
// and ! lines on export, where IPython runs what braces hold as Python:
// a brace in either is refused, at its line.
func TestFileFenceBracesRefused(t *testing.T) {
	for _, info := range []string{"cuda file=x{__import__('os').system('id')}.cu", "cuda file=x.cu run flags=-DX={1+1}"} {
		src := "# L\n\n```" + info + "\nint main() {}\n```\n"
		_, err := Parse("day001-l.md", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "day001-l.md:3:") || !strings.Contains(err.Error(), "holds a brace") {
			t.Errorf("%s: %v", info, err)
		}
	}
}
