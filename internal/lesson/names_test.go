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
