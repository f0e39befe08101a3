package lms

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Layout is how a download names its students' files.
type Layout string

const (
	Canvas  Layout = "canvas"  // smithjohn_late_12345_678_file-1.cu
	Moodle  Layout = "moodle"  // John Smith_123456_assignsubmission_file_/file.cu
	Folders Layout = "folders" // alice/file.cu
)

// NoteKind says what became of a file that was not graded.
type NoteKind string

const (
	Unmatched  NoteKind = "unmatched"  // matched to no exercise
	Superseded NoteKind = "superseded" // another file was kept for its exercise
	Refused    NoteKind = "refused"    // not unpacked (a link, a path out, over a limit)
	Ignored    NoteKind = "ignored"    // an archiver's own file (__MACOSX, .DS_Store)
	Stray      NoteKind = "stray"      // a file that names no student
)

// Note is a file that was not graded, and why: none is dropped silently.
type Note struct {
	Kind    NoteKind
	Student string // "" when it names none
	File    string // as the download named it
	Why     string
}

// submission is one student's files as the download names them.
type submission struct {
	name   string // the LMS's name for them: smithjohn, John Smith, alice
	lmsID  string // Canvas's user id, Moodle's participant id
	handle string // the prefix of their files' names, for feedback
	late   bool
	files  []cand
}

// cand is a file of a submission, a candidate for an exercise.
type cand struct {
	path  string // in the download
	rel   string // within the submission, as handed in (re-upload suffix gone)
	data  []byte
	rev   int   // Canvas's -N: later uploads are larger
	order int64 // Canvas's submission id: later ones are larger
}

var (
	canvasRE = regexp.MustCompile(`^([^_/]+)_(?:(late|LATE)_)?([0-9]+)_([0-9]+)_(.+)$`)
	// moodleMark is what Moodle puts after a student's full name: the
	// participant id and the plugin, then the student's own file name
	// (a download without folders) or nothing (a folder per student).
	moodleMark = regexp.MustCompile(`^_([0-9]+)_(assignsubmission|assignfeedback)_([a-z]+)_`)
	revRE      = regexp.MustCompile(`^(.+)-([0-9]+)(\.[^.]*)?$`)
)

// junk is an archiver's own file, or a hidden one at the top (.git/),
// never a student's.
func junk(p string) bool {
	base := path.Base(p)
	return strings.HasPrefix(p, "__MACOSX/") || strings.HasPrefix(p, ".") || strings.Contains(p, "/__MACOSX/") ||
		base == ".DS_Store" || base == "Thumbs.db" || base == "desktop.ini" || strings.HasPrefix(base, "._")
}

// moodleEntry is a top-level name of a Moodle download, read.
type moodleEntry struct {
	name, id, rest string
	// ambiguous: the name holds Moodle's mark more than once and is no
	// folder Moodle made, so which part Moodle wrote and which the student
	// (their display name, their file's name) cannot be told: it stands
	// for no one.
	ambiguous bool
}

// parseMoodle reads a top-level name as Moodle makes them: "Full
// Name_id_assignsubmission_file_" for a folder (the mark ends the name:
// the last one is Moodle's), "Full Name_id_assignsubmission_file_x.cu"
// for a file (the student named x.cu: a name with two marks is
// ambiguous, never read as the second one's id).
func parseMoodle(first string, folder bool) (moodleEntry, bool) {
	var cands []moodleEntry
	var ends []int
	for i := 1; i < len(first); i++ {
		if first[i] != '_' {
			continue
		}
		if m := moodleMark.FindStringSubmatchIndex(first[i:]); m != nil {
			cands = append(cands, moodleEntry{name: first[:i], id: first[i+m[2] : i+m[3]], rest: first[i+m[1]:]})
			ends = append(ends, i+m[1])
		}
	}
	switch {
	case len(cands) == 0:
		return moodleEntry{}, false
	case folder && ends[len(ends)-1] == len(first):
		return cands[len(cands)-1], true
	case len(cands) == 1:
		return cands[0], true
	}
	e := cands[0]
	e.ambiguous = true
	return e, true
}

// tops are the first path parts of files (the names the LMS made), each
// with whether it holds files (a folder, or a zip that was opened).
func tops(files []File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		if junk(f.Path) {
			continue
		}
		first, _, nested := strings.Cut(f.Path, "/")
		out[first] = out[first] || nested
	}
	return out
}

// detect says which layout a download follows, from the names the LMS
// made alone: each top-level name votes once, and a student's votes
// count once (Canvas's user id, Moodle's participant id), so neither the
// entries of a student's zip nor a student's many uploads decide it.
// Canvas's prefix is strict (a name without '_', then numbers), so a name
// it matches is Canvas's whatever the student's file is called.
func detect(files []File) Layout {
	canvas, moodle, other := map[string]bool{}, map[string]bool{}, 0
	for first, nested := range tops(files) {
		if m := canvasRE.FindStringSubmatch(first); m != nil {
			canvas[m[3]] = true
			continue
		}
		if e, ok := parseMoodle(first, nested); ok {
			moodle[e.id] = true
			continue
		}
		other++
	}
	n := len(canvas) + len(moodle) + other
	switch {
	case n > 0 && len(moodle)*2 > n:
		return Moodle
	case n > 0 && len(canvas)*2 > n:
		return Canvas
	}
	return Folders
}

