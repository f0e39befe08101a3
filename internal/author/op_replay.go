package author

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

var mainRE = regexp.MustCompile(`(?m)^\s*int\s+main\s*\(`)

// replay replaces the program by one that prints, for each run the spec
// makes, what the solution printed for that run's arguments and
// environment, and makes no CUDA call. It runs before main (a
// constructor, told argc, argv and envp by the C library), so that a
// file without main (a header the exercise's main includes) keeps its
// declarations and the rest compiles.
func (m *mutator) replay(runs []RecordedRun) {
	// The most specific run first: more environment to match.
	order := slices.Clone(runs)
	sort.SliceStable(order, func(i, j int) bool { return len(order[i].Env) > len(order[j].Env) })
	if strings.EqualFold(filepath.Ext(m.src.File), ".py") {
		m.addData("replay", "replay", 0, pythonReplay(order, runs[0].Output))
		return
	}
	var b strings.Builder
	b.WriteString("#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n")
	b.WriteString("static bool lessons_env(char** envp, const char* kv) {\n    for (char** e = envp; e && *e; e++) if (strcmp(*e, kv) == 0) return true;\n    return false;\n}\n")
	b.WriteString("__attribute__((constructor)) static void lessons_replay(int argc, char** argv, char** envp) {\n")
	for _, r := range order {
		cond := []string{fmt.Sprintf("argc == %d", len(r.Args)+1)}
		for i, a := range r.Args {
			cond = append(cond, fmt.Sprintf("strcmp(argv[%d], %s) == 0", i+1, cString(a)))
		}
		keys := make([]string, 0, len(r.Env))
		for k := range r.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cond = append(cond, "lessons_env(envp, "+cString(k+"="+r.Env[k])+")")
		}
		fmt.Fprintf(&b, "    if (%s) {\n        fputs(%s, stdout);\n        fflush(stdout);\n        _Exit(0);\n    }\n", strings.Join(cond, " && "), cString(r.Output))
	}
	fmt.Fprintf(&b, "    fputs(%s, stdout);\n    fflush(stdout);\n    _Exit(0);\n}\n", cString(runs[0].Output))
	prog := b.String()
	if mainRE.Match(m.base) {
		prog += "int main() { return 0; }\n"
	} else {
		prog = string(m.base) + "\n" + prog
	}
	m.addData("replay", "replay", 0, prog)
}

// pythonReplay is the replay mutant of a Python exercise (run as python3
// FILE.py): a script in Python, since C appended to the solution is a
// SyntaxError, a mutant killed by exit whatever the spec checks. order
// is the runs, the most specific first; printed is what a run that
// matches none prints (the public run's output, as in C).
func pythonReplay(order []RecordedRun, printed string) string {
	var b strings.Builder
	b.WriteString("import os\nimport sys\n\nRUNS = [\n")
	for _, r := range order {
		args, _ := json.Marshal(append([]string{}, r.Args...))
		env, _ := json.Marshal(r.Env)
		if r.Env == nil {
			env = []byte("{}")
		}
		out, _ := json.Marshal(r.Output)
		fmt.Fprintf(&b, "    (%s, %s, %s),\n", args, env, out)
	}
	out, _ := json.Marshal(printed)
	fmt.Fprintf(&b, "]\n\nprinted = %s\n", out)
	b.WriteString("for args, env, out in RUNS:\n")
	b.WriteString("    if sys.argv[1:] == args and all(os.environ.get(k) == v for k, v in env.items()):\n")
	b.WriteString("        printed = out\n        break\n")
	b.WriteString("sys.stdout.buffer.write(printed.encode(\"utf-8\", \"surrogateescape\"))\nsys.stdout.flush()\nos._exit(0)\n")
	return b.String()
}

// cString is s as a C string literal.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range []byte(s) {
		switch {
		case r == '\n':
			b.WriteString(`\n"` + "\n    \"")
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(r)
		case r == '?':
			b.WriteString(`\?`) // no trigraphs
		case r < 0x20 || r >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		default:
			b.WriteByte(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
