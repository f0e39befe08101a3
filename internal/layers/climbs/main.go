// Command climbs counts, for the flows of lessons (ARCHITECTURE.md's
// "Climbs back up"), the places where a package
// hands a lower floor something of its own (or a higher floor's) to call
// back: a func literal or func value, or a value of a higher floor's type
// given where the lower package expects an interface (a call's argument,
// a struct field, an assignment to a field). Each is a "climb back up":
// a call from a lower floor into a higher one at run time. Run from the
// repository's root: go run ./internal/layers/climbs . [FLOW] (FLOW lists
// that flow's sites). It type-checks from source: about a minute.
package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go/importer"
	"go/parser"
	"go/token"
	"io/fs"
)

const module = "github.com/cudalessons/lessons/"

func floors(root string) map[string]int {
	data, _ := os.ReadFile(filepath.Join(root, "internal/layers/layers_test.go"))
	s := string(data)
	i := strings.Index(s, "var floors = [][]string{")
	s = s[i:]
	s = s[:strings.Index(s, "\n}\n")]
	out := map[string]int{}
	lines := regexp.MustCompile(`\{([^{}]*)\}`).FindAllStringSubmatch(s, -1)
	for n, l := range lines {
		for _, q := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(l[1], -1) {
			out[q[1]] = n
		}
	}
	return out
}

