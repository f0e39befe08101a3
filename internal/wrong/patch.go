package wrong

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/cudalessons/lessons/diag"
)

// PatchExt ends the name of an answer kept as a patch against its
// solution: its header comment (the expected text first, as in a whole
// program, then why it is wrong), a blank line, then a unified diff of
// the solution file as it is on disk, markers included, named from the
// course's root (--- a/solutions/day070/x.cu, +++ b/solutions/day070/x.cu),
// as git diff writes it: git apply and patch -p1 take it from the root.
const PatchExt = ".patch"

// fixStale is what to do when a hunk no longer applies.
const fixStale = "the solution changed where this mistake is made: make it again in the solution as it is now " +
	"(edit the hunk; or write the whole program beside the patch, remove the patch, and run lessons generate --wrong-patches), " +
	"or remove the answer if the solution no longer allows the mistake"

// gitdiffLineRE is the line number go-gitdiff puts in its errors.
var gitdiffLineRE = regexp.MustCompile(`^gitdiff: line (\d+): `)

// Apply is the program that the patch in file (its content patch) makes
// of the solution sol (its path from the course's root, its content
// src). The patch must change sol and nothing else: a path outside the
// course, another file of it, a new, deleted, renamed or binary file is
// refused. Each hunk applies as git apply applies it: every context and
// removed line as the hunk has it, at the hunk's line or, when the
// solution gained or lost lines above it, the nearest place below the
// hunk before it where they all are. A hunk that fits nowhere is an
// error at its line of file, saying which solution line differs.
func Apply(file string, patch []byte, sol string, src []byte) ([]byte, error) {
	bad := func(line int, msg, fix string) error {
		return &diag.Error{File: file, Line: line, Msg: msg, Fix: fix}
	}
	files, preamble, err := gitdiff.Parse(bytes.NewReader(patch))
	if err != nil {
		line, msg := 0, err.Error()
		if m := gitdiffLineRE.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = msg[len(m[0]):]
		}
		return nil, bad(line, "not a unified diff: "+msg, "make it again with git diff (or diff -u) of "+sol)
	}
	raw := strings.SplitAfter(string(patch), "\n")
	if len(files) == 0 {
		return nil, bad(len(raw), "holds no diff", "after its header comment, a blank line and a unified diff of "+sol+" (--- a/"+sol+", +++ b/"+sol+", then @@ hunks)")
	}
	f := files[0]
	first := strings.Count(preamble, "\n")
	oldAt, newAt := headerLines(raw, first)
	hunks, end := hunkLines(raw, newAt, f.TextFragments)
	switch {
	case len(files) > 1:
		return nil, bad(end+1, fmt.Sprintf("changes a second file, %s", files[1].NewName), "a wrong answer's patch changes its solution, "+sol+", and nothing else")
	case f.IsNew || f.IsDelete || f.IsRename || f.IsCopy || f.IsBinary:
		return nil, bad(first+1, "creates, deletes, renames, copies or replaces a whole file", "a wrong answer's patch changes lines of its solution, "+sol)
	}
	for _, h := range []struct {
		at     int
		prefix string
	}{{oldAt, "a/"}, {newAt, "b/"}} {
		if h.at < 0 {
			return nil, bad(first+1, "names no file (--- and +++ lines)", "name the solution: --- a/"+sol+" and +++ b/"+sol)
		}
		name := headerName(raw[h.at])
		if strings.TrimPrefix(name, h.prefix) != sol {
			return nil, bad(h.at+1, fmt.Sprintf("the patch is of %q, not of its exercise's solution %s; lessons applies a wrong answer to its solution and reads nothing else", name, sol),
				"name the solution from the course's root: "+h.prefix+sol)
		}
	}
	if len(f.TextFragments) == 0 {
		return nil, bad(newAt+1, "changes no line of "+sol, "a wrong answer differs from its solution: add its hunks, or remove it")
	}
	return applyHunks(src, f.TextFragments, func(i int, msg string) error { return bad(hunks[i], msg, fixStale) }, sol)
}

