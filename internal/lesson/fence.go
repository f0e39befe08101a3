package lesson

import (
	"path"
	"strings"
	"unicode"
)

// Info is a fence's info string, read as a language and attributes:
//
//	```cuda file=pool.cu
//	```sh run
//	```{.cuda file="pool.cu"}
type Info struct {
	Lang  string
	Attrs map[string]string
}

// ParseInfo reads a fence's info string. Words of the form key=value (the
// value may be quoted) are attributes; a bare word after the language is an
// attribute with an empty value.
func ParseInfo(s string) Info {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	info := Info{Attrs: map[string]string{}}
	for i, w := range splitWords(s) {
		k, v, hasValue := strings.Cut(w, "=")
		if i == 0 && !hasValue {
			info.Lang = strings.ToLower(strings.TrimPrefix(k, "."))
			continue
		}
		info.Attrs[strings.ToLower(strings.TrimPrefix(k, "."))] = unquote(v)
	}
	return info
}

// splitWords splits on white space outside double or single quotes.
func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			cur.WriteRune(r)
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
			cur.WriteRune(r)
		case unicode.IsSpace(r):
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// LangOf guesses a code language from a file name.
func LangOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".cu", ".cuh":
		return "cuda"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "cpp"
	case ".py":
		return "python"
	case ".sh":
		return "sh"
	case ".toml":
		return "toml"
	case ".json":
		return "json"
	case ".mk":
		return "make"
	}
	if path.Base(name) == "Makefile" {
		return "make"
	}
	return "text"
}

// IsShell reports whether lang names a shell.
func IsShell(lang string) bool {
	switch lang {
	case "sh", "bash", "shell", "console", "zsh":
		return true
	}
	return false
}
