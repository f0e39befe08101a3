package notebook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/lesson"
)

// In Jupyter, a ! line and a cell magic's line are run by the kernel:
// `!nvcc -o {name} {name}.cu` and `%%cuda -c "$COMPILER_ARGS"` take the
// notebook's Python values, and a ! command sees what the Python cells
// put in os.environ and runs where %cd went. lessons runs those cells
// itself (for the cache, the limits and the compile errors), so before
// one runs, the run's Python session, when a Python cell has started one,
// is asked the same three things.

// contextCode is what the session runs (as cell 0, kept out of its
// history): the texts expanded by IPython's var_expand (the driver's
// own where there is no IPython), the environment and the folder, as
// one line of JSON after a marker. It runs at the top level, so that
// the names it expands are the notebook's, and leaves none of its own.
const contextCode = `import json as __lessons_json, os as __lessons_os
try:
    __lessons_x = get_ipython().var_expand
except NameError:
    __lessons_x = __lessons_expand__
__lessons_r = []
for __lessons_t in %s:
    __lessons_r.append(__lessons_x(__lessons_t))
print("\x1flessons-context" + __lessons_json.dumps({"texts": __lessons_r, "env": dict(__lessons_os.environ), "cwd": __lessons_os.getcwd()}))
del __lessons_json, __lessons_os, __lessons_x, __lessons_r, __lessons_t`

type sessionContext struct {
	Texts []string          `json:"texts"`
	Env   map[string]string `json:"env"`
	Cwd   string            `json:"cwd"`
}

// sessionOnly are variables a Python session sets for itself, which its
// ! lines see in Jupyter but which are the kernel's, not the notebook's.
func sessionOnly(k string) bool {
	for _, p := range []string{"LESSONS_PY_", "JPY_", "PYDEVD_"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	switch k {
	case "MPLBACKEND", "PYTHONUNBUFFERED", "CLICOLOR", "FORCE_COLOR", "PAGER", "GIT_PAGER", "TERM", "PWD", "OLDPWD", "_":
		return true
	}
	return false
}

// ipython is cell c (a ! cell or an nvcc4jupyter cell) as the run's
// Python session would have it run: its lines expanded, the variables
// the notebook set, the folder it went to. With no session, or where the
// session cannot say, c is run as it is.
func (st *state) ipython(ctx context.Context, c *lesson.Cell, env Env, opt Options, w io.Writer) (*lesson.Cell, Env, Options) {
	py := st.py
	if py == nil {
		py = st.opt.Python // the page's session, kept from cell to cell
	}
	if py == nil || !py.Alive() || (!c.Bang && c.CUDA == nil) {
		return c, env, opt
	}
	// IPython expands each ! line alone (a line whose {...} does not
	// evaluate is left whole, so bash's {a,b} stays bash's)
	texts := strings.Split(c.Text, "\n")
	if c.CUDA != nil {
		texts = []string{c.Label}
	}
	list, _ := json.Marshal(texts)
	var buf bytes.Buffer
	res, err := py.Run(ctx, 0, fmt.Sprintf(contextCode, list), &buf, 10*time.Second)
	if err != nil || !res.OK {
		return c, env, opt
	}
	var sc sessionContext
	_, line, ok := strings.Cut(buf.String(), "\x1flessons-context")
	if !ok || json.Unmarshal([]byte(strings.TrimSpace(line)), &sc) != nil || len(sc.Texts) != len(texts) {
		return c, env, opt
	}
	cc := *c
	for i, t := range sc.Texts {
		if t == texts[i] {
			continue
		}
		fmt.Fprintf(w, "(with the notebook's Python values: %s)\n", strings.TrimSpace(t))
	}
	if c.CUDA != nil && sc.Texts[0] != c.Label {
		m, err := lesson.ParseCUDAMagic(sc.Texts[0])
		if err != nil {
			return c, env, opt
		}
		cc.CUDA, cc.Label = m, sc.Texts[0]
	} else if c.CUDA == nil {
		cc.Text = strings.Join(sc.Texts, "\n")
	}
	// What the Python cells set in os.environ, over what the session
	// started with.
	base := map[string]string{}
	for _, kv := range CellEnv(env) {
		k, v, _ := strings.Cut(kv, "=")
		base[k] = v
	}
	env.Vars = append([]string(nil), env.Vars...)
	for k, v := range sc.Env {
		if old, ok := base[k]; (!ok || old != v) && !sessionOnly(k) {
			env.Vars = append(env.Vars, k+"="+v)
		}
	}
	if sc.Cwd != "" && c.Bang {
		if rel, err := filepath.Rel(opt.Workspace, sc.Cwd); err == nil && rel != "." && filepath.IsLocal(rel) {
			opt.Workspace = sc.Cwd
		} else if err == nil && rel != "." {
			fmt.Fprintf(w, "(the Python cells went to %s, outside the lesson's workspace: the command runs in the workspace)\n", sc.Cwd)
		}
	}
	return &cc, env, opt
}
