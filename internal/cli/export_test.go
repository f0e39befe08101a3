package cli

import (
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestExportFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ExportOptions
	cmd := newExport(ios, &globals{}, func(o *ExportOptions) error { got = o; return nil })
	if err := execute(cmd, "--html", "site", "--ipynb", "nb"); err != nil || got.HTML != "site" || got.Ipynb != "nb" {
		t.Errorf("export: %+v, %v", got, err)
	}
	wantUsage(t, execute(newExport(ios, &globals{}, func(*ExportOptions) error { return nil })), "say where to write the site")
}
