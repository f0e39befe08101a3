package lms

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/roster"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/ui"
)

// Class is a download arranged as grade reads a class: a folder per
// student, each exercise's file where grade looks for it.
type Class struct {
	Dir    string
	Layout Layout
	// People are the students, by folder name: the roster's, with what
	// the download said of them (their LMS id, how it named their files).
	People   []gradebook.Person
	Files    int      // files kept for grading
	ByOther  int      // of those, matched by a loose name or by content
	Notes    []Note   // files not kept, and why
	Missing  []string // on the roster with no file: an empty folder, graded missing
	Late     []string // handed in late, as the LMS flagged it
	Unlisted []string // handed in, not on the roster (when one was given)
}

// Options steer Arrange.
type Options struct {
	Roster []gradebook.Person
	Limits Limits // DefaultLimits when zero
}

// IsDownload says whether src is something Arrange must turn into the
// folder-per-student layout: a zip, or a folder named as an LMS names
// its downloads. A folder per student, as grade reads today, is not.
func IsDownload(src string) bool {
	st, err := os.Stat(src)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return strings.EqualFold(filepath.Ext(src), ".zip")
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return false
	}
	var files []File
	for _, e := range ents {
		f := File{Path: e.Name()}
		if e.IsDir() {
			f.Path += "/"
		}
		files = append(files, f)
	}
	return detect(files) != Folders
}

// Arrange reads the download src (a zip, or a folder) and writes its
// students' files into out, a folder per student, each file where grade
// looks for its exercise's. Students are named by the roster's id when
// the roster has them, else by the name the LMS gives them.
func Arrange(src, out string, ts []Target, opts Options) (*Class, error) {
	lim := opts.Limits
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	var files []File
	var notes []Note
	var err error
	if st, serr := os.Stat(src); serr == nil && st.IsDir() {
		files, notes, err = ReadFolder(src, lim)
	} else {
		files, notes, err = ReadZip(src, lim)
	}
	if err != nil {
		return nil, err
	}
	files = unwrap(files)
	cl := &Class{Dir: out, Layout: detect(files)}
	subs, more := split(files, cl.Layout)
	notes = append(notes, more...)
	people, taken := join(subs, cl.Layout, opts.Roster)
	// What was refused or ignored before the files were split is still
	// someone's.
	keyOf := map[*submission]string{}
	for k, s := range taken {
		keyOf[s] = k
	}
	for i, n := range notes {
		if s := subs[group(n.File, cl.Layout)]; n.Student == "" && s != nil {
			notes[i].Student = keyOf[s]
		}
	}
	for _, key := range slices.Sorted(maps.Keys(people)) {
		p := people[key]
		cl.People = append(cl.People, p)
		// The key and the file names come from the download: every
		// write goes through safefs, so no name reaches outside out.
		if err := safefs.Local(key); err != nil {
			return nil, fmt.Errorf("arrange %s: student %q: %w", src, key, err)
		}
		if err := os.MkdirAll(filepath.Join(out, key), 0o755); err != nil {
			return nil, fmt.Errorf("arrange %s: %w", src, err)
		}
		s := taken[key]
		if s == nil {
			cl.Missing = append(cl.Missing, key)
			continue
		}
		if opts.Roster != nil && !onRoster(opts.Roster, key) {
			cl.Unlisted = append(cl.Unlisted, key)
		}
		if s.late {
			cl.Late = append(cl.Late, key)
		}
		kept, left := assign(key, s.files, ts)
		notes = append(notes, left...)
		for _, k := range kept {
			if err := safefs.WriteFile(out, key+"/"+k.dest, k.c.data, 0o644); err != nil {
				return nil, fmt.Errorf("arrange %s: %w", src, err)
			}
			cl.Files++
			if k.by < byName {
				cl.ByOther++
			}
		}
	}
	sort.SliceStable(notes, func(i, j int) bool {
		if notes[i].Student != notes[j].Student {
			return notes[i].Student < notes[j].Student
		}
		return notes[i].File < notes[j].File
	})
	cl.Notes = notes
	return cl, nil
}

func onRoster(r []gradebook.Person, id string) bool {
	for _, p := range r {
		if p.ID == id {
			return true
		}
	}
	return false
}

