package lesson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// nbformat 3 (IPython 1 to 3, 2013 to 2015) is what older GPU courses on
// GitHub still hold (numbapro's, PyCUDA's tutorials). It is read by
// upgrading it as nbformat's own v3 to v4 conversion does, then reading
// that; every cell keeps its line in the file as written.

// v3Cell is a cell of an nbformat 3 worksheet.
type v3Cell struct {
	Type     string          `json:"cell_type"`
	Source   multiline       `json:"source"`
	Input    multiline       `json:"input"`
	Level    int             `json:"level"`
	Language string          `json:"language"`
	Metadata json.RawMessage `json:"metadata"`
	Outputs  []v3Output      `json:"outputs"`
}

// v3Output is an output of nbformat 3: its data under short names (png,
// text, html) beside its type.
type v3Output map[string]json.RawMessage

// v3MIME is nbformat 3's short name of each MIME type.
var v3MIME = map[string]string{
	"text": "text/plain", "html": "text/html", "svg": "image/svg+xml", "png": "image/png",
	"jpeg": "image/jpeg", "latex": "text/latex", "json": "application/json", "javascript": "application/javascript",
}

// upgradeV3 is an nbformat 3 notebook as nbformat 4, one cell a line from
// its second line, and the line in src of each of those cells.
func upgradeV3(file string, src []byte, top map[string]json.RawMessage, lines lineIndex) ([]byte, []int, error) {
	var sheets []struct {
		Cells json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(top["worksheets"], &sheets); err != nil || top["worksheets"] == nil {
		return nil, nil, &Error{File: file, Line: 1, Msg: "this nbformat 3 notebook has no worksheets list", Fix: `an nbformat 3 notebook has "worksheets": [{"cells": [...]}]; save it again from Jupyter`}
	}
	var cells []string
	var at []int
	off := 0
	lang := ""
	for _, sh := range sheets {
		var raws []json.RawMessage
		if len(sh.Cells) > 0 {
			if j := bytes.Index(src[off:], sh.Cells); j >= 0 {
				off += j
			}
		}
		if err := json.Unmarshal(sh.Cells, &raws); err != nil && len(sh.Cells) > 0 {
			return nil, nil, &Error{File: file, Line: lines.line(off), Msg: "a worksheet's cells is not a list", Fix: "save the notebook again from Jupyter"}
		}
		for _, raw := range raws {
			if j := bytes.Index(src[off:], raw); j >= 0 {
				off += j
			}
			line := lines.line(off)
			off += len(raw)
			var c v3Cell
			if err := json.Unmarshal(raw, &c); err != nil {
				return nil, nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("cell %d: %v", len(cells)+1, err), Fix: "save the notebook again from Jupyter"}
			}
			v4 := map[string]any{"cell_type": c.Type, "metadata": json.RawMessage("{}")}
			if len(c.Metadata) > 0 && json.Valid(c.Metadata) {
				v4["metadata"] = c.Metadata
			}
			switch c.Type {
			case "heading":
				level := min(max(c.Level, 1), 6)
				v4["cell_type"] = "markdown"
				v4["source"] = strings.Repeat("#", level) + " " + strings.Join(strings.Fields(string(c.Source)), " ")
			case "code":
				v4["source"] = string(c.Input)
				v4["execution_count"] = nil
				v4["outputs"] = upgradeOutputs(c.Outputs)
				if lang == "" && c.Language != "" {
					lang = c.Language
				}
			default: // markdown, raw (and what ParseIpynb names as unknown)
				v4["source"] = string(c.Source)
			}
			b, err := json.Marshal(v4)
			if err != nil {
				return nil, nil, err
			}
			cells = append(cells, string(b))
			at = append(at, line)
		}
	}
	meta := map[string]any{}
	if lang != "" {
		meta["language_info"] = map[string]string{"name": lang}
	}
	metaJSON, _ := json.Marshal(meta)
	doc := fmt.Sprintf("{\"nbformat\": 4, \"nbformat_minor\": 0, \"metadata\": %s, \"cells\": [\n%s\n]}\n", metaJSON, strings.Join(cells, ",\n"))
	return []byte(doc), at, nil
}

// upgradeOutputs are nbformat 3 outputs as nbformat 4 has them.
func upgradeOutputs(outs []v3Output) []map[string]any {
	res := []map[string]any{}
	for _, o := range outs {
		var typ string
		_ = json.Unmarshal(o["output_type"], &typ)
		out := map[string]any{}
		switch typ {
		case "stream":
			var name string
			_ = json.Unmarshal(o["stream"], &name)
			out["output_type"], out["name"], out["text"] = "stream", name, o["text"]
		case "pyerr", "error":
			out["output_type"], out["ename"], out["evalue"], out["traceback"] = "error", o["ename"], o["evalue"], o["traceback"]
		case "pyout", "execute_result", "display_data":
			out["output_type"] = "display_data"
			if typ != "display_data" {
				out["output_type"] = "execute_result"
			}
			data := map[string]json.RawMessage{}
			for _, k := range slices.Sorted(maps.Keys(o)) {
				if mime, ok := v3MIME[k]; ok {
					data[mime] = o[k]
				}
			}
			out["data"], out["metadata"] = data, map[string]any{}
		default:
			continue
		}
		res = append(res, out)
	}
	return res
}

// parseV3 reads an nbformat 3 notebook through its upgrade, its cells'
// lines and its errors' put back at the file's own.
func parseV3(file string, src []byte, top map[string]json.RawMessage, lines lineIndex) (*Lesson, error) {
	v4, at, err := upgradeV3(file, src, top, lines)
	if err != nil {
		return nil, err
	}
	// cell i of the upgrade is on its line i+2
	orig := func(line int) int {
		if i := line - 2; i >= 0 && i < len(at) {
			return at[i]
		}
		return 1
	}
	l, err := ParseIpynb(file, v4)
	for _, e := range AsErrors(err) {
		e.Line, e.Col = orig(e.Line), 0
	}
	if l == nil {
		return nil, err
	}
	for i := range l.Cells {
		l.Cells[i].Line = orig(l.Cells[i].Line)
	}
	l.Source = src
	return l, err
}
