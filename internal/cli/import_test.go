package cli

import (
	"slices"
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestImportFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ImportOptions
	cmd := newImport(ios, func(o *ImportOptions) error { got = o; return nil })
	if err := execute(cmd, "a.ipynb", "nb/", "--to", "md", "--dir", "c", "--title", "T", "--force"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Sources, []string{"a.ipynb", "nb/"}) || got.To != "md" || got.Dir != "c" || got.Title != "T" || !got.Force {
		t.Errorf("import: %+v", got)
	}
	wantUsage(t, execute(newImport(ios, func(*ImportOptions) error { return nil })), "import takes notebooks")
	wantUsage(t, execute(newImport(ios, func(*ImportOptions) error { return nil }), "a.ipynb", "--to", "pdf"), "--to is md or ipynb")
}
