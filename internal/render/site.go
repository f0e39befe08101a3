package render

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
	"github.com/cudalessons/lessons/internal/safefs"
)

//go:embed assets/style.css assets/lessons.js assets/theme.js
var assets embed.FS

var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true))

// PageHTML renders a lesson's body as HTML from its AST: prose by goldmark,
// cells with their labels and highlighting, diagrams as inline SVG.
func PageHTML(w io.Writer, l *lesson.Lesson) error {
	if l.Doc == nil {
		return cellsHTML(w, l)
	}
	// The GFM parts (tables, strikethrough, task lists) bring their own
	// node renderers, which a renderer built by hand must register.
	return proseRenderer(util.Prioritized(&cellHTML{l: l}, 100)).Render(w, l.Source, l.Doc)
}

// cellHTML renders fenced code and notebook cells, and headings with a
// visible anchor.
type cellHTML struct {
	l        *lesson.Lesson
	diagrams int // numbers the page's diagrams, for their unique ids
}

func (r *cellHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.render)
	reg.Register(lesson.KindNotebookCell, r.render)
	reg.Register(ast.KindHeading, r.heading)
}

func (r *cellHTML) heading(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	h := n.(*ast.Heading)
	id, _ := h.AttributeString("id")
	idb, _ := id.([]byte)
	if entering {
		if len(idb) > 0 {
			fmt.Fprintf(w, "<h%d id=\"%s\">", h.Level, html.EscapeString(string(idb)))
		} else {
			fmt.Fprintf(w, "<h%d>", h.Level)
		}
		return ast.WalkContinue, nil
	}
	if len(idb) > 0 {
		fmt.Fprintf(w, "<a class=\"anchor\" href=\"#%s\" aria-label=\"Link to this section\">#</a>", html.EscapeString(string(idb)))
	}
	fmt.Fprintf(w, "</h%d>\n", h.Level)
	return ast.WalkContinue, nil
}

func (r *cellHTML) render(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	c := r.l.CellOf(n)
	if c == nil {
		// A fence inside a list or quote, or an empty notebook cell.
		var lang string
		if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
			lang = lesson.ParseInfo(string(f.Info.Segment.Value(src))).Lang
		}
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(src))
		}
		if strings.TrimSpace(b.String()) == "" {
			return ast.WalkSkipChildren, nil // a stray fence: the parser warned about it
		}
		if lang == "mermaid" {
			c = &lesson.Cell{Kind: lesson.Diagram, Text: b.String()}
		} else {
			c = &lesson.Cell{Kind: lesson.Code, Lang: lang, Text: b.String()}
		}
	}
	if c.Kind == lesson.Diagram {
		r.diagrams++
	}
	return ast.WalkSkipChildren, writeCell(w, c, fmt.Sprintf("diagram-%d", r.diagrams))
}

// Diagram widths, in columns: as drawn on a page, and on a phone's
// (38 columns of 8.5 px fit a figure on a 400 px screen).
const (
	diagramWide   = 96
	diagramNarrow = 38
)

// diagramSVGs draws g for a page, and again narrower where its boxes can
// be set closer (labels wrapped shorter, boxes stacked): a figure too
// narrow for the wide one at MinScale shows the narrow one instead (a
// container query), so that on a phone its text stays 10 px or more and
// nothing is cut off at the figure's edge.
func diagramSVGs(g *mermaid.Graph, id string) string {
	wide, narrow := g.Layout(diagramWide), g.Layout(diagramNarrow)
	svg := wide.SVG(id)
	if narrow.Width >= wide.Width {
		return svg
	}
	// The figure's padding is 1rem on each side (style.css).
	return fmt.Sprintf(`<style>@container (max-width: %.0fpx) { #%s > .wide { display:none } #%s > .narrow { display:inline } }</style>`,
		math.Ceil(mermaid.MinScale*wide.PixelWidth()), id, id) +
		strings.Replace(svg, `class="mermaid-svg"`, `class="mermaid-svg wide"`, 1) +
		strings.Replace(narrow.SVG(id+"-narrow"), `class="mermaid-svg"`, `class="mermaid-svg narrow"`, 1)
}