// headerLines are the indexes in raw of the first --- line at or after
// first and of the +++ line after it, -1 for one not found.
func headerLines(raw []string, first int) (oldAt, newAt int) {
	oldAt, newAt = -1, -1
	for i := first; i < len(raw); i++ {
		switch {
		case oldAt < 0 && strings.HasPrefix(raw[i], "--- "):
			oldAt = i
		case oldAt >= 0 && strings.HasPrefix(raw[i], "+++ "):
			return oldAt, i
		case strings.HasPrefix(raw[i], "@@ "):
			return oldAt, -1
		}
	}
	return oldAt, -1
}

// headerName is the name on a --- or +++ line: what is before a tab
// (diff -u puts the time there), without the marker.
func headerName(l string) string {
	name, _, _ := strings.Cut(strings.TrimRight(l[4:], "\r\n"), "\t")
	return strings.TrimSpace(name)
}

// hunkLines are the lines (from 1) of each fragment's @@ header in raw,
// found after the +++ line at index from, and the index of the line after
// the last hunk.
func hunkLines(raw []string, from int, frags []*gitdiff.TextFragment) (lines []int, end int) {
	i := from + 1
	for _, fr := range frags {
		for i < len(raw) && !strings.HasPrefix(raw[i], "@@ ") {
			i++
		}
		lines = append(lines, i+1)
		i += 1 + len(fr.Lines)
		for i < len(raw) && strings.HasPrefix(raw[i], `\`) {
			i++
		}
	}
	return lines, i
}

// applyHunks applies frags, in order, to src; stale says why hunk i fits
// nowhere.
func applyHunks(src []byte, frags []*gitdiff.TextFragment, stale func(i int, msg string) error, sol string) ([]byte, error) {
	have := strings.SplitAfter(string(src), "\n")
	if have[len(have)-1] == "" {
		have = have[:len(have)-1]
	}
	var out strings.Builder
	next, shift := 0, 0
	for i, fr := range frags {
		var old []string
		for _, l := range fr.Lines {
			if l.Old() {
				old = append(old, l.Line)
			}
		}
		// A hunk of lines added alone (-N,0) adds them after line N.
		stated := int(min(max(fr.OldPosition, 1), int64(len(have)+1))) - 1
		if fr.OldLines == 0 {
			stated = int(min(max(fr.OldPosition, 0), int64(len(have))))
		}
		want := min(max(stated+shift, next), len(have))
		at := find(have, old, want, next)
		if at < 0 {
			return nil, stale(i, mismatch(have, old, want, i, sol))
		}
		for _, l := range have[next:at] {
			out.WriteString(l)
		}
		for _, l := range fr.Lines {
			if l.New() {
				out.WriteString(l.Line)
			}
		}
		next, shift = at+len(old), at-stated
	}
	for _, l := range have[next:] {
		out.WriteString(l)
	}
	return []byte(out.String()), nil
}

// find is the index nearest want, not before from, where have holds old,
// line for line; -1 when nowhere.
func find(have, old []string, want, from int) int {
	fits := func(at int) bool {
		if at < from || at+len(old) > len(have) {
			return false
		}
		for k, l := range old {
			if have[at+k] != l {
				return false
			}
		}
		return true
	}
	for d := 0; want-d >= from || want+d+len(old) <= len(have); d++ {
		if fits(want - d) {
			return want - d
		}
		if d > 0 && fits(want+d) {
			return want + d
		}
	}
	return -1
}

// mismatch says where hunk i's lines part from the solution at the
// place it was meant for.
func mismatch(have, old []string, want, i int, sol string) string {
	for k, l := range old {
		j := want + k
		if j >= len(have) {
			return fmt.Sprintf("hunk %d no longer applies to %s: it needs %d lines from line %d, and the file ends at line %d", i+1, sol, len(old), want+1, len(have))
		}
		if have[j] != l {
			return fmt.Sprintf("hunk %d no longer applies to %s: its line %d is %q where the hunk has %q, and the hunk's lines are nowhere else in it",
				i+1, sol, j+1, strings.TrimRight(have[j], "\r\n"), strings.TrimRight(l, "\r\n"))
		}
	}
	return fmt.Sprintf("hunk %d no longer applies to %s: it overlaps the hunk before it", i+1, sol)
}
