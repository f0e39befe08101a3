// Package lesson parses a lesson document into one model: an ordered list of
// cells (prose, files written, commands run, code to read, diagrams).
//
// Both lesson dialects are read by goldmark, the parser of record: plain
// markdown with fenced code, and notebook exports (In [ ]: markers,
// %%writefile cells, !command cells), which a goldmark block parser of this
// package turns into NotebookCell nodes of the same AST.
package lesson

import (
	"encoding/json"

	"github.com/yuin/goldmark/ast"
)

// Kind says what a cell is.
type Kind int

const (
	// Markdown is prose: everything between the other cells.
	Markdown Kind = iota
	// Code is code to read: a fence that names no file, or a notebook code
	// cell that is not a magic or a shell command.
	Code
	// File is a file the lesson writes: a %%writefile cell, or a fence with
	// file=NAME in its info string.
	File
	// Command is a shell command to run: a notebook cell of !lines, or a
	// fence with the word run in its info string (```sh run).
	Command
	// Diagram is a mermaid diagram.
	Diagram
	// Python is a notebook's Python cell, run in the lesson's Python
	// session (a Jupyter kernel or lessons' own driver), in order with the
	// other runnable cells: a code cell of a Python notebook that is not a
	// magic or all ! lines (IPython's ! and % lines inside it included),
	// or a fence that says python run.
	Python
)

var kindNames = [...]string{"markdown", "code", "file", "command", "diagram", "python"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Cell is one step of a lesson.
type Cell struct {
	Kind Kind
	// Line is the 1-based line of the source where the cell starts
	// (its fence or its In [ ]: marker).
	Line int
	// Lang is the language of a code, file or diagram cell, from the fence's
	// info string or the file's extension.
	Lang string
	// Name is the file name of a File cell.
	Name string
	// Text is the cell's content: markdown source, code, the file's
	// contents, the command (without its !), or the diagram's source.
	Text string
	// Label is how a notebook shows the cell's first line, e.g.
	// "%%writefile pool.cu" or "!nvcc pool.cu -o pool && ./pool".
	Label string
	// Build says the tool builds and runs a File cell itself (a fence with
	// the word run: ```cuda file=pool.cu run).
	Build bool
	// Flags are extra nvcc flags for a Build cell (flags="-lcuda").
	Flags string
	// Bang says a Command cell is IPython ! lines: each runs alone in its
	// own shell, as IPython runs them, and a failing one does not stop the
	// next (the cell fails all the same). Its Text keeps the cell's
	// comment lines, which a shell skips.
	Bang bool
	// CUDA is an nvcc4jupyter cell (%%cuda and its group magics), a
	// Command cell whose Text is its code and Label its magic line.
	CUDA *CUDAMagic
	// Number counts the runnable cells (File, Command and Python) from 1, the way a
	// notebook numbers its cells; 0 for the others.
	Number int
	// Node is the AST node the cell came from; nil for Markdown cells,
	// which span several nodes, and for the cells of a .ipynb lesson.
	Node ast.Node
	// Append says a File cell adds to its file (%%writefile -a, or a fence
	// with the word append) instead of replacing it.
	Append bool
	// Note is a line about the cell that readers and runs should see, e.g.
	// that the Python lines of a mixed notebook cell are not run.
	Note string
	// Outputs are the outputs recorded in a .ipynb lesson, shown as such;
	// a run shows fresh ones.
	Outputs []Output
	// Attachments are the files a .ipynb markdown cell carries, referred to
	// as attachment:NAME in its text.
	Attachments []Attachment
	// From is the notebook cell a cell of a .ipynb lesson was read from; the
	// cells split from one notebook cell (prose, then a diagram) share it.
	From *NotebookSource
}

// Output is one recorded output of a notebook code cell.
type Output struct {
	// Type is the nbformat output_type: stream, execute_result,
	// display_data or error.
	Type string
	// Name is the stream (stdout, stderr) or the error's name.
	Name string
	// Text is the stream's text, the text/plain of a result, or an error's
	// traceback without its terminal colors.
	Text string
	// MIME and Data are an image output: its type and base64 data.
	MIME string
	Data string
}

// Attachment is a file attached to a notebook markdown cell.
type Attachment struct {
	Name string
	MIME string
	Data string // base64, as stored
}

// NotebookSource is a notebook cell as written, kept so that a notebook
// written back from the lesson keeps each cell's type, order and source.
type NotebookSource struct {
	Type     string // markdown, code or raw
	ID       string
	Source   string
	Metadata []byte // raw JSON; nil when the cell has none
	// Attachments is the cell's raw attachments object, if any.
	Attachments []byte
}

// Runnable reports whether the cell does something when a lesson runs.
func (c *Cell) Runnable() bool { return c.Kind == File || c.Kind == Command || c.Kind == Python }

// Dialect says how a lesson was written.
type Dialect int

const (
	// Plain is markdown with fenced code.
	Plain Dialect = iota
	// Notebook is a notebook export with In [ ]: markers.
	Notebook
	// Ipynb is a Jupyter notebook file (nbformat 4 JSON).
	Ipynb
)

func (d Dialect) String() string {
	switch d {
	case Notebook:
		return "notebook"
	case Ipynb:
		return "ipynb"
	}
	return "markdown"
}

// Lesson is one parsed lesson document.
type Lesson struct {
	// Path is the file the lesson was read from, as given.
	Path string
	// Title is the text of the first level-1 or level-2 heading, or the
	// file's name when there is none.
	Title   string
	Dialect Dialect
	Cells   []Cell
	// Source is the document as read; Doc is its goldmark AST (nil for a
	// .ipynb lesson, whose markdown cells are parsed one by one).
	Source []byte
	Doc    ast.Node
	// Warnings are problems that did not stop the parse.
	Warnings []*Error
	// FrontMatter is the YAML a lesson opens with (not jupytext's, which
	// names its kernel), nil when none: it is not shown, and lint says so.
	FrontMatter *FrontMatter
	// Kernel is the Jupyter kernel a .ipynb lesson names in its
	// kernelspec (python3 for most); "" for the others.
	Kernel string
	// Kernelspec and LanguageInfo are a .ipynb lesson's own, as read
	// from its metadata: a notebook written from the lesson keeps them,
	// so that its cells read back in the same language.
	Kernelspec, LanguageInfo json.RawMessage
	// NbformatMinor is a .ipynb lesson's nbformat_minor where it is
	// later than the 5 lessons writes (a notebook of a later Jupyter,
	// whose unknown cells it keeps): a notebook written from the lesson
	// says it too, so that those cells read back.
	NbformatMinor int
}

// Files returns the File cells in order.
func (l *Lesson) Files() []*Cell {
	var out []*Cell
	for i := range l.Cells {
		if l.Cells[i].Kind == File {
			out = append(out, &l.Cells[i])
		}
	}
	return out
}

// CellOf returns the cell made from node n, or nil.
func (l *Lesson) CellOf(n ast.Node) *Cell {
	for i := range l.Cells {
		if l.Cells[i].Node == n {
			return &l.Cells[i]
		}
	}
	return nil
}

// HasPython reports whether the lesson has Python cells, which need a
// Python session to run.
func (l *Lesson) HasPython() bool {
	for _, c := range l.Cells {
		if c.Kind == Python {
			return true
		}
	}
	return false
}
