package course

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var updateReference = flag.Bool("update-reference", false, "rewrite docs/reference/spec.md")

// table is one TOML table of the reference: its heading, what it is, and
// the Go struct whose toml tags are its keys.
type table struct {
	heading, about, file, goType string
}

var courseTables = []table{
	{"Top level", "", "internal/course/manifest.go", "Manifest"},
	{"[[lesson]]", "One per lesson, in the course's order.", "internal/course/manifest.go", "ManifestLesson"},
	{"[[exercise]]", "One per exercise.", "internal/course/manifest.go", "ManifestExercise"},
	{"[grade.slurm]", "Where `lessons grade --slurm` sends its tasks; each key has a flag of `lessons grade` that overrides it.", "internal/slurm/script.go", "Options"},
	{"[class]", "Where the class runs the course.", "internal/course/manifest.go", "ManifestClass"},
	{"[notebook]", "Where an exported notebook's first cell gets `lessons` and the course (Colab, Kaggle): one of `binary` and `go_install`, and `repository`.", "internal/course/manifest.go", "ManifestNotebook"},
}

var specTables = []table{
	{"Top level", "", "checker/spec.go", "Spec"},
	{"[[check]]", "One per check: exactly one of `contains`, `not_contains`, `regex`, `exit`, `stat` or `sanitizer`, with bounds for `regex` and `stat`.", "checker/spec.go", "Check"},
	{"[[hidden_run]]", "Another run of the program, in grade and verify only, judged by the checks that name it.", "checker/hidden.go", "HiddenRun"},
	{"[[equivalent_mutants]]", "A mutant the author accepts as no mistake.", "checker/hidden.go", "Equivalent"},
}

// TestSpecReference fails when docs/reference/spec.md is not what the
// structs that course.toml and a spec are decoded into say (their toml
// tags and doc comments); -update-reference rewrites it.
func TestSpecReference(t *testing.T) {
	root := filepath.Join("..", "..")
	var b strings.Builder
	b.WriteString("# Spec and course keys\n\n")
	b.WriteString("Generated from the structs `course.toml` and an exercise's spec are read into\n")
	b.WriteString("(their `toml` tags and doc comments; `go test ./internal/course -run TestSpecReference\n")
	b.WriteString("-update-reference`); a test fails when this page and the code disagree. An unknown\n")
	b.WriteString("key is an error, with its file and line. How checks work: [specs and checks](../checks.md);\n")
	b.WriteString("the course's layout: [for course authors](../authors.md#the-course-on-disk).\n\n")
	b.WriteString("- [course.toml](#coursetoml)\n- [An exercise's spec](#an-exercises-spec)\n")
	b.WriteString("\n## course.toml\n\nThe course's title, its lessons in order, and their exercises, at the course's root.\n")
	for _, tb := range courseTables {
		writeTable(t, &b, root, tb)
	}
	b.WriteString("\n## An exercise's spec\n\nBeside the student's file, with the extension `.toml`\n")
	b.WriteString("(`exercises/day069/async_pipeline.toml`); a secret spec beside the solution adds hidden\n")
	b.WriteString("checks and runs with the same keys.\n")
	for _, tb := range specTables {
		writeTable(t, &b, root, tb)
	}
	got := []byte(b.String())
	page := filepath.Join(root, "docs", "reference", "spec.md")
	if *updateReference {
		if err := os.WriteFile(page, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v (make it with go test ./internal/course -run TestSpecReference -update-reference)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the spec's and course.toml's structs say: run go test ./internal/course -run TestSpecReference -update-reference", page)
	}
}

func writeTable(t *testing.T, b *strings.Builder, root string, tb table) {
	t.Helper()
	st := findStruct(t, filepath.Join(root, tb.file), tb.goType)
	fmt.Fprintf(b, "\n### %s\n\n", tb.heading)
	if tb.about != "" {
		fmt.Fprintf(b, "%s\n\n", tb.about)
	}
	b.WriteString("| key | type | meaning |\n| --- | --- | --- |\n")
	for _, f := range st.Fields.List {
		if f.Tag == nil || len(f.Names) != 1 {
			continue
		}
		tag, _ := strconv.Unquote(f.Tag.Value)
		key, _, _ := strings.Cut(reflect.StructTag(tag).Get("toml"), ",")
		if key == "" || key == "-" {
			continue
		}
		doc := strings.Join(strings.Fields(f.Doc.Text()+" "+f.Comment.Text()), " ")
		if doc == "" {
			t.Errorf("%s.%s (%s) has no doc comment: say what the key means there", tb.goType, f.Names[0].Name, tb.file)
		}
		if name := f.Names[0].Name; strings.HasPrefix(doc, name+" ") || strings.HasPrefix(doc, name+",") {
			doc = "`" + key + "`" + strings.TrimPrefix(doc, name)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", key, typeWords(f.Type), strings.ReplaceAll(doc, "|", `\|`))
	}
}

func findStruct(t *testing.T, file, name string) *ast.StructType {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var st *ast.StructType
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == name {
			st, _ = ts.Type.(*ast.StructType)
		}
		return st == nil
	})
	if st == nil {
		t.Fatalf("%s: no struct %s", file, name)
	}
	return st
}

func typeWords(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeWords(e.X)
	case *ast.ArrayType:
		if id, ok := e.Elt.(*ast.Ident); ok && id.Name == "string" {
			return "list of strings"
		}
		return "array of tables"
	case *ast.MapType:
		return "table of strings"
	case *ast.Ident:
		switch e.Name {
		case "string":
			return "string"
		case "int":
			return "integer"
		case "float64":
			return "number"
		case "bool":
			return "boolean"
		}
		return "table"
	case *ast.SelectorExpr:
		return "table"
	}
	return "?"
}
