package wrong

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/diag"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/safefs"
)

// sol is a solution of ten numbered lines; solPatch makes line 5 wrong.
const sol = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n"

const solPatch = `// expect: five is wrong
// the fifth line is written as a word

--- a/solutions/ex.cu
+++ b/solutions/ex.cu
@@ -2,7 +2,7 @@
 2
 3
 4
-five
+5
 6
 7
 8
`

// TestParseExpect: the first line names the text; anything else says
// what the line must be, with the file and line.
func TestParseExpect(t *testing.T) {
	got, err := ParseExpect("w.cu", []byte("// expect:  waits for the whole device \nint main() {}\n"))
	if err != nil || got != "waits for the whole device" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{"", "int main() {}\n// expect: x", "// expect:   \n"} {
		if _, err := ParseExpect("w.cu", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "w.cu:1: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseExpect(f *testing.F) {
	f.Add([]byte("// expect: x\n"))
	f.Add([]byte("\xff// expect"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseExpect("w.cu", data)
		if err == nil && (got == "" || strings.Contains(got, "\n")) {
			t.Errorf("%q gave %q", data, got)
		}
	})
}

func TestApply(t *testing.T) {
	got, err := Apply("w.patch", []byte(solPatch), "solutions/ex.cu", []byte(sol))
	if err != nil || string(got) != strings.Replace(sol, "five", "5", 1) {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestApplyShifted: lines added or removed above a hunk move it, as git
// apply moves it; its own lines must still be there.
func TestApplyShifted(t *testing.T) {
	for _, src := range []string{"0a\n0b\n" + sol, sol[2:], "x\n" + strings.Replace(sol, "9\n", "", 1)} {
		got, err := Apply("w.patch", []byte(solPatch), "solutions/ex.cu", []byte(src))
		if err != nil || string(got) != strings.Replace(src, "five", "5", 1) {
			t.Errorf("%q: got %q, %v", src, got, err)
		}
	}
}

// TestApplyStale: a solution changed under a hunk's lines is an error at
// the hunk's line of the patch, naming the solution's line that differs
// and what to do.
func TestApplyStale(t *testing.T) {
	src := strings.Replace(sol, "4\n", "four\n", 1)
	_, err := Apply("solutions/wrong/ex/w.patch", []byte(solPatch), "solutions/ex.cu", []byte(src))
	var e *diag.Error
	if !errors.As(err, &e) || e.File != "solutions/wrong/ex/w.patch" || e.Line != 6 {
		t.Fatalf("%#v", err)
	}
	for _, want := range []string{"hunk 1 no longer applies to solutions/ex.cu", `its line 4 is "four" where the hunk has "4"`, "make it again in the solution"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	_, err = Apply("w.patch", []byte(solPatch), "solutions/ex.cu", []byte("1\n2\n3\n"))
	if err == nil || !strings.Contains(err.Error(), "w.patch:6: hunk 1 no longer applies") || !strings.Contains(err.Error(), "the file ends at line 3") {
		t.Errorf("%v", err)
	}
	two := solPatch + "@@ -8,3 +8,3 @@\n 8\n-9\n+nine\n 10\n"
	_, err = Apply("w.patch", []byte(two), "solutions/ex.cu", []byte(strings.Replace(sol, "9\n", "NINE\n", 1)))
	if err == nil || !strings.HasPrefix(err.Error(), "w.patch:15: hunk 2 no longer applies") {
		t.Errorf("%v", err)
	}
}

// TestApplyRefused: a patch is of its solution and of nothing else; a
// course is untrusted, so a path out of it is refused before anything
// is read, as are other files, new, deleted, renamed and binary ones.
func TestApplyRefused(t *testing.T) {
	body := "@@ -1,2 +1,2 @@\n-1\n+one\n 2\n"
	for _, c := range []struct{ name, patch, want string }{
		{"dot-dot", "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n" + body, `w.patch:1: the patch is of "a/../../etc/passwd", not of its exercise's solution`},
		{"absolute", "// expect: x\n\n--- /etc/passwd\n+++ /etc/passwd\n" + body, `w.patch:3: the patch is of "/etc/passwd"`},
		{"another file", "--- a/solutions/ex.cu\n+++ b/exercises/ex.cu\n" + body, `w.patch:2: the patch is of "b/exercises/ex.cu"`},
		{"second file", "--- a/solutions/ex.cu\n+++ b/solutions/ex.cu\n" + body + "--- a/x.cu\n+++ b/x.cu\n" + body, "w.patch:7: changes a second file"},
		{"new file", "--- /dev/null\n+++ b/solutions/ex.cu\n@@ -0,0 +1 @@\n+x\n", "creates, deletes, renames"},
		{"deleted", "--- a/solutions/ex.cu\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n", "creates, deletes, renames"},
		{"renamed", "diff --git a/solutions/ex.cu b/solutions/ex2.cu\nsimilarity index 100%\nrename from solutions/ex.cu\nrename to solutions/ex2.cu\n", "creates, deletes, renames"},
		{"binary", "diff --git a/solutions/ex.cu b/solutions/ex.cu\nindex 1..2 100644\nBinary files a/solutions/ex.cu and b/solutions/ex.cu differ\n", "creates, deletes, renames"},
		{"no diff", "// expect: x\n// nothing else\n", "w.patch:3: holds no diff"},
		{"miscounted", "--- a/solutions/ex.cu\n+++ b/solutions/ex.cu\n@@ -1,3 +1,3 @@\n-1\n+one\n 2\n", "w.patch:4: not a unified diff"},
		{"mode only", "diff --git a/solutions/ex.cu b/solutions/ex.cu\nold mode 100644\nnew mode 100755\n", "names no file"},
	} {
		_, err := Apply("w.patch", []byte(c.patch), "solutions/ex.cu", []byte(sol))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestLoad: a wrong answer kept as a patch stands for the solution with
// the patch applied, and expects what its header's first line says; a
// whole program stands for itself.
func TestLoad(t *testing.T) {
	root := coursetest.Tiny(t, []string{"ex"}, map[string]string{
		"solutions/ex.cu":                 sol,
		"solutions/wrong/ex/word.patch":   solPatch,
		"solutions/wrong/ex/whole.cu":     "// expect: leaks\nint main() {}\n",
		"solutions/right/ex/other.cu":     "int main() { return 0; }\n",
		"solutions/wrong/ex/.hidden.cu":   "x",
		"solutions/wrong/ex/sub/inner.cu": "x",
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	as, err := List(c, c.Exercises[0])
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range as {
		names = append(names, a.Path)
	}
	if strings.Join(names, " ") != "solutions/wrong/ex/whole.cu solutions/wrong/ex/word.patch solutions/right/ex/other.cu" {
		t.Fatalf("listed %q", names)
	}
	p, err := Load(c, as[1])
	if err != nil || p.Expect != "five is wrong" || string(p.Source) != strings.Replace(sol, "five", "5", 1) {
		t.Errorf("%+v, %v", p, err)
	}
	if p, err := Load(c, as[0]); err != nil || p.Expect != "leaks" || p.Source != nil {
		t.Errorf("%+v, %v", p, err)
	}
	if p, err := Load(c, as[2]); err != nil || p.Expect != "" || p.Source != nil {
		t.Errorf("%+v, %v", p, err)
	}
	if err := os.WriteFile(filepath.Join(root, "solutions/wrong/ex/word.cu"), []byte("// expect: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := List(c, c.Exercises[0]); err == nil || !strings.Contains(err.Error(), "word.cu and word.patch are one answer twice") {
		t.Errorf("%v", err)
	}
}

// TestLoadLinkRefused: a patch, or a whole program, that is a link out
// of the course is not read.
func TestLoadLinkRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.patch")
	if err := os.WriteFile(outside, []byte(solPatch), 0o644); err != nil {
		t.Fatal(err)
	}
	root := coursetest.Tiny(t, []string{"ex"}, map[string]string{"solutions/ex.cu": sol, "solutions/wrong/ex/keep.txt": ""})
	for _, name := range []string{"link.patch", "whole.cu"} {
		if err := os.Symlink(outside, filepath.Join(root, "solutions/wrong/ex", name)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	as, err := List(c, c.Exercises[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		if a.Name == "keep.txt" {
			continue
		}
		_, err := Load(c, a)
		var be *safefs.Error
		if !errors.As(err, &be) {
			t.Errorf("%s: %v, want a refusal", a.Name, err)
		}
	}
}

// FuzzApply: whatever a course's patch holds, Apply returns a program or
// an error naming the patch, and never panics.
func FuzzApply(f *testing.F) {
	f.Add([]byte(solPatch))
	f.Add([]byte(solPatch + "@@ -8,3 +8,3 @@\n 8\n-9\n+nine\n 10\n"))
	f.Add([]byte("--- a/solutions/ex.cu\n+++ b/solutions/ex.cu\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"))
	f.Add([]byte("--- a/solutions/ex.cu\n+++ b/solutions/ex.cu\n@@ -99999999999,1 +1,1 @@\n-1\n+2\n"))
	f.Fuzz(func(t *testing.T, patch []byte) {
		_, err := Apply("w.patch", patch, "solutions/ex.cu", []byte(sol))
		if err != nil && !strings.HasPrefix(err.Error(), "w.patch") {
			t.Errorf("%q: %v", patch, err)
		}
	})
}

// TestUnseen: a mistake no check sees is listed after the alternatives,
// applied as a wrong answer is (a stale one is an error, so it never
// rots), and says why on its first line; without the why it is refused
// with the file and line.
func TestUnseen(t *testing.T) {
	unseen := strings.Replace(solPatch, "// expect: five is wrong", "// unseen: the word and the number print alike", 1)
	root := coursetest.Tiny(t, []string{"ex"}, map[string]string{
		"solutions/ex.cu":                 sol,
		"solutions/wrong/ex/word.patch":   solPatch,
		"solutions/unseen/ex/alike.patch": unseen,
		"solutions/unseen/ex/bare.patch":  solPatch,
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	as, err := List(c, c.Exercises[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 3 || as[0].Unseen || !as[1].Unseen || as[1].Right || as[1].Path != "solutions/unseen/ex/alike.patch" {
		t.Fatalf("listed %+v", as)
	}
	p, err := Load(c, as[1])
	if err != nil || p.Unseen != "the word and the number print alike" || p.Expect != "" || string(p.Source) != strings.Replace(sol, "five", "5", 1) {
		t.Errorf("%+v, %v", p, err)
	}
	if _, err := Load(c, as[2]); err == nil || !strings.HasPrefix(err.Error(), "solutions/unseen/ex/bare.patch:1: ") || !strings.Contains(err.Error(), UnseenPrefix) {
		t.Errorf("an unseen mistake without its why: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "solutions/ex.cu"), []byte(strings.Replace(sol, "4\n", "four\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(c, as[1]); err == nil || !strings.Contains(err.Error(), "no longer applies") {
		t.Errorf("a stale unseen mistake: %v", err)
	}
}

func FuzzParseUnseen(f *testing.F) {
	f.Add([]byte("// unseen: x\n"))
	f.Add([]byte("// expect: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseUnseen("u.patch", data)
		if err == nil && (got == "" || strings.Contains(got, "\n")) {
			t.Errorf("%q gave %q", data, got)
		}
	})
}