func main() {
	root, err := filepath.Abs(os.Args[1])
	if err != nil {
		panic(err)
	}
	fl := floors(root)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)
	type pkg struct {
		files   []*ast.File
		names   []string
		info    *types.Info
		imports map[string]bool
	}
	byPath := map[string]*pkg{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() {
			n := d.Name()
			if p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "carry" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		if byPath[rel] == nil {
			byPath[rel] = &pkg{imports: map[string]bool{}}
		}
		byPath[rel].files = append(byPath[rel].files, f)
		byPath[rel].names = append(byPath[rel].names, p)
		for _, im := range f.Imports {
			byPath[rel].imports[strings.Trim(im.Path.Value, "\"")] = true
		}
		return nil
	})
	for path, p := range byPath {
		if _, ok := fl[path]; !ok {
			continue
		}
		p.info = &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		conf.Check(module+path, fset, p.files, p.info)
	}
	closure := func(rootPkg string) map[string]bool {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			if seen[p] || byPath[p] == nil {
				return
			}
			seen[p] = true
			for im := range byPath[p].imports {
				walk(strings.TrimPrefix(im, module))
			}
		}
		walk(rootPkg)
		return seen
	}
	floorOf := func(obj types.Object) (string, int, bool) {
		if obj == nil || obj.Pkg() == nil {
			return "", 0, false
		}
		p := strings.TrimPrefix(obj.Pkg().Path(), module)
		f, ok := fl[p]
		return p, f, ok
	}
	typeHome := func(t types.Type) types.Object {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return n.Obj()
		}
		return nil
	}
	type site struct{ pos, from, to, what string }
	var sites []site
	for path, p := range byPath {
		fp, ok := fl[path]
		if !ok {
			continue
		}
		info := p.info
		if info == nil {
			continue
		}
		for fi, f := range p.files {
			file := p.names[fi]
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			// given checks expression e handed to a slot of type want
			// that package q (floor fq) declared.
			given := func(e ast.Expr, want types.Type, q string, fq int) {
				e = ast.Unparen(e)
				tv := info.Types[e]
				if tv.Type == nil {
					return
				}
				what := ""
				switch x := e.(type) {
				case *ast.FuncLit:
					what = "func literal"
				case *ast.Ident, *ast.SelectorExpr:
					var obj types.Object
					if id, ok := x.(*ast.Ident); ok {
						obj = info.Uses[id]
					} else {
						obj = info.Uses[x.(*ast.SelectorExpr).Sel]
						if sel := info.Selections[x.(*ast.SelectorExpr)]; sel != nil {
							obj = sel.Obj()
						}
					}
					if fn, ok := obj.(*types.Func); ok {
						if hp, hf, ok := floorOf(fn); ok && hf > fq {
							what = "func value " + hp + "." + fn.Name()
						}
					}
				}
				if what == "" {
					_, isIface := want.Underlying().(*types.Interface)
					if _, _, own := floorOf(typeHome(want)); isIface && own {
						if home := typeHome(tv.Type); home != nil {
							if hp, hf, ok := floorOf(home); ok && hf > fq {
								what = "a " + hp + "." + home.Name() + " as an interface"
							}
						}
					}
				}
				if what == "" || fq >= fp {
					return
				}
				sites = append(sites, site{fset.Position(e.Pos()).String(), path, q, what})
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					var callee types.Object
					switch fun := ast.Unparen(n.Fun).(type) {
					case *ast.Ident:
						callee = info.Uses[fun]
					case *ast.SelectorExpr:
						if sel := info.Selections[fun]; sel != nil {
							callee = sel.Obj()
						} else {
							callee = info.Uses[fun.Sel]
						}
					}
					fn, ok := callee.(*types.Func)
					if !ok {
						return true
					}
					q, fq, ok := floorOf(fn)
					if !ok {
						return true
					}
					sig := fn.Type().(*types.Signature)
					for i, a := range n.Args {
						var want types.Type
						switch {
						case sig.Variadic() && i >= sig.Params().Len()-1:
							want = sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
						case i < sig.Params().Len():
							want = sig.Params().At(i).Type()
						default:
							continue
						}
						given(a, want, q, fq)
					}
				case *ast.CompositeLit:
					tv := info.Types[n]
					home := typeHome(tv.Type)
					q, fq, ok := floorOf(home)
					if !ok {
						return true
					}
					st, ok := tv.Type.Underlying().(*types.Struct)
					if !ok {
						if pt, isP := tv.Type.(*types.Pointer); isP {
							st, ok = pt.Elem().Underlying().(*types.Struct)
						}
					}
					if !ok {
						return true
					}
					for _, el := range n.Elts {
						kv, ok := el.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						id, ok := kv.Key.(*ast.Ident)
						if !ok {
							continue
						}
						for i := 0; i < st.NumFields(); i++ {
							if st.Field(i).Name() == id.Name {
								given(kv.Value, st.Field(i).Type(), q, fq)
							}
						}
					}
				case *ast.AssignStmt:
					for i, l := range n.Lhs {
						sel, ok := l.(*ast.SelectorExpr)
						if !ok || i >= len(n.Rhs) || len(n.Lhs) != len(n.Rhs) {
							continue
						}
						s := info.Selections[sel]
						if s == nil || s.Kind() != types.FieldVal {
							continue
						}
						q, fq, ok := floorOf(s.Obj())
						if !ok {
							continue
						}
						given(n.Rhs[i], s.Obj().Type(), q, fq)
					}
				}
				return true
			})
		}
	}
	sort.Slice(sites, func(i, j int) bool { return sites[i].pos < sites[j].pos })
	flows := []struct {
		name  string
		roots []string
		cli   []string
	}{
		{"check", []string{"internal/study"}, []string{"check.go", "watch.go"}},
		{"grade", []string{"internal/grade"}, []string{"grade.go"}},
		{"slurm", []string{"internal/grade/cluster"}, []string{"gradeslurm.go"}},
		{"page", []string{"internal/page"}, []string{"serve.go"}},
		{"class", []string{"internal/classroom", "internal/classroom/classcmd"}, []string{"class.go"}},
	}
	verbose := len(os.Args) > 2
	for _, f := range flows {
		in := map[string]bool{}
		for _, r := range f.roots {
			for p := range closure(r) {
				in[p] = true
			}
		}
		n := 0
		for _, s := range sites {
			cliFile := false
			if s.from == "internal/cli" {
				for _, c := range f.cli {
					if strings.Contains(s.pos, "/internal/cli/"+c+":") {
						cliFile = true
					}
				}
			}
			if (in[s.from] || cliFile) && in[s.to] {
				n++
				if verbose && os.Args[2] == f.name {
					fmt.Printf("  %s: %s -> %s: %s\n", s.pos, s.from, s.to, s.what)
				}
			}
		}
		fmt.Printf("%s: %d\n", f.name, n)
	}
}
