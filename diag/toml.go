package diag

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// DecodeTOML decodes data into v, rejecting unknown keys. Every problem
// comes back as an *Error or Errors with the file and line; keys says,
// for an unknown key, which keys there are.
func DecodeTOML(file string, data []byte, v any, keys string) error {
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(v)
	var derr *toml.DecodeError
	var serr *toml.StrictMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &serr):
		var es Errors
		for i := range serr.Errors {
			e := &serr.Errors[i]
			row, _ := e.Position()
			es = append(es, &Error{File: file, Line: row, Msg: fmt.Sprintf("unknown key %q", strings.Join(e.Key(), ".")), Fix: keys})
		}
		return es
	case errors.As(err, &derr):
		row, _ := derr.Position()
		if m := typeErrRE.FindStringSubmatch(derr.Error()); m != nil && len(derr.Key()) > 0 {
			key := derr.Key()[len(derr.Key())-1]
			want := goTypeWords(m[2])
			return &Error{File: file, Line: row, Msg: fmt.Sprintf("%s is a TOML %s here, but must be %s", key, m[1], want), Fix: fmt.Sprintf("write %s as %s", key, want)}
		}
		return &Error{File: file, Line: row, Msg: "cannot read " + filepath.Base(file) + ": " + derr.Error(), Fix: "fix the TOML syntax at that line"}
	}
	return &Error{File: file, Msg: err.Error()}
}

// typeErrRE is go-toml's message for a value of the wrong type: the
// TOML type, then the Go type it should have had.
var typeErrRE = regexp.MustCompile(`cannot decode TOML (\w+) into struct field .* of type (\S+)$`)

// goTypeWords says a Go type as a course author writes its value.
func goTypeWords(t string) string {
	t = strings.TrimPrefix(t, "*")
	switch {
	case t == "bool":
		return "true or false"
	case t == "string":
		return `a string in quotes, e.g. "10s"`
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "[]string":
		return `a list of strings, e.g. ["a", "b"]`
	}
	return "a " + t
}

var tableRE = regexp.MustCompile(`^\s*\[\[\s*([A-Za-z0-9_-]+)\s*\]\]`)

// LineOf finds the line of key in the index-th [[table]] of a TOML file, or
// the table's header line when the key is not written, or 0. With table ""
// it looks at the keys before the first table.
func LineOf(data []byte, table string, index int, key string) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	line, seen, header := 0, -1, 0
	if table == "" {
		seen, index = 0, 0
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if m := tableRE.FindStringSubmatch(text); m != nil {
			if seen == index && m[1] != table {
				break
			}
			if m[1] == table {
				seen++
				if seen == index {
					header = line
				} else if seen > index {
					break
				}
			}
			continue
		}
		if seen == index && key != "" {
			k, _, ok := strings.Cut(strings.TrimSpace(text), "=")
			if ok && strings.TrimSpace(k) == key {
				return line
			}
		}
	}
	return header
}
