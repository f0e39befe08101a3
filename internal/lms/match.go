package lms

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
)

// Target is an exercise as a handed-in file is matched to it.
type Target struct {
	ID   string
	Path string // where grade looks for it in a student's folder: day070/async_pipeline.cu
	// Extras are the spec's other files, beside Path, that a student may
	// hand in their own copy of.
	Extras []string
	// Marks are identifiers of its stub and solution that no other
	// exercise's have: a file holding most of them is this exercise's,
	// whatever its name.
	Marks []string
}

// Targets are the exercises of c, with their marks.
func Targets(c *course.Course) ([]Target, error) {
	var ts []Target
	words := map[string]map[string]bool{} // identifier -> exercises
	for _, x := range c.Exercises {
		t := Target{ID: x.ID, Path: strings.TrimPrefix(filepath.ToSlash(x.Student), "exercises/")}
		if spec, err := checker.LoadSpec(c.Path(x.Spec())); err == nil {
			for _, f := range spec.Files {
				t.Extras = append(t.Extras, path.Clean(filepath.ToSlash(f)))
			}
		}
		for _, f := range []string{x.Student, x.Solution} {
			data, err := os.ReadFile(c.Path(f))
			if err != nil {
				return nil, fmt.Errorf("read %s for exercise %s: %w", f, x.ID, err)
			}
			for w := range identifiers(data) {
				if words[w] == nil {
					words[w] = map[string]bool{}
				}
				words[w][x.ID] = true
			}
		}
		ts = append(ts, t)
	}
	for i := range ts {
		for w, xs := range words {
			if len(xs) == 1 && xs[ts[i].ID] {
				ts[i].Marks = append(ts[i].Marks, w)
			}
		}
		sort.Strings(ts[i].Marks)
	}
	return ts, nil
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{3,}`)

// common are words of C++ and CUDA that say nothing of which exercise a
// file is, even when only one exercise's files hold them.
var common = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`auto bool break case catch char class const constexpr continue default
		delete double else enum explicit extern false float inline long namespace nullptr operator private
		protected public return short signed sizeof static struct switch template this throw true typedef
		typename union unsigned using virtual void volatile while size_t uint64_t int64_t uint32_t int32_t
		uint8_t include define ifndef endif pragma once main argc argv printf fprintf stderr stdout std
		vector cout endl __global__ __device__ __host__ __shared__ threadIdx blockIdx blockDim gridDim
		cudaError_t cudaSuccess cudaGetErrorString cudaStream_t cudaDeviceSynchronize cudaStreamSynchronize
		CHECK TODO assert exit return malloc free memset memcpy`) {
		common[w] = true
	}
}

func identifiers(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, w := range identRE.FindAll(data, -1) {
		if s := string(w); !common[s] {
			out[s] = true
		}
	}
	return out
}

// Match kinds, strongest first.
const (
	byNothing = iota
	byContent // most of the exercise's marks are in it
	byLooseName
	byName
	byPath
)

// minMarks is the share of an exercise's marks a file must hold to be
// matched to it by content alone.
const minMarks = 0.4

// score says how well a file handed in as rel matches the file want:
// by path, by name, by a name as browsers and LMSs mangle it, or not.
func nameScore(rel, want string) int {
	switch {
	case rel == want || strings.HasSuffix(rel, "/"+want):
		return byPath
	case path.Base(rel) == path.Base(want):
		return byName
	case looseName(path.Base(rel)) == looseName(path.Base(want)):
		return byLooseName
	}
	return byNothing
}

var (
	copyRE  = regexp.MustCompile(`(?i)(\s*\(\d+\)|\s*-\s*copy(\s*\(\d+\))?|^copy of\s+|\s+copy$|-\d+$)`)
	spaceRE = regexp.MustCompile(`[\s\-]+`)
)

// looseName is a file name as it was before a browser or an LMS added
// " (1)", "-1" or "Copy of", or ".txt", case and spaces aside.
func looseName(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if strings.HasSuffix(name, ".txt") && strings.Contains(strings.TrimSuffix(name, ".txt"), ".") {
		name = strings.TrimSuffix(name, ".txt")
	}
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for {
		s := copyRE.ReplaceAllString(stem, "")
		if s == stem || s == "" {
			break
		}
		stem = s
	}
	return spaceRE.ReplaceAllString(stem, "_") + ext
}

// contentScore is the share of t's marks that data holds.
func contentScore(data []byte, t *Target) float64 {
	if len(t.Marks) == 0 || bytes.IndexByte(data, 0) >= 0 {
		return 0
	}
	have := identifiers(data)
	n := 0
	for _, m := range t.Marks {
		if have[m] {
			n++
		}
	}
	if n < 2 && len(t.Marks) >= 2 {
		return 0
	}
	return float64(n) / float64(len(t.Marks))
}

// placed is a file kept for a student: where it goes in their folder.
type placed struct {
	dest string // day070/async_pipeline.cu
	c    *cand
	by   int
}

// assign matches a student's files to the targets: for each target the
// file that matches it best (by path, name, loose name, then content;
// the latest upload among equals), each file used once; the others are
// noted.
func assign(student string, files []cand, ts []Target) ([]placed, []Note) {
	type pair struct {
		c     *cand
		t     int    // target index
		dest  string // Path, or an extra beside it
		by    int
		share float64
	}
	var pairs []pair
	for i := range files {
		c := &files[i]
		for ti := range ts {
			t := &ts[ti]
			if by := nameScore(c.rel, t.Path); by > byNothing {
				pairs = append(pairs, pair{c: c, t: ti, dest: t.Path, by: by})
				continue
			}
			for _, e := range t.Extras {
				want := path.Join(path.Dir(t.Path), e)
				if by := nameScore(c.rel, want); by > byNothing {
					pairs = append(pairs, pair{c: c, t: ti, dest: want, by: by})
				}
			}
			if s := contentScore(c.data, t); s >= minMarks {
				pairs = append(pairs, pair{c: c, t: ti, dest: t.Path, by: byContent, share: s})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		switch {
		case a.by != b.by:
			return a.by > b.by
		case a.share != b.share:
			return a.share > b.share
		case a.c.order != b.c.order:
			return a.c.order > b.c.order
		case a.c.rev != b.c.rev:
			return a.c.rev > b.c.rev
		}
		return a.c.path > b.c.path
	})
	used := map[*cand]bool{}
	filled := map[string]*cand{}
	var out []placed
	for _, p := range pairs {
		if used[p.c] || filled[p.dest] != nil {
			continue
		}
		used[p.c], filled[p.dest] = true, p.c
		out = append(out, placed{dest: p.dest, c: p.c, by: p.by})
	}
	var notes []Note
	for i := range files {
		c := &files[i]
		if used[c] {
			continue
		}
		n := Note{Kind: Unmatched, Student: student, File: c.path, Why: "matches no exercise by name or by content"}
		for _, p := range pairs {
			if p.c == c {
				n.Kind, n.Why = Superseded, fmt.Sprintf("another file was kept for %s: %s", ts[p.t].ID, filled[p.dest].path)
				break
			}
		}
		notes = append(notes, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dest < out[j].dest })
	return out, notes
}
