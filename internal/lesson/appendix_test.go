package lesson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A notebook exported with cells added keeps every byte of its own: its
// outputs, execution counts, ids, attachments and the metadata of other
// tools (colab, kaggle, widgets); the cells added get ids it does not
// have, and it reads back as the lesson plus them.
func TestAppendToKeepsTheNotebook(t *testing.T) {
	src := []byte(`{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "cell-1",
   "metadata": {"id": "abc", "colab_type": "text"},
   "source": ["---\n", "# Streams\n"]
  },
  {
   "cell_type": "code",
   "execution_count": 7,
   "id": "lessons-3",
   "metadata": {"colab": {"base_uri": "https://localhost:8080/"}, "outputId": "x"},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
   "source": ["!nvidia-smi"]
  }
 ],
 "metadata": {
  "colab": {"toc_visible": true, "provenance": []},
  "kaggle": {"accelerator": "gpu"},
  "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}},
  "kernelspec": {"display_name": "Python 3", "name": "python3"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`)
	l, err := ParseIpynb("day1.ipynb", src)
	if err != nil {
		t.Fatal(err)
	}
	nb, ok := NewAppendix(l)
	if !ok {
		t.Fatal("an nbformat 4 notebook is not kept")
	}
	same, err := nb.AppendTo(src)
	if err != nil || !bytes.Equal(same, src) {
		t.Fatalf("with nothing added the notebook changed (%v):\n%s", err, same)
	}
	nb.Markdown("## Exercise", map[string]any{"generated": "exercise"})
	nb.Code("%%writefile x.cu\nint main() {}", map[string]any{"generated": "exercise"})
	out, err := nb.AppendTo(src)
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.LastIndex(src, []byte("\n  }\n ],"))
	if !bytes.HasPrefix(out, src[:end+len("\n  }")]) || !bytes.HasSuffix(out, src[end+len("\n  }"):]) {
		t.Errorf("the notebook's own bytes changed:\n%s", out)
	}
	var doc struct {
		Cells []struct {
			ID string `json:"id"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	ids := map[string]bool{}
	for _, c := range doc.Cells {
		if c.ID == "" || ids[c.ID] {
			t.Errorf("id %q missing or repeated: %s", c.ID, out)
		}
		ids[c.ID] = true
	}
	if len(doc.Cells) != 4 {
		t.Errorf("%d cells", len(doc.Cells))
	}
	back, err := ParseIpynb("day1.ipynb", out)
	if err != nil || len(back.Cells) != len(l.Cells) {
		t.Errorf("read back: %d cells, want the lesson's %d (the added ones are the writer's): %v", len(back.Cells), len(l.Cells), err)
	}
	if !strings.Contains(string(out), "\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"lessons-3") && !strings.Contains(string(out), "\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"lessons-4") {
		t.Errorf("the added cells are not indented as the notebook's:\n%s", out)
	}
}

// nbformat 4.4 and earlier have no cell ids: none is added.
func TestAppendToOlderMinor(t *testing.T) {
	src := []byte(`{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}`)
	l, err := ParseIpynb("x.ipynb", src)
	if l == nil {
		t.Fatal(err)
	}
	nb, _ := NewAppendix(l)
	nb.Code("print(1)", nil)
	out, err := nb.AppendTo(src)
	if err != nil || bytes.Contains(out, []byte(`"id"`)) || !json.Valid(out) {
		t.Fatalf("%v:\n%s", err, out)
	}
}
