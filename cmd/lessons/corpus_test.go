package main

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/render"
	"github.com/cudalessons/lessons/internal/serve"
)

// TestNotebookCorpus takes each notebook of testdata/corpus (one for each
// dialect real courses write: a Colab export, nbdev's and Quarto's front
// matter, a CRLF lab of nbformat 4.2, nvcc4jupyter's magics, CuPy with
// timing magics) and, where $LESSONS_CORPUS names a folder, every
// notebook under it (bench/notebooks/corpus/fetch.sh gathers real
// course notebooks there), through import, show, lint, export --html,
// export --ipynb, serve and run --compile-only, counting cells and words
// in and out: nothing is lost. Import and export give the notebook back
// byte for byte; every word of its prose and code is in show, the site
// and the served page (front matter aside, which lint names); every
// code cell is run, built, or said not run; under --compile-only nothing
// but the builds runs (HOME is left as it was).
func TestNotebookCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.ipynb")
	if dir := os.Getenv("LESSONS_CORPUS"); dir != "" {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ipynb") && !strings.Contains(p, ".ipynb_checkpoints") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 5 {
		t.Fatalf("%d notebooks in the corpus", len(files))
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(fakeNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("LESSONS_GPU", "Fake GPU,9.0,85899345920")
	t.Setenv("LESSONS_CACHE", t.TempDir())
	t.Setenv("LESSONS_KERNEL", "none")
	t.Setenv("NO_COLOR", "1")
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "keep"), []byte("mine"), 0o644)
	t.Setenv("HOME", home)

	var total corpusCount
	var report []string
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			n := corpusNotebook(t, file)
			total.add(n)
			report = append(report, fmt.Sprintf("%-60s %4d cells %6d words: show %d, site %d, serve %d missing; %s", strings.TrimSuffix(name, ".ipynb"), n.cells, n.words, n.missShow, n.missSite, n.missServe, n.run))
		})
		if b, err := os.ReadFile(filepath.Join(home, "keep")); err != nil || string(b) != "mine" {
			t.Fatalf("%s: HOME was changed under --compile-only", name)
		}
		if entries, _ := os.ReadDir(home); len(entries) != 1 {
			t.Errorf("%s: something wrote into HOME under --compile-only: %d entries", name, len(entries))
		}
	}
	sort.Strings(report)
	summary := fmt.Sprintf("%d notebooks, %d cells, %d words in; %d words not in show, %d not in the site, %d not in the served page; %d kept byte for byte by import and export; %d cells run or built under --compile-only, %d named as not run, %d notebooks run in part",
		total.notebooks, total.cells, total.words, total.missShow, total.missSite, total.missServe, total.same, total.ran, total.notRun, total.partial)
	t.Log(summary)
	for _, r := range report {
		t.Log(r)
	}
	if out := os.Getenv("LESSONS_CORPUS_REPORT"); out != "" {
		os.WriteFile(out, []byte(summary+"\n"+strings.Join(report, "\n")+"\n"), 0o644)
	}
}

type corpusCount struct {
	notebooks, cells, words, missShow, missSite, missServe, same, ran, notRun, partial int
	run                                                                                string
}

func (c *corpusCount) add(n corpusCount) {
	c.notebooks++
	c.cells += n.cells
	c.words += n.words
	c.missShow += n.missShow
	c.missSite += n.missSite
	c.missServe += n.missServe
	c.same += n.same
	c.ran += n.ran
	c.notRun += n.notRun
	c.partial += n.partial
}

