package author

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/wrong"
)

// ToPatch rewrites prog, a wrong answer or alternative kept as a whole
// program, as a patch against the solution sol (its path from the
// course's root, its content src): the program's leading comment lines
// that the solution does not start with (the expected text, why it is
// wrong) become the patch's header, and the rest, a copy of the solution
// without its markers, becomes a diff of the solution file as it is,
// markers kept, so that the patch applies to the file an author edits
// (git apply, patch -p1). The patch is applied again before it is
// returned: it must give back the program, markers aside.
func ToPatch(sol string, src, prog []byte) ([]byte, error) {
	s := &Source{File: sol, Lines: splitLines(src)}
	if Marked(sol) && HasMarkers(src) {
		var err error
		if s, err = Parse(sol, src); err != nil {
			return nil, err
		}
	}
	keep := s.solutionIndexes()
	plain := make([]string, len(keep))
	for i, j := range keep {
		plain[i] = s.Lines[j]
	}
	body := splitLines(prog)
	h := 0
	for h < len(body) && strings.HasPrefix(strings.TrimLeft(body[h], " \t"), "//") && (len(plain) == 0 || body[h] != plain[0]) {
		h++
	}
	header, body := strings.Join(body[:h], ""), body[h:]
	if strings.Join(body, "") == strings.Join(plain, "") {
		return nil, fmt.Errorf("it is its solution, %s, with its markers removed: there is no change to keep", sol)
	}
	marked := withMarkers(s.Lines, keep, edits(plain, body))
	d := diff.Diff("a/"+sol, src, "b/"+sol, marked)
	_, d, _ = bytes.Cut(d, []byte("\n")) // the "diff a b" line, which git apply would take for the header
	patch := d
	if header != "" {
		patch = append([]byte(header+"\n"), d...)
	}
	got, err := wrong.Apply(sol, patch, sol, src)
	if err != nil || !bytes.Equal(got, marked) {
		return nil, fmt.Errorf("the patch made of it does not give it back (%v): keep it whole", err)
	}
	back := &Source{File: sol, Lines: splitLines(got)}
	if Marked(sol) && HasMarkers(got) {
		if back, err = Parse(sol, got); err != nil {
			return nil, fmt.Errorf("its change breaks the solution's markers (%v): keep it whole", err)
		}
	}
	if !bytes.Equal(back.Solution(), []byte(strings.Join(body, ""))) {
		return nil, fmt.Errorf("its change falls among the solution's markers, so the patch does not give it back: keep it whole")
	}
	return patch, nil
}

// solutionIndexes are the indexes in s.Lines of the lines Solution
// keeps, in order.
func (s *Source) solutionIndexes() []int {
	var out []int
	next := 0
	for _, r := range s.Regions {
		first, last := r.SolutionLines()
		for j := next; j < r.Begin-1; j++ {
			out = append(out, j)
		}
		for j := first - 1; j < last; j++ {
			out = append(out, j)
		}
		next = r.End
	}
	for j := next; j < len(s.Lines); j++ {
		out = append(out, j)
	}
	return out
}

// edit is how b differs from a: del[i] says a[i] is left out; ins[i]
// are b's lines put before a[i] (ins[len(a)]: at the end).
type edit struct {
	del []bool
	ins [][]string
}

// edits is a shortest edit of a into b, by their longest common
// subsequence of lines; where a line is both removed and another added,
// the removal comes first, so that what replaces a region's first line
// stays inside the region.
func edits(a, b []string) edit {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i][j] = lcs[i+1][j+1] + 1
			default:
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	e := edit{del: make([]bool, n), ins: make([][]string, n+1)}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j] && lcs[i][j] == lcs[i+1][j+1]+1:
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			e.del[i] = true
			i++
		default:
			e.ins[i] = append(e.ins[i], b[j])
			j++
		}
	}
	return e
}

// withMarkers applies e, an edit of the solution's kept lines (keep, the
// indexes of lines), to the whole file lines: marker and stub lines stay
// where they are, and lines added after a kept line follow it at once.
func withMarkers(lines []string, keep []int, e edit) []byte {
	var b strings.Builder
	k := 0
	if len(keep) == 0 {
		b.WriteString(strings.Join(e.ins[0], ""))
	}
	for j, l := range lines {
		if k >= len(keep) || keep[k] != j {
			b.WriteString(l)
			continue
		}
		if k == 0 {
			b.WriteString(strings.Join(e.ins[0], ""))
		}
		if !e.del[k] {
			b.WriteString(l)
		}
		b.WriteString(strings.Join(e.ins[k+1], ""))
		k++
	}
	return []byte(b.String())
}

// patchAnswers rewrites each whole-program wrong answer and alternative
// of c as a patch beside it (ToPatch), and removes the program; with
// dryRun it writes nothing. An answer ToPatch cannot rewrite is kept
// whole, with why.
func patchAnswers(c *course.Course, dryRun bool) ([]File, error) {
	var out []File
	for _, x := range c.Exercises {
		answers, err := wrong.List(c, x)
		if err != nil {
			return out, err
		}
		for _, a := range answers {
			if a.IsPatch() {
				continue
			}
			f := File{Exercise: x.ID, Solution: x.Solution, Student: a.Path}
			patch, err := convert(c, x, a)
			if err != nil {
				f.State, f.Why = KeptWhole, err.Error()
				out = append(out, f)
				continue
			}
			f.State, f.Student, f.Why = Patched, path.Join(path.Dir(a.Path), a.Stem()+wrong.PatchExt), a.Path
			if !dryRun {
				if err := writeIn(c.Root, f.Student, patch); err != nil {
					return out, fmt.Errorf("generate %s: %w", f.Student, err)
				}
				if err := safefs.Remove(c.Root, a.Path); err != nil {
					return out, fmt.Errorf("generate %s: %w", f.Student, err)
				}
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// convert is ToPatch of answer a, read from the course, a wrong answer's
// expected text checked first.
func convert(c *course.Course, x *course.Exercise, a wrong.Answer) ([]byte, error) {
	prog, err := safefs.ReadFile(c.Root, a.Path)
	if err != nil {
		return nil, err
	}
	switch {
	case a.Unseen:
		if _, err := wrong.ParseUnseen(a.Path, prog); err != nil {
			return nil, err
		}
	case !a.Right:
		if _, err := wrong.ParseExpect(a.Path, prog); err != nil {
			return nil, err
		}
	}
	src, err := safefs.ReadFile(c.Root, x.Solution)
	if err != nil {
		return nil, err
	}
	return ToPatch(x.Solution, src, prog)
}
