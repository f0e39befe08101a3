package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/iostreams"
)

const longHint = "What to think about: the pool is one allocation, and a block is an address inside it. Draw the allocation with every class's blocks in it: where does each block start, and what makes an address the start of a block? Then follow one block through its life: handed out, used by a kernel on some stream, given back while that kernel may not have run yet."

const longMessage = "a stage read a buffer before the stage that wrote it was ordered before it: the reading stream must wait (cudaStreamWaitEvent) for an event recorded on the writing stream after the kernel that writes it; a stage that reads two halves waits for both"

// fits fails on a line of s wider than width.
func fits(t *testing.T, what, s string, width int) {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("%s: line %d is %d wide, more than %d: %q", what, i+1, w, width, l)
		}
	}
}

// TestVerdictsFit: hint, check's verdict and grade's whole output fit 60,
// 80 and 120 columns (issue 42: a hint of 718 columns, verdict lines of
// 518, grade's header lines of 298 and 687).
func TestVerdictsFit(t *testing.T) {
	bin := t.TempDir()
	nvcc := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 12.4, V12.4.131'; exit 0; fi\n" +
		"out=\"\"; while [ $# -gt 0 ]; do case \"$1\" in -o) out=\"$2\"; shift ;; esac; shift; done\n" +
		"printf '#!/bin/sh\\necho \"3 of 8 chunks right\"\\n' >\"$out\"; chmod +x \"$out\"\n"
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(nvcc), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("LESSONS_GPU", "Fake GPU,9.0,85899345920")
	t.Setenv("LESSONS_CACHE", t.TempDir())
	t.Setenv("LESSONS_SANITIZER", "none")
	dir := coursetest.Tiny(t, []string{"pipe"}, map[string]string{
		"course.toml":         "title = \"Tiny\"\n[[lesson]]\nfile = \"lessons/day001-a.md\"\n[[exercise]]\nid = \"pipe\"\nlesson = \"1\"\nstudent = \"exercises/pipe.cu\"\nsolution = \"solutions/pipe.cu\"\nhints = [\"" + longHint + "\", \"Which API: cudaStreamWaitEvent.\"]\n",
		"exercises/pipe.toml": "[[check]]\nexit = 0\n[[check]]\nname = \"every chunk of the pipeline comes out right, in order, whatever the streams do between them\"\nregex = '([0-9]+) of 8 chunks right'\nequals = 8\nmessage = \"" + longMessage + "\"\nhint = \"" + longHint + "\"\n",
	})
	for _, width := range []int{60, 80, 120} {
		for _, args := range [][]string{{"hint", "pipe"}, {"check", "pipe"}} {
			t.Run(fmt.Sprintf("%s/%d", args[0], width), func(t *testing.T) {
				os.RemoveAll(filepath.Join(dir, ".lessons"))
				ios, _, out, errOut := iostreams.Test()
				ios.SetWidth(width)
				Run(ios, append(args, "--course", dir))
				fits(t, "stdout", out.String(), width)
				fits(t, "stderr", errOut.String(), width)
				golden(t, fmt.Sprintf("%s.%d.golden", args[0], width), out.String())
			})
		}
	}
}
