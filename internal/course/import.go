package course

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/safefs"
)

// imported is a notebook on its way into the course.
type imported struct {
	src  string
	day  int
	slug string
	l    *lesson.Lesson
	data []byte
}

var (
	dayInNameRE = regexp.MustCompile(`(?i)^(?:.*?day[\s_-]*)?0*(\d{1,4})(?:[\s_.-]+|$)`)
	slugRE      = regexp.MustCompile(`[^a-z0-9]+`)
)

// ImportOptions say what Import makes a course of, and where.
type ImportOptions struct {
	Sources []string // notebooks, or folders of them
	To      string   // ipynb: kept as they are; md: plain markdown
	Dir     string   // the course's folder
	Title   string   // "": the first lesson's
	Force   bool     // overwrite files that exist
	// Wrote is told of each file written: a lesson and the notebook it
	// came from, or course.toml ("") and how many lessons it names.
	Wrote func(path, from string, lessons int)
}

// Import makes a course of Jupyter notebooks: a course.toml and the
// lessons under lessons/ as dayNNN-slug, in the order given or, when
// every notebook's name holds a day number, in the order of those days.
// Notebooks that cannot be read are lesson errors, with nothing written;
// nothing that exists is overwritten unless Force.
func Import(opts ImportOptions) error {
	var files []string
	for _, s := range opts.Sources {
		st, err := os.Stat(s)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("import %s: no such file or folder", s)
		case err != nil:
			return fmt.Errorf("import %s: %w", s, err)
		case st.IsDir():
			in, _ := filepath.Glob(filepath.Join(s, "*.ipynb"))
			if len(in) == 0 {
				return fmt.Errorf("import %s: the folder holds no .ipynb notebook", s)
			}
			slices.Sort(in)
			files = append(files, in...)
		default:
			files = append(files, s)
		}
	}
	var nbs []*imported
	var errs lesson.Errors
	days := map[int]bool{}
	byDay := true
	for _, f := range files {
		data, err := safefs.ReadRegular(f, lesson.MaxIpynbBytes)
		if err != nil {
			return fmt.Errorf("import %s: %w", f, err)
		}
		if !lesson.IsText(data) {
			errs = append(errs, &lesson.Error{File: f, Msg: f + " is not a text lesson (it holds binary data)", Fix: "import Jupyter notebooks (.ipynb)"})
			continue
		}
		if !lesson.IsIpynb(f, data) {
			errs = append(errs, &lesson.Error{File: f, Msg: "not a Jupyter notebook", Fix: "import .ipynb files; a markdown lesson goes into course.toml as it is"})
			continue
		}
		l, err := lesson.ParseIpynb(f, data)
		if err == nil && l.Empty() {
			err = &lesson.Error{File: f, Msg: "the notebook is empty", Fix: "leave it out, or write the lesson in it first"}
		}
		if err != nil {
			errs = append(errs, lesson.AsErrors(err)...)
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		nb := &imported{src: f, l: l, data: data}
		rest := name
		if m := dayInNameRE.FindStringSubmatchIndex(name); m != nil {
			nb.day, _ = strconv.Atoi(name[m[2]:m[3]])
			rest = name[:m[0]] + name[m[1]:]
		}
		if nb.day == 0 || days[nb.day] {
			byDay = false
		}
		days[nb.day] = true
		nb.slug = strings.Trim(slugRE.ReplaceAllString(strings.ToLower(rest), "-"), "-")
		if nb.slug == "" {
			nb.slug = strings.Trim(slugRE.ReplaceAllString(strings.ToLower(l.Title), "-"), "-")
		}
		if nb.slug == "" {
			nb.slug = "lesson"
		}
		nb.slug = shortSlug(nb.slug, 28)
		nbs = append(nbs, nb)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	uniqueSlugs(nbs)
	if byDay {
		slices.SortStableFunc(nbs, func(a, b *imported) int { return a.day - b.day })
	} else {
		for i, nb := range nbs {
			nb.day = i + 1
		}
	}
	ext := ".ipynb"
	if opts.To == "md" {
		ext = ".md"
	}
	type out struct {
		rel  string
		data []byte
		from string
	}
	var outs []out
	var manifest strings.Builder
	title := opts.Title
	if title == "" {
		// The folder the notebooks came from names the course; the
		// first notebook's heading names only its lesson.
		title = TitleFromFolder(commonFolder(nbs))
		if st, err := os.Stat(opts.Sources[0]); err == nil && st.IsDir() && len(opts.Sources) == 1 {
			title = TitleFromFolder(opts.Sources[0])
		}
	}
	fmt.Fprintf(&manifest, "# Made by lessons import from %d notebooks.\ntitle = %q\n", len(nbs), title)
	for _, nb := range nbs {
		rel := fmt.Sprintf("lessons/day%03d-%s%s", nb.day, nb.slug, ext)
		data := nb.data
		if opts.To == "md" {
			data = lesson.PlainMarkdown(nb.l)
		}
		outs = append(outs, out{rel, data, nb.src})
		fmt.Fprintf(&manifest, "\n[[lesson]]\nfile = %q\n", rel)
	}
	outs = append(outs, out{ManifestName, []byte(manifest.String()), ""})
	if !opts.Force {
		var exist []string
		for _, o := range outs {
			if _, err := os.Lstat(filepath.Join(opts.Dir, o.rel)); err == nil {
				exist = append(exist, filepath.Join(opts.Dir, o.rel))
			}
		}
		if len(exist) > 0 {
			return fmt.Errorf("import: nothing written: %s already exist%s\n\tchoose another --dir, or overwrite with --force", strings.Join(exist, ", "), map[bool]string{true: "s", false: ""}[len(exist) == 1])
		}
	}
	if err := os.MkdirAll(filepath.Join(opts.Dir, "lessons"), 0o755); err != nil {
		return err
	}
	for _, o := range outs {
		if err := safefs.WriteFile(opts.Dir, o.rel, o.data, 0o644); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if opts.Wrote != nil {
			opts.Wrote(filepath.Join(opts.Dir, o.rel), o.from, len(nbs))
		}
	}
	return nil
}

// shortSlug cuts a slug to at most n characters at a dash, so that lessons
// list fits in 80 columns and the name is still words.
func shortSlug(slug string, n int) string {
	if len(slug) <= n {
		return slug
	}
	cut := strings.LastIndexByte(slug[:n+1], '-')
	if cut < n/2 {
		cut = n
	}
	return strings.Trim(slug[:cut], "-")
}

// uniqueSlugs makes the slugs of notebooks of one name from different
// folders (notebooks/reduction.ipynb, notebooks_cupy/reduction.ipynb)
// differ by their folder's name, else by a number: a slug names one
// lesson (lessons show reduction).
func uniqueSlugs(nbs []*imported) {
	count := map[string]int{}
	for _, nb := range nbs {
		count[nb.slug]++
	}
	taken := map[string]bool{}
	for _, nb := range nbs {
		if count[nb.slug] == 1 {
			taken[nb.slug] = true
		}
	}
	for _, nb := range nbs {
		if count[nb.slug] == 1 {
			continue
		}
		folder := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(filepath.Base(filepath.Dir(nb.src))), "-"), "-")
		try := shortSlug(folder+"-"+nb.slug, 28)
		for n := 2; folder == "" || taken[try]; n++ {
			folder = "-"
			try = shortSlug(nb.slug, 24) + "-" + strconv.Itoa(n)
		}
		taken[try] = true
		nb.slug = try
	}
}

// commonFolder is the deepest folder that holds every notebook.
func commonFolder(nbs []*imported) string {
	common := filepath.Dir(nbs[0].src)
	if abs, err := filepath.Abs(common); err == nil {
		common = abs
	}
	for _, nb := range nbs[1:] {
		dir, err := filepath.Abs(filepath.Dir(nb.src))
		if err != nil {
			continue
		}
		for common != dir && !strings.HasPrefix(dir, common+string(filepath.Separator)) && filepath.Dir(common) != common {
			common = filepath.Dir(common)
		}
	}
	return common
}