// writeCell writes a cell; id names a diagram uniquely in its page.
func writeCell(w io.Writer, c *lesson.Cell, id string) error {
	if c.Kind == lesson.Diagram {
		g, err := mermaid.Parse(c.Text)
		if err == nil {
			var words strings.Builder
			for _, e := range g.EdgeTexts() {
				words.WriteString("<li>" + html.EscapeString(e) + "</li>")
			}
			_, err = fmt.Fprintf(w, "<figure class=\"diagram\" id=\"%s\">%s<figcaption><details><summary>The diagram in words</summary><ul>%s</ul></details></figcaption></figure>\n",
				id, diagramSVGs(g, id), words.String())
			return err
		}
		fmt.Fprintf(w, "<p class=\"diagram-note\">This diagram cannot be drawn (%s); its source:</p>\n", html.EscapeString(err.Error()))
	}
	fmt.Fprintf(w, "<div class=\"cell cell-%s\"%s>", c.Kind, cellData(c))
	if c.Kind == lesson.Python {
		fmt.Fprintf(w, "<div class=\"cell-label\" title=\"runs in the lesson's Python session, in order with the other cells\"><span class=\"n\">[%d]</span> python</div>", c.Number)
	} else if c.Number > 0 {
		fmt.Fprintf(w, "<div class=\"cell-label\"><span class=\"n\">[%d]</span> %s</div>", c.Number, html.EscapeString(c.Label))
	} else if c.Lang != "" && c.Kind != lesson.Diagram {
		fmt.Fprintf(w, "<div class=\"cell-label\">%s</div>", html.EscapeString(c.Lang))
	}
	io.WriteString(w, "<pre class=\"chroma\"><code>")
	it, err := lexer(c.Lang).Tokenise(nil, strings.TrimRight(c.Text, "\n"))
	if err == nil {
		err = codeFormatter.Format(w, lightStyle, it)
	}
	if err != nil {
		io.WriteString(w, html.EscapeString(c.Text))
	}
	_, err = io.WriteString(w, "</code></pre></div>\n")
	return err
}

// cellData marks a runnable cell for the served page's notebook, which
// runs it by its number.
func cellData(c *lesson.Cell) string {
	if !c.Runnable() || c.Number == 0 {
		return ""
	}
	d := fmt.Sprintf(" data-cell=\"%d\"", c.Number)
	if c.Kind == lesson.File {
		d += fmt.Sprintf(" data-file=\"%s\"", html.EscapeString(c.Name))
	}
	return d
}

