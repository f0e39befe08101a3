package render

import (
	"bytes"
	"embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/cudalessons/lessons/internal/atomicfile"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/mermaid"
)

//go:embed assets/style.css
var assets embed.FS

var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true))

// PageHTML renders a lesson's body as HTML from its AST: prose by goldmark,
// cells with their labels and highlighting, diagrams as inline SVG.
func PageHTML(w io.Writer, l *lesson.Lesson) error {
	// The GFM parts (tables, strikethrough, task lists) bring their own
	// node renderers, which a renderer built by hand must register.
	r := renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(gmhtml.NewRenderer(), 1000),
		util.Prioritized(extension.NewTableHTMLRenderer(), 500),
		util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500),
		util.Prioritized(extension.NewTaskCheckBoxHTMLRenderer(), 500),
		util.Prioritized(&cellHTML{l: l}, 100),
	))
	return r.Render(w, l.Source, l.Doc)
}

// cellHTML renders fenced code and notebook cells.
type cellHTML struct{ l *lesson.Lesson }

func (r *cellHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.render)
	reg.Register(lesson.KindNotebookCell, r.render)
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
	return ast.WalkSkipChildren, writeCell(w, c)
}

func writeCell(w io.Writer, c *lesson.Cell) error {
	if c.Kind == lesson.Diagram {
		g, err := mermaid.Parse(c.Text)
		if err == nil {
			_, err = fmt.Fprintf(w, "<figure class=\"diagram\">%s</figure>\n", g.Layout(96).SVG())
			return err
		}
		fmt.Fprintf(w, "<p class=\"diagram-note\">This diagram cannot be drawn (%s); its source:</p>\n", html.EscapeString(err.Error()))
	}
	fmt.Fprintf(w, "<div class=\"cell cell-%s\">", c.Kind)
	if c.Number > 0 {
		fmt.Fprintf(w, "<div class=\"cell-label\"><span class=\"n\">[%d]</span> %s</div>", c.Number, html.EscapeString(c.Label))
	} else if c.Lang != "" && c.Kind != lesson.Diagram {
		fmt.Fprintf(w, "<div class=\"cell-label\">%s</div>", html.EscapeString(c.Lang))
	}
	io.WriteString(w, "<pre class=\"chroma\"><code>")
	it, err := lexer(c.Lang).Tokenise(nil, strings.TrimRight(c.Text, "\n"))
	if err == nil {
		err = codeFormatter.Format(w, styles.Get("github"), it)
	}
	if err != nil {
		io.WriteString(w, html.EscapeString(c.Text))
	}
	_, err = io.WriteString(w, "</code></pre></div>\n")
	return err
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · {{.Course}}</title>
<link rel="stylesheet" href="style.css"></head>
<body>
<nav class="top"><a class="course" href="index.html">{{.Course}}</a>{{template "nav" .}}</nav>
<main>
{{.Body}}
{{- if .Exercises}}
<section class="exercises"><h2>Exercises</h2><ul>
{{- range .Exercises}}
<li><strong>{{.ID}}</strong>: edit <code>{{.Student}}</code>, then run <code>lessons check {{.ID}}</code>{{if .Hint}}<details><summary>Hint</summary>{{.Hint}}</details>{{end}}</li>
{{- end}}
</ul></section>
{{- end}}
</main>
<nav class="bottom"><a href="index.html">Contents</a>{{template "nav" .}}</nav>
</body></html>
{{define "nav"}}<span>{{if .Prev}}<a class="prev" href="{{.Prev.Href}}">← Day {{.Prev.Day}}: {{.Prev.Title}}</a>{{end}}</span><span>{{if .Next}}<a class="next" href="{{.Next.Href}}">Day {{.Next.Day}}: {{.Next.Title}} →</a>{{end}}</span>{{end}}
`))

var indexTmpl = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Course}}</title>
<link rel="stylesheet" href="style.css"></head>
<body>
<nav class="top"><a class="course" href="index.html">{{.Course}}</a></nav>
<main class="toc">
<h1>{{.Course}}</h1>
<ol>
{{- range .Lessons}}
<li><span class="day">Day {{.Day}}</span><a href="{{.Href}}">{{.Title}}</a><span class="ex">{{if .Exercises}}{{len .Exercises}} exercise{{if ne (len .Exercises) 1}}s{{end}}{{end}}</span></li>
{{- end}}
</ol>
</main>
</body></html>
`))

type link struct {
	Day       int
	Title     string
	Href      string
	Exercises []*course.Exercise
}

// Export writes the course as a static site in dir: index.html, a page per
// lesson, and style.css. Every link is relative and nothing is fetched, so
// the site works from file://.
func Export(c *course.Course, dir string) error {
	site, err := Site(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(site)) {
		if err := writeFile(filepath.Join(dir, name), site[name]); err != nil {
			return err
		}
	}
	return nil
}

// Site renders the course as the files of a static site, by name:
// index.html, a page per lesson (day068-memory-pools.html) and style.css.
// A lesson that does not parse fails it with every error, file and line.
func Site(c *course.Course) (map[string][]byte, error) {
	site := map[string][]byte{}
	lessons := make([]*lesson.Lesson, len(c.Lessons))
	links := make([]link, len(c.Lessons))
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
		lessons[i] = l
		links[i] = link{Day: e.Day, Title: withoutDay(l.Title), Href: e.Name() + ".html", Exercises: e.Exercises}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	css, _ := assets.ReadFile("assets/style.css")
	var chromaCSS bytes.Buffer
	if err := codeFormatter.WriteCSS(&chromaCSS, styles.Get("github")); err != nil {
		return nil, err
	}
	site["style.css"] = append(css, chromaCSS.Bytes()...)
	for i, l := range lessons {
		var body bytes.Buffer
		if err := PageHTML(&body, l); err != nil {
			return nil, fmt.Errorf("render %s: %w", l.Path, err)
		}
		data := map[string]any{
			"Course": c.Title, "Title": l.Title, "Body": template.HTML(body.String()),
			"Exercises": c.Lessons[i].Exercises, "Prev": (*link)(nil), "Next": (*link)(nil),
		}
		if i > 0 {
			data["Prev"] = &links[i-1]
		}
		if i+1 < len(links) {
			data["Next"] = &links[i+1]
		}
		var page bytes.Buffer
		if err := pageTmpl.Execute(&page, data); err != nil {
			return nil, err
		}
		site[links[i].Href] = page.Bytes()
	}
	var index bytes.Buffer
	if err := indexTmpl.Execute(&index, map[string]any{"Course": c.Title, "Lessons": links}); err != nil {
		return nil, err
	}
	site["index.html"] = index.Bytes()
	return site, nil
}

// writeFile replaces a file whole: a reader never sees half a page.
func writeFile(name string, data []byte) error { return atomicfile.Write(name, data, 0o644) }

var dayPrefixRE = regexp.MustCompile(`^(?i:day)\s*\d+\s*[:.–—-]\s*`)

// withoutDay drops a leading "Day 70: " from a title: the links say the day.
func withoutDay(title string) string { return dayPrefixRE.ReplaceAllString(title, "") }