// join names each submission: the roster's student it is (by LMS id,
// by folder name, id or email, then by name when only one student has
// it), else a name of its own from the LMS's. Every roster student is
// in people; taken says whose files are whose.
func join(subs map[string]*submission, layout Layout, listed []gradebook.Person) (people map[string]gradebook.Person, taken map[string]*submission) {
	people, taken = map[string]gradebook.Person{}, map[string]*submission{}
	byLMS, exact, byID, byName := map[string]int{}, map[string]int{}, map[string]int{}, map[string][]int{}
	for i, p := range listed {
		people[p.ID] = p
		exact[p.ID] = i
		if p.LMSID != "" {
			byLMS[p.LMSID] = i
		}
		byID[strings.ToLower(p.ID)] = i
		if p.Email != "" {
			byID[strings.ToLower(p.Email)] = i
		}
		if p.Login != "" {
			byID[strings.ToLower(p.Login)] = i
		}
		for _, k := range nameKeys(p.Name) {
			if k != "" && !slices.Contains(byName[k], i) {
				byName[k] = append(byName[k], i)
			}
		}
	}
	// Each submission claims the roster's student it is: by LMS id, by
	// folder name, then by name. A claim holds only when no other
	// submission makes it as strongly: two submissions naming one student
	// (a display name changed to a classmate's, two folders of one id)
	// leave that student to neither, so that no one's entry stands for
	// another's, whatever order their names sort in.
	keys := slices.Sorted(maps.Keys(subs))
	claim := map[string]int{}
	for pass := 0; pass < 4; pass++ {
		want := map[int][]string{}
		for _, k := range keys {
			s := subs[k]
			if _, done := claim[k]; done {
				continue
			}
			i, ok := -1, false
			switch pass {
			case 0:
				if s.lmsID != "" {
					i, ok = byLMS[s.lmsID]
				}
			case 1:
				if layout == Folders {
					i, ok = exact[s.name]
				}
			case 2:
				if layout == Folders {
					i, ok = byID[strings.ToLower(s.name)]
				}
			case 3:
				if c := byName[nameKeys(s.name)[0]]; len(c) == 1 {
					i, ok = c[0], true
				}
			}
			if ok {
				want[i] = append(want[i], k)
			}
		}
		for i, ks := range want {
			if len(ks) == 1 && taken[listed[i].ID] == nil {
				claim[ks[0]] = i
				taken[listed[i].ID] = subs[ks[0]]
			}
		}
	}
	for _, k := range keys {
		s := subs[k]
		if i, ok := claim[k]; ok {
			p := listed[i]
			if p.LMSID == "" && layout == Canvas {
				p.LMSID = s.lmsID
			}
			if p.Name == "" {
				p.Name = text(s.name)
			}
			p.LMS, p.Handle = lmsName(layout), s.handle
			people[p.ID] = p
			continue
		}
		base := ownKey(s, layout)
		if base == "" {
			base = "student" // a name of nothing a folder name can hold
		}
		// A folder name is taken whatever its case (a Mac's disk, and the
		// roster.csv written back, which roster.Read reads so), and none
		// is the class server's instructor.
		used := func(k string) bool {
			for id := range people {
				if strings.EqualFold(id, k) {
					return true
				}
			}
			return !roster.ValidID(k)
		}
		key := base
		if used(key) && s.lmsID != "" {
			key = roster.Key(base + "-" + s.lmsID)
		}
		short := base // room for the number, within Key's 64 bytes
		if len(short) > 56 {
			short = strings.Trim(short[:56], "-.")
		}
		for n := 2; used(key); n++ {
			key = fmt.Sprintf("%s-%d", short, n)
		}
		people[key] = gradebook.Person{ID: key, Name: text(s.name), LMSID: s.lmsID, LMS: lmsName(layout), Handle: s.handle}
		taken[key] = s
	}
	return people, taken
}

func lmsName(l Layout) string {
	if l == Folders {
		return ""
	}
	return string(l)
}

// ownKey is a student's folder name from what the LMS calls them.
func ownKey(s *submission, layout Layout) string {
	if layout == Moodle {
		return roster.Key(strings.ToLower(strings.Join(strings.Fields(s.name), "-")))
	}
	return roster.Key(s.name)
}

// WriteReport says what Arrange did: how many students and files, and
// every file not kept with why, every student missing, late or not on
// the roster.
func (c *Class) WriteReport(w io.Writer) error {
	handedIn := len(c.People) - len(c.Missing)
	fmt.Fprintf(w, "%s download: %d students handed in %d files for grading", layoutTitle(c.Layout), handedIn, c.Files)
	if c.ByOther > 0 {
		fmt.Fprintf(w, " (%d matched to their exercise by content or a changed name)", c.ByOther)
	}
	fmt.Fprintf(w, "; %d not graded.\n", len(c.Notes))
	for _, n := range c.Notes {
		who := n.Student
		if who == "" {
			who = "-"
		}
		fmt.Fprintf(w, "  %-10s %s: %s: %s\n", n.Kind, text(who), text(n.File), text(n.Why))
	}
	list := func(what string, ids []string) {
		if len(ids) > 0 {
			fmt.Fprintf(w, "%s (%d): %s\n", what, len(ids), text(strings.Join(ids, ", ")))
		}
	}
	list("Missing, on the roster with no file", c.Missing)
	list("Late, as the LMS flagged it", c.Late)
	list("Not on the roster", c.Unlisted)
	return nil
}

// text is a name from the download (what a student uploaded, what they
// call themselves) as it may be printed: on one line, with no escape
// sequence or other control character.
func text(s string) string {
	return strings.ReplaceAll(ui.Printable(s), "\n", "\uFFFD")
}

func layoutTitle(l Layout) string {
	switch l {
	case Canvas:
		return "Canvas"
	case Moodle:
		return "Moodle"
	}
	return "Folder-per-student"
}
