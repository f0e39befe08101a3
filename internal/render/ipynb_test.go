package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
)

// TestGoldenIpynb renders the notebook fixtures of the lesson package for
// the terminal and the site: recorded outputs marked as recorded, images
// named in the terminal and shown in the page, notes on mixed cells.
func TestGoldenIpynb(t *testing.T) {
	files, _ := filepath.Glob("../lesson/testdata/ipynb/*.ipynb")
	if len(files) == 0 {
		t.Fatal("no notebook fixtures")
	}
	for _, file := range files {
		name := "ipynb-" + strings.TrimSuffix(filepath.Base(file), ".ipynb")
		t.Run(name, func(t *testing.T) {
			l, err := lesson.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			plain := renderTerm(t, l, false)
			golden(t, name+".plain.golden", plain)
			page := renderHTML(t, l)
			golden(t, name+".html.golden", page)
			wantTerm := []string{"[image/png, 72 bytes"}
			wantPage := []string{`<img src="data:image/png;base64,iVBOR`}
			if strings.Contains(name, "colab") {
				wantTerm = append(wantTerm, "recorded output:", "recorded result:", "recorded error (ModuleNotFoundError):", "2 Python lines of this cell were not run")
				wantPage = append(wantPage, `class="output recorded`, `<img alt="recorded image/png" src="data:image/png;base64,iVBOR`)
			}
			for _, want := range wantTerm {
				if !strings.Contains(plain, want) {
					t.Errorf("the terminal rendering lacks %q", want)
				}
			}
			for _, want := range wantPage {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			if strings.Contains(plain, "base64,") {
				t.Error("the terminal rendering prints base64")
			}
		})
	}
}
