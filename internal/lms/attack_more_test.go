package lms

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A zip of the class's folder made as zip -r makes it: each folder has
// an entry of its own ("submissions/", "submissions/alice/"). One
// student's 2,100 files must cost that student alone.
func TestAttackBudgetWithFolderEntries(t *testing.T) {
	es := []entry{{name: "submissions/"}}
	for _, who := range []string{"alice", "bob"} {
		es = append(es, entry{name: "submissions/" + who + "/"})
		es = append(es, entry{name: "submissions/" + who + "/async_pipeline.cu", data: "// " + who + "\n" + pipeDone})
	}
	es = append(es, entry{name: "submissions/mallory/"})
	for i := 0; i < 2100; i++ {
		es = append(es, entry{name: fmt.Sprintf("submissions/mallory/f%04d.txt", i)})
	}
	cl, out := arrangeQuiet(t, writeZip(t, es...), nil)
	for _, who := range []string{"alice", "bob"} {
		if readOr(t, filepath.Join(out, who, "day070/async_pipeline.cu")) == "" {
			t.Errorf("%s's file was not kept", who)
		}
	}
	for _, note := range cl.Notes {
		if note.Kind == Refused && !strings.Contains(note.File, "mallory") {
			t.Errorf("refused: %+v", note)
		}
	}
}

// The same class unpacked by hand into a folder that holds the class's
// folder (dir/submissions/alice/...): its students' budgets are theirs.
func TestAttackBudgetInAFolderOfTheClassFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, "submissions", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, who := range []string{"alice", "bob"} {
		write(who+"/async_pipeline.cu", "// "+who+"\n"+pipeDone)
	}
	for i := 0; i < 2100; i++ {
		write(fmt.Sprintf("mallory/f%04d.txt", i), "")
	}
	files, notes, err := ReadFolder(dir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, f := range files {
		kept[f.Path] = true
	}
	for _, who := range []string{"alice", "bob"} {
		if !kept["submissions/"+who+"/async_pipeline.cu"] {
			t.Errorf("%s's file was not kept", who)
		}
	}
	for _, n := range notes {
		if n.Kind == Refused && !strings.Contains(n.File, "mallory") {
			t.Errorf("refused: %+v", n)
		}
	}
}