// The pages share a layout: a sidebar with every lesson and its sections
// and the search box, the page's main text, prev/next links. The scripts
// are files of their own beside the pages (theme.js runs first, so a dark
// page never flashes light; lessons.js does search, copy buttons, the theme
// switch and the sidebar on narrow screens); other scripts can sit beside
// them.
var layoutTmpl = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Title}}{{.Title}} · {{end}}{{.Course}}</title>
<link rel="stylesheet" href="style.css">
<script src="theme.js"></script>
<script src="search-index.js" defer></script>
<script src="lessons.js" defer></script>
</head>
<body>
<header class="top"><button type="button" id="toc-toggle" aria-controls="sidebar" aria-expanded="false">☰ <span>Contents</span></button>
<a class="course" href="index.html">{{.Course}}</a>
<button type="button" id="theme-toggle" aria-label="Switch between light and dark">◐</button></header>
<div class="layout">
<nav id="sidebar" class="sidebar" aria-label="Lessons">
<div class="search"><input type="search" id="search" placeholder="Search the lessons" aria-label="Search the lessons" autocomplete="off"><div id="search-results" role="region" aria-live="polite"></div></div>
<ol class="lessons">
{{- range .Lessons}}
<li{{if .Current}} class="current"{{end}}><a href="{{.Href}}"{{if .Current}} aria-current="page"{{end}}><span class="day">{{.Day}}</span> {{.Title}}</a>
{{- if .Sections}}<ol class="sections">{{range .Sections}}<li><a href="{{.Href}}">{{.Title}}</a></li>{{end}}</ol>{{end}}</li>
{{- end}}
</ol>
</nav>
<div class="content">
{{if .Body}}<main>
{{.Body}}
{{- if .Exercises}}
<section class="exercises"><h2 id="exercises">Exercises<a class="anchor" href="#exercises" aria-label="Link to this section">#</a></h2><ul>
{{- range .Exercises}}
<li data-exercise="{{.ID}}"><strong class="exercise-id">{{.ID}}</strong>: edit <code>{{.Student}}</code>, then run <code>lessons check {{.ID}}</code>{{if .Hint}}<details><summary>Hint</summary>{{.Hint}}</details>{{end}}</li>
{{- end}}
</ul></section>
{{- end}}
</main>
<nav class="bottom" aria-label="Previous and next">{{template "nav" .}}</nav>
{{- else}}<main class="toc">
<h1>{{.Course}}</h1>
<ol>
{{- range .Lessons}}
<li><span class="day">Day {{.Day}}</span><a href="{{.Href}}">{{.Title}}</a><span class="ex">{{if .Exercises}}{{len .Exercises}} exercise{{if ne (len .Exercises) 1}}s{{end}}{{end}}</span></li>
{{- end}}
</ol>
</main>{{end}}
</div></div>
</body></html>
{{define "nav"}}<span>{{if .Prev}}<a class="prev" href="{{.Prev.Href}}">← Day {{.Prev.Day}}: {{.Prev.Title}}</a>{{end}}</span><span>{{if .Next}}<a class="next" href="{{.Next.Href}}">Day {{.Next.Day}}: {{.Next.Title}} →</a>{{end}}</span>{{end}}
`))

type link struct {
	Day       int
	Title     string
	Href      string
	Exercises []*course.Exercise
	Sections  []section
	Current   bool
}

// section is a heading of a lesson: a sidebar entry and a unit of search.
type section struct {
	Title string `json:"t"`
	Href  string `json:"u"` // #id within its page; the page's name in the index
	Text  string `json:"x,omitempty"`
}

// hint is an exercise with its hint rendered from markdown.
type hint struct {
	*course.Exercise
	Hint template.HTML
}

// Export writes the course as a static site in dir: index.html, a page per
// lesson, style.css, the scripts and the search index. Every link is
// relative and nothing is fetched, so the site works from file://.
func Export(c *course.Course, dir string) error {
	site, err := Site(c)
	if err != nil {
		return err
	}
	if err := claimDir(dir); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(site)) {
		// Names come from the course's files: safefs keeps them, and
		// any link the target folder holds, inside dir.
		if err := safefs.WriteFile(dir, name, site[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// parseAll parses every lesson of c in order and gives each to each. A
// lesson that does not parse is left out and its errors, with file and
// line, are returned together; any other failure stops it.
func parseAll(c *course.Course, each func(i int, e *course.Entry, l *lesson.Lesson) error) (lesson.Errors, error) {
	var errs lesson.Errors
	for i, e := range c.Lessons {
		l, err := c.Parse(e)
		if err != nil {
			if es := lesson.AsErrors(err); es != nil {
				errs = append(errs, es...)
				continue
			}
			return nil, err
		}
		if err := each(i, e, l); err != nil {
			return nil, err
		}
	}
	return errs, nil
}

// Site renders the course as the files of a static site, by name:
// index.html, a page per lesson (day068-memory-pools.html), style.css,
// theme.js, lessons.js and search-index.js. A lesson that does not parse
// fails it with every error, file and line.
func Site(c *course.Course) (map[string][]byte, error) {
	site := map[string][]byte{}
	lessons := make([]*lesson.Lesson, len(c.Lessons))
	links := make([]link, len(c.Lessons))
	var index []section
	errs, err := parseAll(c, func(i int, e *course.Entry, l *lesson.Lesson) error {
		lessons[i] = l
		href := e.Name() + ".html"
		secs := sections(l)
		links[i] = link{Day: e.Day, Title: WithoutDay(l.Title), Href: href, Exercises: e.Exercises}
		for _, sec := range secs {
			if sec.Level == 2 {
				links[i].Sections = append(links[i].Sections, section{Title: sec.Title, Href: href + "#" + sec.ID})
			}
			u := href
			if sec.ID != "" && sec.Level > 1 {
				u += "#" + sec.ID
			}
			title := fmt.Sprintf("Day %d", e.Day)
			if sec.Level > 1 {
				title += ": " + sec.Title
			} else {
				title += ": " + links[i].Title
			}
			index = append(index, section{Title: title, Href: u, Text: sec.Text})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	css, err := siteCSS()
	if err != nil {
		return nil, err
	}
	site["style.css"] = css
	site["theme.js"], _ = assets.ReadFile("assets/theme.js")
	site["lessons.js"], _ = assets.ReadFile("assets/lessons.js")
	js, err := json.Marshal(index)
	if err != nil {
		return nil, err
	}
	site["search-index.js"] = []byte("window.lessonsSearchIndex = " + string(js) + ";\n")
	page := func(data map[string]any, current int) ([]byte, error) {
		nav := slices.Clone(links)
		if current >= 0 {
			nav[current].Current = true
		}
		data["Course"], data["Lessons"] = c.Title, nav
		var b bytes.Buffer
		err := layoutTmpl.Execute(&b, data)
		return b.Bytes(), err
	}
	for i, l := range lessons {
		var body bytes.Buffer
		if err := PageHTML(&body, l); err != nil {
			return nil, fmt.Errorf("render %s: %w", l.Path, err)
		}
		var hints []hint
		for _, x := range c.Lessons[i].Exercises {
			h, err := markdownHTML(x.Hint())
			if err != nil {
				return nil, fmt.Errorf("render the hint of %s: %w", x.ID, err)
			}
			hints = append(hints, hint{x, h})
		}
		data := map[string]any{
			"Title": l.Title, "Body": template.HTML(body.String()),
			"Exercises": hints, "Prev": (*link)(nil), "Next": (*link)(nil),
		}
		if i > 0 {
			data["Prev"] = &links[i-1]
		}
		if i+1 < len(links) {
			data["Next"] = &links[i+1]
		}
		b, err := page(data, i)
		if err != nil {
			return nil, err
		}
		site[links[i].Href] = b
	}
	b, err := page(map[string]any{"Title": "", "Body": template.HTML("")}, -1)
	if err != nil {
		return nil, err
	}
	site["index.html"] = b
	return site, nil
}

// siteCSS is the stylesheet with chroma's classes for both themes: github
// for light, github-dark under [data-theme=dark] (theme.js sets it from
// the reader's choice or the system's).
func siteCSS() ([]byte, error) {
	css, _ := assets.ReadFile("assets/style.css")
	var light, dark bytes.Buffer
	if err := codeFormatter.WriteCSS(&light, lightStyle); err != nil {
		return nil, err
	}
	if err := codeFormatter.WriteCSS(&dark, darkStyle); err != nil {
		return nil, err
	}
	// Each theme's rules apply only in it: a class that one style colors
	// and the other leaves alone must not keep the first's color.
	lightCSS := cssRuleRE.ReplaceAllString(light.String(), `${1}html:not([data-theme="dark"]) ${2}`)
	darkCSS := cssRuleRE.ReplaceAllString(dark.String(), `${1}html[data-theme="dark"] ${2}`)
	return slices.Concat(css, []byte(lightCSS), []byte(darkCSS)), nil
}

var (
	lightStyle = styles.Get("github")
	darkStyle  = styles.Get("github-dark")
	// cssRuleRE finds the selector of each rule chroma writes, one a line
	// after an optional comment: "/* Keyword */ .chroma .k { ... }".
	cssRuleRE = regexp.MustCompile(`(?m)^(/\*[^*]*\*/ )?(\.[^{]*\{)`)
)

// heading is a heading of a lesson with the text under it.
type heading struct {
	Level     int
	ID, Title string
	Text      string
}

// sections splits a lesson at its headings, with the words of each part
// (prose and code) for search. A lesson without a document AST (a .ipynb,
// whose markdown cells are documents of their own) is split cell by cell,
// each markdown cell parsed as its page draws it, so the ids match.
func sections(l *lesson.Lesson) []heading {
	out := []heading{{Level: 1, Title: l.Title}}
	var text strings.Builder
	flush := func() { out[len(out)-1].Text = strings.Join(strings.Fields(text.String()), " "); text.Reset() }
	walk := func(doc ast.Node, src []byte) {
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			if h, ok := n.(*ast.Heading); ok {
				flush()
				id, _ := h.AttributeString("id")
				idb, _ := id.([]byte)
				title := plainText(h, src)
				if h.Level == 1 && len(out) == 1 {
					out[0].ID = string(idb)
					continue
				}
				out = append(out, heading{Level: h.Level, ID: string(idb), Title: title})
				continue
			}
			text.WriteString(plainText(n, src) + " ")
		}
	}
	if l.Doc != nil {
		walk(l.Doc, l.Source)
		flush()
		return out
	}
	for i := range l.Cells {
		c := &l.Cells[i]
		if c.Kind != lesson.Markdown {
			text.WriteString(c.Text + " ")
			continue
		}
		src := []byte(c.Text)
		walk(lesson.Goldmark().Parser().Parse(gmtext.NewReader(src)), src)
	}
	flush()
	return out
}

// plainText is the words of a node: its text and the lines of its code.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			b.WriteByte(' ')
		default:
			if n.Kind() == lesson.KindNotebookCell {
				for i := 0; i < n.Lines().Len(); i++ {
					seg := n.Lines().At(i)
					b.Write(seg.Value(src))
				}
			}
		}
		if n.Type() == ast.TypeBlock {
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// markdownHTML renders a short piece of markdown, such as a hint.
func markdownHTML(md string) (template.HTML, error) {
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// A leading emoji or other symbols before the day ("🚀 Day 1: ...") go
// with it.
var dayPrefixRE = regexp.MustCompile(`^[^\p{L}\p{N}]*(?i:day)\s*\d+\s*[:.–—-]\s*`)

// WithoutDay drops a leading "Day 70: " from a title: the links and
// lists that show it say the day already.
func WithoutDay(title string) string { return dayPrefixRE.ReplaceAllString(title, "") }
