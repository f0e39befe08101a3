package lms

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits bound what reading an archive may unpack. The sizes count the
// bytes actually inflated, never the sizes an archive claims.
type Limits struct {
	Entries  int   // files, those of nested zips included
	Total    int64 // bytes of every file together
	PerEntry int64 // bytes of one file; a larger one is refused
	Ratio    int64 // inflated to compressed, for entries over 64 KiB; a larger one is refused
	Depth    int   // zips inside the zip (1: a student's zip inside the class's)
	// EntriesEach and TotalEach bound one student's part of a download
	// (their top-level entries, as the LMS named them, zips opened):
	// a student over either has their entries refused and listed, and
	// the rest of the class is read. 0: no bound of its own.
	EntriesEach int
	TotalEach   int64
}

// DefaultLimits are far above a class of source files (300 students
// with a few files each is a few MB) and far below a full disk.
// One file is at most 4 MiB: grade takes sources of 1 MiB, and a
// student's zip of them fits; a larger file (a report, a video) is listed
// as refused and never read.
// One student's hand-in is at most 2,000 files and 32 MiB, so that no
// one student's upload reaches the download's own bounds.
var DefaultLimits = Limits{Entries: 50000, Total: 512 << 20, PerEntry: 4 << 20, Ratio: 200, Depth: 2, EntriesEach: 2000, TotalEach: 32 << 20}

// File is one file of a class's download.
type File struct {
	// Path is where it was, with slashes; a nested zip's files are under
	// the zip's own path ("smithjohn_1_2_day070.zip/day070/pool.cu").
	Path string
	Data []byte
}

// LimitError is an archive over one of the Limits: reading stopped.
type LimitError struct {
	Archive, Entry string
	What           string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("unpack %s: at %q: %s: is it a zip bomb? unpack it by hand, or ask for the files again", e.Archive, e.Entry, e.What)
}

// ZipError is an archive that cannot be read, naming the entry.
type ZipError struct {
	Archive, Entry string
	Err            error
}

func (e *ZipError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("unpack %s: %v: is it a zip? download it again", e.Archive, e.Err)
	}
	return fmt.Sprintf("unpack %s: entry %q: %v: the archive is damaged; download it again", e.Archive, e.Entry, e.Err)
}

func (e *ZipError) Unwrap() error { return e.Err }

// unpacker reads files under one budget of Limits, and one of its own
// for each student, noting what it refuses.
type unpacker struct {
	lim     Limits
	archive string // the outermost archive or folder, for errors
	count   int
	total   int64
	files   []File
	refused []Note
	// keyOf names whose budget a file at a path is under, topOf the
	// top-level entry it is in.
	keyOf, topOf func(p string) string
	budgets      map[string]*budget
}

// budget is what one student's entries have used.
type budget struct {
	count int
	total int64
	over  bool
}

// budgetKeys says whose budget each path of a download is under, from
// the download's top-level names alone (what the LMS made): the student
// that group names under the download's layout, else the top-level
// entry itself.
func budgetKeys(names []string) (keyOf, topOf func(string) string) {
	files := make([]File, len(names))
	for i, n := range names {
		files[i] = File{Path: n}
	}
	prefix := ""
	if top := wrapper(files); top != "" {
		prefix = top + "/"
	}
	layout := detect(unwrap(files))
	keyOf = func(p string) string {
		q := strings.TrimPrefix(p, prefix)
		if k := group(q, layout); k != "" {
			return "\x00" + k
		}
		first, _, _ := strings.Cut(q, "/")
		return first
	}
	// The top-level entry of p, as the download names it.
	topOf = func(p string) string {
		first, _, _ := strings.Cut(strings.TrimPrefix(p, prefix), "/")
		return prefix + first
	}
	return keyOf, topOf
}

// spend counts one file of n bytes (n < 0: not read yet) against the
// budget of the student at p; false when that student is over it, and
// their files are dropped.
func (u *unpacker) spend(p string, n int64) bool {
	if u.keyOf == nil || (u.lim.EntriesEach <= 0 && u.lim.TotalEach <= 0) {
		return true
	}
	k := u.keyOf(p)
	b := u.budgets[k]
	if b == nil {
		b = &budget{}
		u.budgets[k] = b
	}
	if b.over {
		return false
	}
	why := ""
	if n < 0 {
		b.count++
		if u.lim.EntriesEach > 0 && b.count > u.lim.EntriesEach {
			why = fmt.Sprintf("more than %d files", u.lim.EntriesEach)
		}
	} else {
		b.total += n
		if u.lim.TotalEach > 0 && b.total > u.lim.TotalEach {
			why = fmt.Sprintf("more than %d bytes", u.lim.TotalEach)
		}
	}
	if why == "" {
		return true
	}
	// Over: none of this student's files is kept, what they used is
	// given back to the download's budget, and their entries' notes are
	// this one.
	b.over = true
	u.count -= b.count
	u.total -= b.total
	notes := u.refused[:0]
	for _, n := range u.refused {
		if u.keyOf(n.File) != k {
			notes = append(notes, n)
		}
	}
	u.refused = append(notes, Note{Kind: Refused, File: u.topOf(p),
		Why: fmt.Sprintf("one student's hand-in holds %s (at %s): none of it is graded; the rest of the class is; unpack it by hand if it is real work", why, p)})
	kept := u.files[:0]
	for _, f := range u.files {
		if u.keyOf(f.Path) != k {
			kept = append(kept, f)
		}
	}
	u.files = kept
	return false
}

