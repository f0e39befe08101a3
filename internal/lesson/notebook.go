package lesson

import (
	"bytes"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// KindNotebookCell is the node kind of a notebook code cell.
var KindNotebookCell = ast.NewNodeKind("NotebookCell")

// NotebookCell is a code cell of a notebook export: the lines after an
// In [ ]: marker. Its Lines hold the cell's content, without the marker.
type NotebookCell struct {
	ast.BaseBlock
	// Marker is the marker line as written, e.g. "In [None]:".
	Marker string
	shell  bool
	begun  bool
}

// Kind implements ast.Node.
func (n *NotebookCell) Kind() ast.NodeKind { return KindNotebookCell }

// IsRaw implements ast.Node: the content is code, not markdown.
func (n *NotebookCell) IsRaw() bool { return true }

// Dump implements ast.Node.
func (n *NotebookCell) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Marker": n.Marker}, nil)
}

var (
	markerRE  = regexp.MustCompile(`^In \[[^\]\n]*\]:[ \t]*\r?\n?$`)
	headingRE = regexp.MustCompile(`^ {0,3}#{1,6}([ \t]|\r?\n|$)`)
	breakRE   = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})\r?\n?$`)
)

// notebookParser reads a notebook code cell. A cell runs from its marker to
// the next marker; a cell of !commands also ends at a blank line, and any
// other cell ends at a blank line followed by a markdown heading or a
// thematic break (notebook exports put no other mark between a code cell
// and the markdown after it).
type notebookParser struct{}

func (notebookParser) Trigger() []byte { return []byte{'I'} }

func (notebookParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	if parent.Kind() != ast.KindDocument {
		return nil, parser.NoChildren
	}
	line, seg := reader.PeekLine()
	if !markerRE.Match(line) {
		return nil, parser.NoChildren
	}
	n := &NotebookCell{Marker: string(util.TrimRightSpace(line))}
	n.SetPos(seg.Start)
	reader.Advance(seg.Len() - 1)
	return n, parser.NoChildren
}

func (notebookParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	n := node.(*NotebookCell)
	line, seg := reader.PeekLine()
	if line == nil || markerRE.Match(line) {
		return parser.Close
	}
	blank := util.IsBlank(line)
	switch {
	case !n.begun && blank:
		reader.Advance(seg.Len() - 1)
		return parser.Continue | parser.NoChildren
	case !n.begun:
		n.begun = true
		n.shell = line[0] == '!'
	case blank && (n.shell || markdownFollows(reader)):
		return parser.Close
	}
	n.Lines().Append(seg)
	reader.Advance(seg.Len() - 1)
	return parser.Continue | parser.NoChildren
}

// markdownFollows reports whether the next non-blank line after the
// current one ends a notebook code cell. It reads the source directly: the
// reader is not moved (goldmark's SetPosition keeps a stale peeked line).
func markdownFollows(reader text.Reader) bool {
	src := reader.Source()
	_, seg := reader.PeekLine()
	for off := seg.Stop; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		line := src[off:]
		if end >= 0 {
			line = src[off : off+end+1]
		}
		if !util.IsBlank(line) {
			return markerRE.Match(line) || headingRE.Match(line) || breakRE.Match(line)
		}
		off += len(line)
	}
	return true
}

func (notebookParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	for lines.Len() > 0 {
		last := lines.At(lines.Len() - 1)
		if !util.IsBlank(last.Value(reader.Source())) {
			break
		}
		lines.SetSliced(0, lines.Len()-1)
	}
}

func (notebookParser) CanInterruptParagraph() bool { return true }
func (notebookParser) CanAcceptIndentedLine() bool { return false }

// notebookExtension adds notebook cells to a goldmark parser.
type notebookExtension struct{}

func (notebookExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithBlockParsers(
		util.Prioritized(notebookParser{}, 50),
	))
}

// NotebookCells is the goldmark extension that reads notebook-export cells.
var NotebookCells goldmark.Extender = notebookExtension{}
