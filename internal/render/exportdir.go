package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ExportMark is the file lessons export --html leaves in the folder it
// writes: a folder with it is one an export made, and may be written again.
const ExportMark = ".lessons-export"

// DirError is why lessons export will not write into a folder.
type DirError struct{ Dir, Why string }

func (e *DirError) Error() string {
	return fmt.Sprintf("export %s: %s; name a new or empty folder, or one that lessons export wrote before", e.Dir, e.Why)
}

// claimDir makes dir, or takes it when it is empty or an earlier export
// made it (its ExportMark), and marks it. A folder of someone else's
// files is refused: export --html / wrote into /, and an index.html it
// did not write was silently replaced.
func claimDir(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return &DirError{Dir: dir, Why: err.Error()}
		}
	case err != nil:
		return &DirError{Dir: dir, Why: err.Error()}
	case len(ents) > 0:
		if st, err := os.Lstat(filepath.Join(dir, ExportMark)); err != nil || !st.Mode().IsRegular() {
			return &DirError{Dir: dir, Why: fmt.Sprintf("the folder holds files lessons export did not write (%s, and no %s)", ents[0].Name(), ExportMark)}
		}
	}
	return os.WriteFile(filepath.Join(dir, ExportMark), []byte("lessons export --html wrote this folder; it may write it again.\n"), 0o644)
}
