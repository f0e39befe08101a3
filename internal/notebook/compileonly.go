package notebook

import (
	"path"
	"regexp"
	"strings"
)

// Under --compile-only a cell's commands are a dry run: only its builds
// run (nvcc, and the host compiler nvcc drives), and every other step is
// named as not run. A notebook is untrusted: a "compile" that runs its
// ! lines ran `rm -rf ~` and `pip install` on a machine without a GPU, so
// what runs is what is known to build, never what looks harmless.

// notRunStep is a step of a command that --compile-only does not run, and
// why.
type notRunStep struct {
	Step, Why string
}

// buildPlan is what --compile-only runs of a shell script: its nvcc steps
// (and cd into a folder of the workspace, which they may need), joined
// with &&; and every other step, not run.
func buildPlan(script string) (run []string, skipped []notRunStep) {
	lost := false // a cd not run: the steps after it would run elsewhere
	for _, step := range splitSteps(script) {
		step = strings.TrimSpace(step)
		if step == "" || strings.HasPrefix(step, "#") {
			continue
		}
		s, why := buildStep(step)
		if lost && why == "" {
			why = "it comes after a cd that is not run"
		}
		if why != "" && (step == "cd" || strings.HasPrefix(step, "cd ")) {
			lost = true
		}
		if why != "" {
			skipped = append(skipped, notRunStep{Step: step, Why: why})
			continue
		}
		run = append(run, s)
	}
	// A plan of cd alone builds nothing.
	builds := false
	for _, s := range run {
		builds = builds || !strings.HasPrefix(s, "cd ")
	}
	if !builds {
		run = nil
	}
	return run, skipped
}

const notABuild = "compile only runs nvcc alone"

// buildStep is the command --compile-only runs for one step, or why it
// runs none.
func buildStep(step string) (string, string) {
	words, why := shellWords(step)
	if why != "" {
		if len(words) > 0 && (isNVCC(words[0]) || words[0] == "time" && len(words) > 1 && isNVCC(words[1])) {
			return "", why
		}
		return "", notABuild
	}
	if len(words) > 0 && words[0] == "time" {
		words = words[1:]
	}
	if len(words) == 0 {
		return "", notABuild
	}
	if words[0] == "cd" {
		if len(words) == 2 && localPath(words[1]) {
			return "cd " + words[1], ""
		}
		return "", notABuild
	}
	if !isNVCC(words[0]) {
		return "", notABuild
	}
	if why := unsafeNVCC(words[1:]); why != "" {
		return "", why
	}
	// The nvcc on the PATH is the workspace's (the cache, the lesson's
	// architecture): /usr/local/cuda/bin/nvcc in a notebook is it too,
	// and ./nvcc a program of the notebook's, never run.
	_, rest, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(step), "time ")), words[0])
	return "nvcc" + rest, ""
}

// isNVCC tells whether a command's first word is nvcc: by that name on
// the PATH, or at an absolute path outside the workspace's reach (a
// CUDA toolkit's bin).
func isNVCC(w string) bool {
	return w == "nvcc" || strings.HasPrefix(w, "/") && path.Base(w) == "nvcc" && !strings.Contains(w, "..")
}

// localPath tells whether a path named in a build stays in the
// workspace: relative, without .., ~ or anything the shell expands.
func localPath(p string) bool {
	p = strings.Trim(p, `"'`)
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.ContainsAny(p, "$`\\") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}

// outputFlags are nvcc's (and the host compiler's) options that name a
// file or folder it writes: kept to the workspace.
var outputFlags = map[string]bool{
	"-o": true, "--output-file": true, "-odir": true, "--output-directory": true,
	"-MF": true, "--dependency-output": true, "-keep-dir": true, "--keep-dir": true,
	"-lib": false,
}

// hostCompilerRE is a compiler nvcc may drive (-ccbin g++-12,
// /usr/bin/clang++): named on the PATH or in the system's folders.
var hostCompilerRE = regexp.MustCompile(`^(/(usr|opt)/[\w./+-]*/)?(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|icpx|icx|nvc\+\+|cl\.exe)(-[\d.]+)?$`)