// corpusNotebook walks one notebook through every command.
func corpusNotebook(t *testing.T, file string) corpusCount {
	var n corpusCount
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Nbformat int `json:"nbformat"`
		Cells    []struct {
			Type   string          `json:"cell_type"`
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(src, &nb); err != nil {
		t.Skipf("not a notebook: %v", err)
	}
	in := map[string]bool{}
	for i, c := range nb.Cells {
		text := sourceText(c.Source)
		if i == 0 && (c.Type == "markdown" || c.Type == "raw") && strings.HasPrefix(text, "---") {
			text = dropFrontMatter(text) // not shown: lint names it
		}
		for w := range sourceWords(text, c.Type) {
			in[w] = true
		}
	}
	n.cells, n.words = len(nb.Cells), len(in)

	// import: the notebook, byte for byte
	dir := filepath.Join(t.TempDir(), "course")
	code, out, errOut := lessonsRun("import", file, "--dir", dir)
	if code != 0 {
		// refusals nbformat's reader makes too (its own test files: an
		// invalid cell type, a worksheet without cells), or of nothing
		refused := []string{"nbformat 2", "invalid JSON", "leaves the lesson's workspace", "the notebook is empty", "has no worksheets list", "nbformat 4 cells are markdown, code or raw"}
		if slices.ContainsFunc(refused, func(s string) bool { return strings.Contains(errOut, s) }) {
			t.Skipf("import refuses it, saying why: %s", errOut)
		}
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	c, err := course.Load(dir)
	if err != nil || len(c.Lessons) != 1 {
		t.Fatalf("the course imported: %v", err)
	}
	e := c.Lessons[0]
	if got, _ := os.ReadFile(c.Path(e.File)); string(got) != string(src) {
		t.Errorf("import changed the notebook")
	}
	l, err := c.Parse(e)
	if l == nil {
		t.Fatalf("parse: %v", err)
	}
	// every cell of the notebook is a cell of the model
	froms := map[*lesson.NotebookSource]bool{}
	for _, cell := range l.Cells {
		froms[cell.From] = true
	}
	if nb.Nbformat == 4 && len(froms) != len(nb.Cells) {
		t.Errorf("%d cells in the notebook, %d in the model", len(nb.Cells), len(froms))
	}

	// show: every word
	show := mustRun(t, "--course", dir, "show", e.Name(), "--plain", "--no-pager", "--width", showWidth())
	n.missShow = missing(t, "show", in, show)

	// lint runs, and names the front matter it does not show
	code, _, lintErr := lessonsRun("--course", dir, "lint")
	if code > 1 {
		t.Errorf("lint: exit %d\n%s", code, lintErr)
	}
	if l.FrontMatter != nil && !strings.Contains(lintErr, "front matter") {
		t.Errorf("lint does not name the front matter:\n%s", lintErr)
	}

	// export --html: every word in the lesson's page
	site := filepath.Join(t.TempDir(), "site")
	mustRun(t, "--course", dir, "export", "--html", site)
	page, err := os.ReadFile(filepath.Join(site, e.Name()+".html"))
	if err != nil {
		t.Fatal(err)
	}
	n.missSite = missing(t, "the site", in, pageText(string(page)))

	// export --ipynb: the notebook, byte for byte (it has no exercises)
	nbDir := filepath.Join(t.TempDir(), "nb")
	exported := mustRun(t, "--course", dir, "export", "--ipynb", nbDir)
	back, err := os.ReadFile(filepath.Join(nbDir, e.Name()+".ipynb"))
	switch {
	case err != nil:
		t.Fatal(err)
	case nb.Nbformat == 4 && string(back) != string(src):
		t.Errorf("export --ipynb changed the notebook:\n%s", exported)
	case nb.Nbformat == 4:
		n.same++
	case !strings.Contains(exported, "written anew"):
		t.Errorf("export --ipynb of an nbformat %d notebook does not say what it changed:\n%s", nb.Nbformat, exported)
	}

	// serve: the page as the server gives it
	srv := serve.New(func() (map[string][]byte, error) {
		c, err := course.Load(dir)
		if err != nil {
			return nil, err
		}
		return render.Site(c)
	})
	if err := srv.Err(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	hs := httptest.NewServer(srv)
	res, err := hs.Client().Get(hs.URL + "/" + e.Name() + ".html?token=" + srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	hs.Close()
	if res.StatusCode != 200 {
		t.Errorf("serve: %s", res.Status)
	}
	n.missServe = missing(t, "the served page", in, pageText(string(served)))

	// run --compile-only: each code cell built, run or said not run
	code, out, errOut = lessonsRun("--course", dir, "run", e.Name(), "--compile-only", "--keep-going", "--workspace", filepath.Join(t.TempDir(), "ws"))
	if code > 1 {
		t.Fatalf("run --compile-only: exit %d\n%s%s", code, out, errOut)
	}
	want := 0
	for _, cell := range l.Cells {
		if cell.Runnable() || cell.Kind == lesson.Code && cell.Note != "" && strings.Contains(cell.Note, ":") {
			want++
		}
	}
	m := regexp.MustCompile(`(?m)^(\d+) cells: (.*) in `).FindStringSubmatch(out)
	if want > 0 && (m == nil || m[1] != fmt.Sprint(want)) {
		t.Errorf("run --compile-only accounts for %v cells, the model has %d:\n%s", m, want, out)
	}
	if m != nil {
		n.run = m[2]
	}
	n.ran = strings.Count(out, "\n✓")
	n.notRun = strings.Count(out, "(not run: ") + strings.Count(out, "– not run: ")
	if strings.Contains(out, "run in part") {
		n.partial = 1
	}
	return n
}

// showWidth is the terminal's width show draws at: 120 columns (show's
// widest), or LESSONS_CORPUS_WIDTH (at 80, tables too wide are fitted by
// cutting their cells' words).
func showWidth() string {
	if w := os.Getenv("LESSONS_CORPUS_WIDTH"); w != "" {
		return w
	}
	return "120"
}

// sourceText is a cell's source, a string or a list of lines.
func sourceText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	json.Unmarshal(raw, &parts)
	return strings.Join(parts, "")
}

func dropFrontMatter(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	rest := strings.TrimPrefix(s, "---\n")
	if i := strings.Index(rest, "\n---"); i >= 0 && frontMatterLike(rest[:i]) {
		_, after, _ := strings.Cut(rest[i+1:], "\n")
		return after
	}
	return s
}

var yamlKey = regexp.MustCompile(`^["']?[A-Za-z0-9_][\w.-]*["']?:(\s|$)`)

func frontMatterLike(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" && !yamlKey.MatchString(line) && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

var (
	wordRE = regexp.MustCompile(`\p{L}[\p{L}\p{N}]{2,}`)
	// a fence's info string (```cpp) is not text a reader sees
	fenceRE   = regexp.MustCompile("^[\\s>*+-]*(```+|~~~+)")
	htmlTagRE = regexp.MustCompile(`(?s)<!--.*?-->|<[A-Za-z/!][^>]*>`)
	urlRE     = regexp.MustCompile(`!\[[^\]]*\]\((?:[^()"]|"[^"]*")*\)|!\[[^\]]*\]|&[A-Za-z]+;|(?:https?|ftp|attachment|data|mailto):[^\s)\]"'>]*|\]\([^)]*\)|^\s*\[[^\]]+\]:\s*\S+|[\w./-]+\.(?:png|svg|gif|jpe?g|ipynb)\b`)
	escapeRE  = regexp.MustCompile(`\\[a-z]`)
	scriptRE  = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)>`)
)

// sourceWords are the words of a cell's source a reader sees: markdown
// without its HTML tags, link targets and images' data; code lines
// shorter than a screenful (a longer one, a data literal, is shown cut).
func sourceWords(text, typ string) map[string]bool {
	words := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if typ != "markdown" && len(line) > 300 {
			continue
		}
		if typ == "markdown" && fenceRE.MatchString(line) {
			continue
		}
		if typ == "markdown" {
			line = urlRE.ReplaceAllString(htmlTagRE.ReplaceAllString(line, " "), " ")
		}
		line = escapeRE.ReplaceAllString(line, " ")
		for _, w := range wordRE.FindAllString(line, -1) {
			words[w] = true
		}
	}
	if typ == "markdown" {
		// an HTML block's text (a <table>, a <details>) is not drawn by
		// a terminal, and its tags may span lines
		clean := urlRE.ReplaceAllString(htmlTagRE.ReplaceAllString(text, " "), " ")
		kept := map[string]bool{}
		for _, w := range wordRE.FindAllString(clean, -1) {
			kept[w] = true
		}
		for w := range words {
			if !kept[w] {
				delete(words, w)
			}
		}
	}
	return words
}

// pageText is a page's text: its tags and scripts out, entities decoded.
// The highlighter's spans go without a space, for they can split a word
// ({% extends %} in a Python string is drawn {</span><span>%- e</span>xtends).
func pageText(page string) string {
	page = spanRE.ReplaceAllString(scriptRE.ReplaceAllString(page, " "), "")
	return html.UnescapeString(htmlTagRE.ReplaceAllString(page, " "))
}

var spanRE = regexp.MustCompile(`</?span\b[^>]*>`)

// missing counts the words of in that out lacks, and names some.
func missing(t *testing.T, where string, in map[string]bool, out string) int {
	t.Helper()
	have := map[string]bool{}
	for _, w := range wordRE.FindAllString(escapeRE.ReplaceAllString(out, " "), -1) {
		have[w] = true
	}
	var lost []string
	for w := range in {
		if !have[w] && !prefixOfOne(w, have) {
			lost = append(lost, w)
		}
	}
	if len(lost) > 0 {
		sort.Strings(lost)
		t.Errorf("%d words are not in %s: %s", len(lost), where, strings.Join(lost[:min(len(lost), 30)], " "))
	}
	return len(lost)
}

// prefixOfOne tells whether w is inside a word of have: `TODO`s is
// drawn TODOs, `nbdev.release`provides releaseprovides.
func prefixOfOne(w string, have map[string]bool) bool {
	for h := range have {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}
