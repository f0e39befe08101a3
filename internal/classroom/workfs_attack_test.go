package classroom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/sandbox"
)

// Door 6 (issue 38): a class's caps on a student's files and bytes were
// checked between runs only: one cell made 60,000 files in a workspace
// capped at 20,000, and within its time limit a cell can take the disk's
// last inode or byte. With OwnWorkFS a student's workspaces are a file
// system of their own: the cell's writes stop at the caps, during the
// run, and a classmate's cell still has room.
func TestAttackCellFillsItsWorkspace(t *testing.T) {
	if why := sandbox.CanOwnFS(); why != "" {
		t.Skip("no file systems of their own here: " + why)
	}
	cell := "# Day 1: Hello\n\n```sh run\n" +
		"i=0; while [ $i -lt 3000 ] && : > f$i 2>/dev/null; do i=$((i+1)); done; echo files $i\n" +
		"rm -f f*; { head -c 50000000 /dev/zero > big; } 2>/dev/null || true; echo bytes $(wc -c < big)\n" +
		// The attack of our own: the cell's TMPDIR (and build cache) are
		// in its workspace too, under the same caps.
		"rm -f big; { head -c 50000000 /dev/zero > \"$TMPDIR/big\"; } 2>/dev/null || true; echo tmp $(wc -c < \"$TMPDIR/big\")\n```\n"
	tc := newTestClass(t, func(cfg *Config) {
		writeTree(t, cfg.Course.Root, map[string]string{"lessons/day001-hello.md": cell})
		cfg.OwnWorkFS, cfg.DiskPerStudent, cfg.FilesPerStudent = true, 24<<20, 1000
	})
	defer tc.class.Close()
	ann, bob := tc.browser(), tc.browser()
	ann.signin(tc.invite("ann"))
	bob.signin(tc.invite("bob"))
	out, _ := ann.runCell("day001-hello", 1)
	var files, bytes int
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "files "); ok {
			files = atoi(v)
		}
		if v, ok := strings.CutPrefix(line, "bytes "); ok {
			bytes = atoi(v)
		}
	}
	var tmp int
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "tmp "); ok {
			tmp = atoi(v)
		}
	}
	if !strings.Contains(out, "tmp ") || tmp >= 24<<20 {
		t.Errorf("the cell's TMPDIR took %d bytes of a workspace capped at 24 MiB:\n%s", tmp, out)
	}
	if files == 0 || files >= 1100 || bytes == 0 || bytes >= 24<<20 {
		t.Errorf("the cell made %d files and a file of %d bytes in a workspace capped at 1,000 files and 24 MiB:\n%s", files, bytes, out)
	}
	ws := filepath.Join(tc.dir, "students", "ann", ".work", "day001-hello")
	if st, err := os.Stat(filepath.Join(ws, ".tmp", "big")); err != nil || st.Size() == 0 {
		t.Errorf("what the cell made is not in its workspace: %v", err)
	}
	// A classmate's cell has its own room.
	out, _ = bob.runCell("day001-hello", 1)
	if !strings.Contains(out, "files ") || strings.Contains(out, "files 0\n") {
		t.Errorf("bob's cell beside ann's full workspace:\n%s", out)
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range strings.TrimSpace(s) {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}