// unsafeNVCC says why nvcc with these arguments does more than build
// inside the workspace: it runs the program (-run), a host compiler of
// the notebook's (-ccbin ./cc), a compiler plugin or wrapper, options
// from a file, or writes outside the workspace. "" when it does not.
func unsafeNVCC(args []string) string {
	for i := 0; i < len(args); i++ {
		a := strings.Trim(args[i], `"'`)
		name, val, hasVal := strings.Cut(a, "=")
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) {
				i++
				return strings.Trim(args[i], `"'`)
			}
			return ""
		}
		switch {
		case name == "-run" || name == "--run" || name == "-run-args" || name == "--run-args":
			return "nvcc " + name + " runs the program it builds"
		case name == "-ccbin" || name == "--compiler-bindir":
			if v := next(); !hostCompilerRE.MatchString(v) {
				return "nvcc " + name + " " + v + " is not a compiler lessons knows (gcc, g++, clang in the system's folders)"
			}
		case name == "-optf" || name == "--options-file" || strings.HasPrefix(a, "@"):
			return "nvcc " + name + " reads its options from a file lessons does not check"
		case name == "-Xcompiler" || name == "--compiler-options" || name == "-Xlinker" || name == "--linker-options":
			for _, o := range strings.Split(next(), ",") {
				if why := unsafeHostFlag(strings.TrimSpace(o)); why != "" {
					return why
				}
			}
		case outputFlags[name]:
			if v := next(); !localPath(v) {
				return "nvcc " + name + " " + v + " writes outside the workspace"
			}
		case strings.HasPrefix(a, "-o") && len(a) > 2 && !strings.HasPrefix(a, "-odir") && !localPath(a[2:]):
			return "nvcc " + a + " writes outside the workspace"
		default:
			if why := unsafeHostFlag(a); why != "" {
				return why
			}
		}
	}
	return ""
}

// unsafeHostFlag says why a flag that reaches gcc or the linker runs code
// of the notebook's (a plugin, a wrapper, another program folder, specs).
func unsafeHostFlag(f string) string {
	for _, p := range []string{"-fplugin", "-wrapper", "-B", "-specs", "--specs", "-iplugindir", "-fuse-ld", "--ld-path", "-plugin", "--plugin", "-Wl,-plugin", "-Wl,--plugin", "-no-integrated-cpp", "-save-temps="} {
		if strings.HasPrefix(f, p) {
			return "the host compiler's " + p + " would run a program or plugin the notebook names"
		}
	}
	return ""
}

// shellWords splits one step into its words, quotes kept, and says why
// the shell would do more than run one command with them: a command or
// process substitution, a parameter expansion with an operator, a
// redirection to a file, a subshell or group, an assignment before the
// command (LD_PRELOAD=...).
func shellWords(step string) ([]string, string) {
	var words []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(step); i++ {
		ch := step[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			}
		case ch == '`' || ch == '$' && i+1 < len(step) && (step[i+1] == '(' || step[i+1] == '{' && !plainBrace(step[i:])):
			return words, "a command substitution or expansion (`...`, $(...), ${x:-...}) would run in the shell"
		case ch == '\\' && i+1 < len(step):
			cur.WriteByte(ch)
			i++
			ch = step[i]
		case quote == '"':
			if ch == '"' {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == ' ' || ch == '\t':
			flush()
			continue
		case ch == '(' || ch == ')' || ch == '{' && cur.Len() == 0 && len(words) == 0 || ch == '<':
			return words, "a subshell, group or redirection from a file is not a build"
		case ch == '>':
			// 2>&1 and >&2 only join streams; any other > writes a file
			if rest := step[i:]; strings.HasPrefix(rest, ">&1") || strings.HasPrefix(rest, ">&2") {
				cur.WriteString(rest[:3])
				i += 2
				continue
			}
			return words, "a redirection writes a file"
		case ch == '=' && len(words) == 0 && cur.Len() > 0 && !strings.HasPrefix(cur.String(), "-"):
			return words, "a variable set before the command (LD_PRELOAD=...) changes what runs"
		}
		cur.WriteByte(ch)
	}
	if quote != 0 {
		return words, "an unterminated quote: the shell would refuse the line"
	}
	flush()
	return words, ""
}

var plainBraceRE = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

// plainBrace tells whether s starts with ${NAME}, a plain expansion.
func plainBrace(s string) bool { return plainBraceRE.MatchString(s) }

// splitSteps splits a shell script at && || ; | & and line ends outside
// quotes (a \ at a line's end goes on), keeping 2>&1's & in its step.
func splitSteps(s string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else if ch == '\\' && quote == '"' && i+1 < len(s) {
				cur.WriteByte(ch)
				i++
				ch = s[i]
			}
		case ch == '\\' && i+1 < len(s):
			if s[i+1] == '\n' {
				i++
				cur.WriteByte(' ')
				continue
			}
			cur.WriteByte(ch)
			i++
			ch = s[i]
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '&' && i > 0 && (s[i-1] == '>' || s[i-1] == '<'):
			// 2>&1
		case ch == ';' || ch == '\n' || ch == '|' || ch == '&':
			parts = append(parts, cur.String())
			cur.Reset()
			if i+1 < len(s) && (ch == '|' || ch == '&') && s[i+1] == ch {
				i++
			}
			continue
		}
		cur.WriteByte(ch)
	}
	return append(parts, cur.String())
}
