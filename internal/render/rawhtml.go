package render

import (
	"bytes"
	"html"
	"io"
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/cudalessons/lessons/internal/lesson"
)

// htmlAsText draws a lesson's raw HTML (an HTML block, an inline tag) as
// the text it holds: a course notebook's <details><summary>Hints</summary>
// was left out of the site whole ("raw HTML omitted", as goldmark does
// for HTML it does not trust), and with it every word of the hint. The
// tags stay out (a notebook is untrusted: no script, no style, no
// attribute reaches the page); their text is shown, escaped.
type htmlAsText struct{}

func (htmlAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, htmlBlockText)
	reg.Register(ast.KindRawHTML, rawHTMLText)
}

var (
	hiddenHTMLRE = regexp.MustCompile(`(?is)<(script|style|template)\b.*?</(script|style|template)\s*>|<!--.*?-->`)
	htmlTagRE    = regexp.MustCompile(`(?s)<[A-Za-z/!?][^>]*>?`)
)

// htmlText is the text of a piece of HTML, escaped for a page.
func htmlText(b []byte) string {
	s := htmlTagRE.ReplaceAllString(hiddenHTMLRE.ReplaceAllString(string(b), " "), " ")
	return html.EscapeString(html.UnescapeString(s))
}

func htmlBlockText(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	var b bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	if hb, ok := n.(*ast.HTMLBlock); ok && hb.HasClosure() {
		b.Write(hb.ClosureLine.Value(src))
	}
	if t := bytes.TrimSpace([]byte(htmlText(b.Bytes()))); len(t) > 0 {
		w.WriteString(`<div class="html-text">`)
		w.Write(t)
		w.WriteString("</div>\n")
	}
	return ast.WalkSkipChildren, nil
}

func rawHTMLText(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	var b bytes.Buffer
	segs := n.(*ast.RawHTML).Segments
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(src))
	}
	w.WriteString(htmlText(b.Bytes()))
	return ast.WalkSkipChildren, nil
}

// proseRenderer draws a lesson's prose as the site does: goldmark's HTML
// with the GFM parts, raw HTML as its text.
func proseRenderer(more ...util.PrioritizedValue) renderer.Renderer {
	rs := []util.PrioritizedValue{
		util.Prioritized(gmhtml.NewRenderer(), 1000),
		util.Prioritized(extension.NewTableHTMLRenderer(), 500),
		util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500),
		util.Prioritized(extension.NewTaskCheckBoxHTMLRenderer(), 500),
		util.Prioritized(htmlAsText{}, 200),
	}
	return renderer.NewRenderer(renderer.WithNodeRenderers(append(rs, more...)...))
}

// markdownCellHTML draws a notebook's markdown cell for the site.
func markdownCellHTML(w io.Writer, src []byte) error {
	doc := lesson.Goldmark().Parser().Parse(gmtext.NewReader(src))
	return proseRenderer().Render(w, src, doc)
}
