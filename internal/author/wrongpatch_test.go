package author

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/wrong"
)

const markedSol = `// sums a buffer
int main() {
    int n = 4;
    // BEGIN SOLUTION
    int *p = alloc(n);
    use(p);
    release(p);
    // STUB
    // int *p = nullptr;
    // END SOLUTION
    return 0;
}
`

// stripped is markedSol as a whole-program wrong answer copies it.
func stripped(t *testing.T) string {
	t.Helper()
	s, err := Parse("x.cu", []byte(markedSol))
	if err != nil {
		t.Fatal(err)
	}
	return string(s.Solution())
}

// TestToPatch: the header comment stays the header, the change becomes a
// diff of the marked solution, and the patch applied gives the program
// back, markers aside, for changes inside a region, at its first and
// last lines, and outside it.
func TestToPatch(t *testing.T) {
	const header = "// expect: leaks\n// the buffer is never released\n"
	for _, c := range []struct{ name, from, to string }{
		{"removed", "    release(p);\n", ""},
		{"first line replaced", "    int *p = alloc(n);\n", "    int *p = alloc(2 * n);\n"},
		{"added after the last", "    release(p);\n", "    release(p);\n    release(p);\n"},
		{"outside", "    return 0;\n", "    return 1;\n"},
	} {
		prog := header + strings.Replace(stripped(t), c.from, c.to, 1)
		patch, err := ToPatch("solutions/x.cu", []byte(markedSol), []byte(prog))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.HasPrefix(patch, []byte(header+"\n--- a/solutions/x.cu\n+++ b/solutions/x.cu\n@@ ")) {
			t.Errorf("%s: patch starts %q", c.name, patch)
		}
		if exp, err := wrong.ParseExpect("x.patch", patch); err != nil || exp != "leaks" {
			t.Errorf("%s: expects %q, %v", c.name, exp, err)
		}
		got, err := wrong.Apply("x.patch", patch, "solutions/x.cu", []byte(markedSol))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		back, err := Parse("x.cu", got)
		if err != nil || string(back.Solution()) != strings.TrimPrefix(prog, header) {
			t.Errorf("%s: applied gives %q, %v", c.name, got, err)
		}
	}
}

// TestToPatchNoHeader: a correct alternative may have no header; one
// that is its solution is no patch.
func TestToPatchNoHeader(t *testing.T) {
	prog := strings.Replace(stripped(t), "    use(p);\n", "    use(p);\n    use(p);\n", 1)
	patch, err := ToPatch("solutions/x.cu", []byte(markedSol), []byte(prog))
	if err != nil || !bytes.HasPrefix(patch, []byte("--- a/solutions/x.cu\n")) {
		t.Errorf("%q, %v", patch, err)
	}
	if _, err := ToPatch("solutions/x.cu", []byte(markedSol), []byte("// expect: x\n"+stripped(t))); err == nil || !strings.Contains(err.Error(), "no change to keep") {
		t.Errorf("%v", err)
	}
}

// TestToPatchGitApply: what ToPatch writes is what git apply takes, from
// the course's root, onto the solution as it is on disk.
func TestToPatchGitApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	prog := "// expect: leaks\n" + strings.Replace(stripped(t), "    release(p);\n", "", 1)
	patch, err := ToPatch("solutions/x.cu", []byte(markedSol), []byte(prog))
	if err != nil {
		t.Fatal(err)
	}
	root := coursetest.Write(t, map[string]string{"solutions/x.cu": markedSol, "w.patch": string(patch)})
	cmd := exec.Command("git", "apply", "w.patch")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v: %s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(root, "solutions/x.cu"))
	if want, _ := wrong.Apply("w.patch", patch, "solutions/x.cu", []byte(markedSol)); !bytes.Equal(got, want) {
		t.Errorf("git apply gave %q, lessons %q", got, want)
	}
}

// TestGenerateWrongPatches: lessons generate --wrong-patches replaces
// each whole program by its patch (nothing on a dry run), and lint then
// names a patch the solution has moved away from, at its hunk's line.
func TestGenerateWrongPatches(t *testing.T) {
	prog := "// expect: leaks\n" + strings.Replace(stripped(t), "    release(p);\n", "", 1)
	root := coursetest.Tiny(t, []string{"ex"}, map[string]string{
		"solutions/ex.cu":             markedSol,
		"exercises/ex.cu":             string(mustParse(t, markedSol).Student()),
		"solutions/wrong/ex/leaks.cu": prog,
		"solutions/right/ex/same.cu":  strings.Replace(stripped(t), "int n = 4;", "int n = 2 + 2;", 1),
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(c, Options{DryRun: true, Force: true, WrongPatches: true})
	if err != nil || len(files) != 3 || files[1].State != Patched || files[1].Student != "solutions/wrong/ex/leaks.patch" {
		t.Fatalf("%+v, %v", files, err)
	}
	if _, err := os.Stat(filepath.Join(root, "solutions/wrong/ex/leaks.patch")); err == nil {
		t.Fatal("a dry run wrote a patch")
	}
	if _, err := Generate(c, Options{Force: true, WrongPatches: true}); err != nil {
		t.Fatal(err)
	}
	as, err := wrong.List(c, c.Exercises[0])
	if err != nil || len(as) != 2 || as[0].Name != "leaks.patch" || as[1].Name != "same.patch" {
		t.Fatalf("%+v, %v", as, err)
	}
	if errs, _ := Lint(c, nil); len(errs) > 0 {
		t.Fatalf("lint: %v", errs)
	}
	changed := strings.Replace(markedSol, "    use(p);\n", "    consume(p);\n", 1)
	if err := os.WriteFile(filepath.Join(root, "solutions/ex.cu"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	errs, _ := Lint(c, nil)
	if len(errs) == 0 || errs[0].File != "solutions/wrong/ex/leaks.patch" || errs[0].Line != 5 || !strings.Contains(errs[0].Msg, `its line 6 is "    consume(p);"`) {
		t.Errorf("lint: %v", errs)
	}
}

func mustParse(t *testing.T, src string) *Source {
	t.Helper()
	s, err := Parse("x.cu", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteGeneratedPatches: the answers made patches, and those kept
// whole with why, are listed apart from the exercises and counted.
func TestWriteGeneratedPatches(t *testing.T) {
	var out, errOut bytes.Buffer
	failed := WriteGenerated(&out, &errOut, []File{
		{Exercise: "ex", Solution: "solutions/ex.cu", Student: "exercises/ex.cu", State: UpToDate},
		{Exercise: "ex", Solution: "solutions/ex.cu", Student: "solutions/wrong/ex/a.patch", State: Patched, Why: "solutions/wrong/ex/a.cu"},
		{Exercise: "ex", Solution: "solutions/ex.cu", Student: "solutions/wrong/ex/b.cu", State: KeptWhole, Why: "it is its solution"},
	}, false)
	want := "patch        solutions/wrong/ex/a.patch (was a.cu, against solutions/ex.cu)\n" +
		"kept whole   solutions/wrong/ex/b.cu: it is its solution\n" +
		"1 exercise, 0 written, 1 up to date; 1 answer (wrong or right) now kept as patches\n"
	if failed || out.String() != want || errOut.Len() > 0 {
		t.Errorf("failed %v, got\n%s", failed, out.String())
	}
}