// unwrap drops one folder that holds everything, when everything under
// it is in folders of its own (submissions/alice/x.cu), so that a zip of
// the class's folder reads as the folder.
func unwrap(files []File) []File {
	top := wrapper(files)
	if top == "" {
		return files
	}
	out := make([]File, 0, len(files))
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f.Path, top+"/"); ok {
			f.Path = rest
		}
		out = append(out, f)
	}
	return out
}

// wrapper is the folder unwrap drops, or "".
func wrapper(files []File) string {
	top := ""
	for _, f := range files {
		if junk(f.Path) {
			continue
		}
		first, rest, ok := strings.Cut(f.Path, "/")
		if !ok || (top != "" && first != top) {
			return ""
		}
		top = first
		if detect([]File{{Path: rest}}) == Folders && !strings.Contains(rest, "/") {
			return ""
		}
	}
	return top
}

// group is the key split files the student of download path p under,
// or "" when p names no student.
func group(p string, layout Layout) string {
	first, _, nested := strings.Cut(p, "/")
	switch layout {
	case Canvas:
		if m := canvasRE.FindStringSubmatch(first); m != nil {
			return m[1] + "_" + m[3]
		}
	case Moodle:
		if e, ok := parseMoodle(first, nested); ok && !e.ambiguous {
			return e.id
		}
	default:
		if nested {
			return first
		}
	}
	return ""
}

// split groups files by student, as layout names them; what names no
// student, or is an archiver's, goes to the notes.
func split(files []File, layout Layout) (map[string]*submission, []Note) {
	subs := map[string]*submission{}
	var notes []Note
	get := func(key string) *submission {
		s := subs[key]
		if s == nil {
			s = &submission{}
			subs[key] = s
		}
		return s
	}
	for _, f := range files {
		if junk(f.Path) {
			notes = append(notes, Note{Kind: Ignored, File: f.Path, Why: "an archiver's own file"})
			continue
		}
		first, rest, nested := strings.Cut(f.Path, "/")
		switch layout {
		case Canvas:
			m := canvasRE.FindStringSubmatch(first)
			if m == nil {
				notes = append(notes, Note{Kind: Stray, File: f.Path, Why: "not named as Canvas names a student's file (name_userid_submissionid_file)"})
				continue
			}
			s := get(group(f.Path, layout))
			s.name, s.lmsID, s.late = m[1], m[3], s.late || m[2] != ""
			s.handle = m[1] + "_" + m[3] + "_" + m[4]
			c := cand{path: f.Path, data: f.Data}
			c.order, _ = strconv.ParseInt(m[4], 10, 64)
			c.rel, c.rev = m[5], 0
			if r := revRE.FindStringSubmatch(m[5]); r != nil {
				c.rel = r[1] + r[3]
				c.rev, _ = strconv.Atoi(r[2])
			}
			if nested {
				c.rel += "/" + rest
			}
			s.files = append(s.files, c)
		case Moodle:
			e, ok := parseMoodle(first, nested)
			if !ok {
				notes = append(notes, Note{Kind: Stray, File: f.Path, Why: "not named as Moodle names a student's files (Full Name_id_assignsubmission_file_)"})
				continue
			}
			if e.ambiguous {
				notes = append(notes, Note{Kind: Stray, File: f.Path, Why: "Moodle's mark (_id_assignsubmission_) is in it twice: whose it is cannot be told; ask the student to hand it in under another name"})
				continue
			}
			s := get(group(f.Path, layout))
			s.name, s.lmsID, s.handle = e.name, e.id, e.name+"_"+e.id
			rel := e.rest
			if nested {
				rel = path.Join(rel, rest)
			}
			if rel == "" {
				notes = append(notes, Note{Kind: Stray, Student: e.name, File: f.Path, Why: "a file with no name"})
				continue
			}
			s.files = append(s.files, cand{path: f.Path, rel: rel, data: f.Data})
		default:
			if !nested {
				notes = append(notes, Note{Kind: Stray, File: f.Path, Why: "not in a student's folder"})
				continue
			}
			s := get(group(f.Path, layout))
			// A zip of zips, one a student: alice.zip is alice.
			s.name = first
			if ext := path.Ext(first); strings.EqualFold(ext, ".zip") && len(first) > len(ext) {
				s.name = strings.TrimSuffix(first, ext)
			}
			s.files = append(s.files, cand{path: f.Path, rel: rest, data: f.Data})
		}
	}
	for _, s := range subs {
		sort.Slice(s.files, func(i, j int) bool { return s.files[i].path < s.files[j].path })
	}
	return subs, notes
}