// dropped says whether the student at p went over their budget.
func (u *unpacker) dropped(p string) bool {
	if u.keyOf == nil {
		return false
	}
	b := u.budgets[u.keyOf(p)]
	return b != nil && b.over
}

// ReadZip reads the files of the zip at name, nested zips opened in
// place up to lim.Depth; what it refuses to unpack (links, paths that
// leave the folder, files over a limit, zips too deep) is in the notes.
func ReadZip(name string, lim Limits) ([]File, []Note, error) {
	u := &unpacker{lim: lim, archive: name}
	// Read in place: a class's download may be larger than memory.
	zr, err := zip.OpenReader(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, err
		}
		return nil, nil, &ZipError{Archive: name, Err: err}
	}
	defer zr.Close()
	// The budgets' keys come from the files alone, as Arrange reads the
	// download: a folder's own entry (zip -r writes "submissions/" and
	// "submissions/alice/"), a link or a device would otherwise hide the
	// wrapper folder, and every student would share one budget.
	var names []string
	for _, f := range zr.File {
		if p, why := safePath(entryName(f)); why == "" && f.Mode().IsRegular() && !strings.HasSuffix(p, "/") {
			names = append(names, p)
		}
	}
	u.budgets = map[string]*budget{}
	u.keyOf, u.topOf = budgetKeys(names)
	if err := u.entries(&zr.Reader, "", 0); err != nil {
		return nil, nil, err
	}
	return u.files, u.refused, nil
}

// ReadFolder reads the files under dir (a download unpacked by hand):
// links and odd files are refused, zips opened as in ReadZip.
func ReadFolder(dir string, lim Limits) ([]File, []Note, error) {
	u := &unpacker{lim: lim, archive: dir, budgets: map[string]*budget{}}
	// The budgets' keys, as in ReadZip, from the regular files under dir:
	// its top-level names alone would not show a wrapper folder
	// (dir/submissions/alice/...), and its students would share one budget.
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if rel, err := filepath.Rel(dir, p); err == nil {
				names = append(names, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	u.keyOf, u.topOf = budgetKeys(names)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case p == dir:
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			_, err := u.refuseEntry(rel, "a link, not a file: hand in the file itself")
			return err
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			_, err := u.refuseEntry(rel, "not a regular file")
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		if st.Size() > u.lim.PerEntry {
			_, err := u.refuseEntry(rel, fmt.Sprintf("%d bytes, over the limit of %d", st.Size(), u.lim.PerEntry))
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return u.add(rel, f, 0)
	})
	if err != nil {
		return nil, nil, err
	}
	return u.files, u.refused, nil
}

func (u *unpacker) refuse(p, why string) {
	u.refused = append(u.refused, Note{Kind: Refused, File: p, Why: why})
}

// refuseEntry refuses an entry of the download (a link, a path that
// leaves the folder, a file over a limit) as refuse does, and counts it
// as a file of its student's hand-in and of the download: a student's
// zip of 30,000 links made 30,000 lines of the report, and cost nothing.
// false: the student is over their budget (their notes are one), or the
// download over its own (err).
func (u *unpacker) refuseEntry(p, why string) (bool, error) {
	u.count++
	if !u.spend(p, -1) {
		return false, nil
	}
	if u.count > u.lim.Entries {
		return false, &LimitError{Archive: u.archive, Entry: p, What: fmt.Sprintf("more than %d files", u.lim.Entries)}
	}
	u.refuse(p, why)
	return true, nil
}

// zip reads an archive whose files go under prefix, depth zips deep.
func (u *unpacker) zip(data []byte, prefix string, depth int) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return &ZipError{Archive: u.where(prefix), Err: err}
	}
	return u.entries(zr, prefix, depth)
}

func (u *unpacker) entries(zr *zip.Reader, prefix string, depth int) error {
	for _, f := range zr.File {
		if u.dropped(prefix) {
			return nil
		}
		name := entryName(f)
		p, why := safePath(name)
		full := prefix + p
		mode := f.Mode()
		switch {
		case why != "":
			full = prefix + name
		case mode&fs.ModeSymlink != 0:
			why = "a link in the archive: hand in the file itself"
		case mode.IsDir() || strings.HasSuffix(name, "/"):
			continue
		case !mode.IsRegular():
			why = "not a regular file"
		case f.UncompressedSize64 > uint64(u.lim.PerEntry):
			why = fmt.Sprintf("%d bytes, over the limit of %d", f.UncompressedSize64, u.lim.PerEntry)
		case f.UncompressedSize64 > 64<<10 && f.UncompressedSize64 > uint64(u.lim.Ratio)*max(f.CompressedSize64, 1):
			why = fmt.Sprintf("compressed %d to 1, over the limit of %d to 1", f.UncompressedSize64/max(f.CompressedSize64, 1), u.lim.Ratio)
		}
		if why != "" {
			if _, err := u.refuseEntry(full, why); err != nil {
				return err
			}
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return &ZipError{Archive: u.where(prefix), Entry: name, Err: err}
		}
		err = u.add(full, rc, depth)
		rc.Close()
		if err != nil {
			var ze *ZipError
			if errors.As(err, &ze) && ze.Entry == "" {
				ze.Entry = name
			}
			return err
		}
	}
	return nil
}

