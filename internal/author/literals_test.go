package author

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/clex"
)

// literals are the comments and the string and character literals of a
// C, C++ or CUDA text, in order, as clex reads them.
func literals(text string) []string {
	var out []string
	for _, sp := range clex.Spans(text) {
		out = append(out, strings.TrimRight(text[sp.Start:sp.End], "\r\n"))
	}
	return out
}

// subsequence reports whether a is b with some elements left out.
func subsequence(a, b []string) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] != x {
			j++
		}
		if j == len(b) {
			return false
		}
		j++
	}
	return true
}

// keepsLiterals says what is wrong with mutant mt of base, if anything:
// no operator changes or makes a comment or a literal. Those that leave
// code out may drop the literals in it (never a comment, but no-work's:
// a statement left out leaves its comments); those that move a line move
// its literals; the others keep every one where it was (a call they
// rewrite has none in its arguments).
func keepsLiterals(base string, mt Mutant) string {
	b, m := literals(base), literals(string(mt.Data))
	switch mt.Op {
	case "replay":
		return ""
	case "hoist-alloc", "reset-after-barrier":
		if !slices.Equal(sorted(b), sorted(m)) {
			return "moves lines but changes their comments or literals"
		}
	case "delete-call", "delete-launch", "no-work":
		if !subsequence(m, b) {
			return "changes or makes a comment or a literal"
		}
		if mt.Op != "no-work" && !slices.Equal(comments(base), comments(string(mt.Data))) {
			return "loses a comment"
		}
	default:
		if !slices.Equal(b, m) {
			return "changes a comment or a literal"
		}
	}
	return ""
}

func comments(text string) []string {
	var out []string
	for _, sp := range clex.Spans(text) {
		if sp.Kind == clex.Comment {
			out = append(out, strings.TrimRight(text[sp.Start:sp.End], "\r\n"))
		}
	}
	return out
}

func sorted(xs []string) []string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs
}

// TestCommentsAndStringsAreNotCode: a // or a call inside a string, a
// call in a comment, are not code: the operators see the call after the
// string, and make no mutant of a string's or a comment's text (the
// regular expressions read every "//" as a comment, and a call in a
// string as a call).
func TestCommentsAndStringsAreNotCode(t *testing.T) {
	src, err := Parse("x.cu", []byte(`int main() {
    // BEGIN SOLUTION
    printf("see http://x"); CHECK(cudaFreeAsync(p, s));
    printf("cudaFreeAsync(p, s);");
    /* cudaMallocAsync(&p, n, s); */ int k = 0;
    log('/', "a // b", cudaStreamSynchronize(s)); // cudaFreeAsync(q, s)
    // END SOLUTION
}
`))
	if err != nil {
		t.Fatal(err)
	}
	base := string(src.Solution())
	var ids []string
	for _, mt := range Mutants(src, nil) {
		ids = append(ids, mt.ID)
		if why := keepsLiterals(base, mt); why != "" {
			t.Errorf("%s %s:\n%s", mt.ID, why, mt.Diff)
		}
	}
	for _, want := range []string{"sync-twin@3", "other-stream@3/0", "delete-call@6", "other-stream@6/0"} {
		if !slices.Contains(ids, want) {
			t.Errorf("no %s (the call after a string with // in it): %v", want, ids)
		}
	}
	for _, id := range ids {
		if strings.HasSuffix(id, "@4") || strings.HasPrefix(id, "sync-twin@5") || strings.HasPrefix(id, "sync-twin@6") {
			t.Errorf("%s: a mutant of a string's or a comment's text", id)
		}
	}
}

// FuzzMutantsKeepLiterals: whatever the source, no operator changes or
// makes a comment or a string or character literal (keepsLiterals).
func FuzzMutantsKeepLiterals(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/mutants/*.[ch]*")
	for _, fx := range fixtures {
		if data, err := os.ReadFile(fx); err == nil && !strings.HasSuffix(fx, ".golden") {
			f.Add(data)
		}
	}
	f.Add([]byte("int main() {\n  for (;;) {\n    // BEGIN SOLUTION\n    k<<<1, 1, 0, s /* s */>>>(p, \"//\"); // launch\n    cudaMemsetAsync(p /* p */, 0, n, s);\n    cudaEventRecord(e[i], \"s\");\n    // END SOLUTION\n  }\n}\n"))
	f.Add([]byte("void f(cudaStream_t s) {\n  for (int i = 0; i < 4; i++) {\n    // BEGIN SOLUTION\n    cudaMallocAsync(&p, n /* bytes */, s); /* a\n    b */ cudaFreeAsync(p, s);\n    cudaStreamWaitEvent(s, \"e\", 0);\n    __syncthreads();\n    // END SOLUTION\n  }\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := Parse("f.cu", data)
		if err != nil {
			return
		}
		base := string(src.Solution())
		for _, mt := range Mutants(src, nil) {
			if why := keepsLiterals(base, mt); why != "" {
				t.Fatalf("%s %s:\n%s", mt.ID, why, mt.Diff)
			}
		}
	})
}

// TestMutantsKeepLiteralsOfVariants: the fixtures with comments and
// literals put into their regions' lines at many places (a call inside a
// string or a comment, a // in a string, a comment inside a call, a
// block comment across lines), and no operator changes or makes one.
// FuzzMutantsKeepLiterals explores further; this runs the same property
// on a fixed set of variants in every go test.
func TestMutantsKeepLiteralsOfVariants(t *testing.T) {
	snippets := []string{`"a // b"`, `/* c */`, `'('`, `"cudaFreeAsync(p, s);"`, "// cudaMallocAsync(&p, n, s);", "/* x\n y */", `"<<<1, 1>>>"`, `","`}
	fixtures, _ := filepath.Glob("testdata/mutants/*.[ch]*")
	rnd := uint64(1)
	next := func(n int) int {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return int(rnd>>33) % n
	}
	variants := 0
	for _, fx := range fixtures {
		data, err := os.ReadFile(fx)
		if err != nil || strings.HasSuffix(fx, ".golden") {
			continue
		}
		src, err := Parse(fx, data)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 60; k++ {
			lines := slices.Clone(src.Lines)
			for j := 0; j < 3; j++ {
				r := src.Regions[next(len(src.Regions))]
				first, last := r.SolutionLines()
				if last < first {
					continue
				}
				n := first - 1 + next(last-first+1)
				l := strings.TrimRight(lines[n], "\r\n")
				at := next(len(l) + 1)
				lines[n] = l[:at] + snippets[next(len(snippets))] + l[at:] + lines[n][len(l):]
			}
			v, err := Parse(fx, []byte(strings.Join(lines, "")))
			if err != nil {
				continue // a snippet that made a marker's line something else
			}
			variants++
			base := string(v.Solution())
			for _, mt := range Mutants(v, []RecordedRun{{Output: "x\n"}}) {
				if why := keepsLiterals(base, mt); why != "" {
					t.Fatalf("%s: %s %s:\n%s\nin:\n%s", fx, mt.ID, why, mt.Diff, base)
				}
			}
		}
	}
	if variants < 100 {
		t.Errorf("only %d variants", variants)
	}
}