func (u *unpacker) where(prefix string) string {
	if prefix == "" {
		return u.archive
	}
	return u.archive + " › " + strings.TrimSuffix(prefix, "/")
}

// add reads one file (at most PerEntry bytes, within the totals) and
// opens it when it is a zip.
func (u *unpacker) add(p string, r io.Reader, depth int) error {
	u.count++
	if !u.spend(p, -1) {
		return nil
	}
	if u.count > u.lim.Entries {
		return &LimitError{Archive: u.archive, Entry: p, What: fmt.Sprintf("more than %d files", u.lim.Entries)}
	}
	data, err := io.ReadAll(io.LimitReader(r, u.lim.PerEntry+1))
	if err != nil {
		return &ZipError{Archive: u.archive, Entry: p, Err: err}
	}
	if int64(len(data)) > u.lim.PerEntry {
		// The header understated it.
		u.refuse(p, fmt.Sprintf("over the limit of %d bytes", u.lim.PerEntry))
		return nil
	}
	u.total += int64(len(data))
	if !u.spend(p, int64(len(data))) {
		return nil
	}
	if u.total > u.lim.Total {
		return &LimitError{Archive: u.archive, Entry: p, What: fmt.Sprintf("more than %d bytes in all", u.lim.Total)}
	}
	if !isZip(p, data) {
		u.files = append(u.files, File{Path: p, Data: data})
		return nil
	}
	if depth >= u.lim.Depth {
		u.refuse(p, fmt.Sprintf("a zip inside %d zips: unpack it and hand in the files", depth+1))
		return nil
	}
	// A student's damaged zip is theirs, not the class's: note it.
	before := len(u.files)
	if err := u.zip(data, p+"/", depth+1); err != nil {
		var ze *ZipError
		if u.dropped(p) {
			return nil
		}
		if errors.As(err, &ze) {
			u.files = u.files[:before]
			u.refuse(p, "a damaged zip: "+err.Error())
			return nil
		}
		return err
	}
	return nil
}

func isZip(p string, data []byte) bool {
	return strings.EqualFold(path.Ext(p), ".zip") && bytes.HasPrefix(data, []byte("PK\x03\x04"))
}

// safePath is name as a relative slash path that stays in its folder,
// or why it is refused.
func safePath(name string) (string, string) {
	n := strings.ReplaceAll(name, `\`, "/")
	switch {
	case strings.ContainsRune(n, 0):
		return "", "a name with a NUL byte"
	case strings.HasPrefix(n, "/"):
		return "", "an absolute path: it would leave the folder"
	case len(n) >= 2 && n[1] == ':':
		return "", "a drive letter: it would leave the folder"
	}
	var parts []string
	for _, part := range strings.Split(n, "/") {
		switch part {
		case "", ".":
			continue
		case "..":
			return "", "a path with ..: it would leave the folder"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "", "an empty name"
	}
	p := strings.Join(parts, "/")
	if strings.HasSuffix(n, "/") {
		p += "/"
	}
	return p, ""
}

// entryName is an entry's name in UTF-8: the Info-ZIP Unicode path when
// the archive has one for this name, the name as is when it is UTF-8
// (flagged or not: many tools write UTF-8 without the flag), else the
// name read as code page 437, the zip format's own default.
func entryName(f *zip.File) string {
	if u, ok := unicodePath(f.Extra, f.Name); ok {
		return u
	}
	if !f.NonUTF8 || utf8.ValidString(f.Name) {
		return f.Name
	}
	return decodeCP437(f.Name)
}

// unicodePath reads the Info-ZIP Unicode Path extra field (0x7075),
// valid when its CRC is that of the name it stands for.
func unicodePath(extra []byte, raw string) (string, bool) {
	for len(extra) >= 4 {
		tag := binary.LittleEndian.Uint16(extra)
		size := int(binary.LittleEndian.Uint16(extra[2:]))
		extra = extra[4:]
		if size > len(extra) {
			return "", false
		}
		field := extra[:size]
		extra = extra[size:]
		if tag != 0x7075 || len(field) < 5 || field[0] != 1 {
			continue
		}
		if binary.LittleEndian.Uint32(field[1:]) != crc32.ChecksumIEEE([]byte(raw)) {
			continue
		}
		if name := string(field[5:]); utf8.ValidString(name) {
			return name, true
		}
	}
	return "", false
}

// cp437 is the upper half of code page 437.
const cp437 = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0"

var cp437Runes = []rune(cp437)

func decodeCP437(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x80 {
			b.WriteByte(c)
		} else {
			b.WriteRune(cp437Runes[c-0x80])
		}
	}
	return b.String()
}
