package notebook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/runner"
)

// fakeNVCC is an nvcc that notes how many builds run beside it and writes
// an empty program: it waits until a second build has started, or $WAIT
// tenths of a second.
const fakeNVCC = `#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; esac; shift; done
touch "$LOG/running.$$"
i=0
while [ "$(ls "$LOG" | grep -c running)" -lt 2 ] && [ $i -lt "$WAIT" ]; do sleep 0.1; i=$((i+1)); done
ls "$LOG" | grep -c running >> "$LOG/seen"
rm "$LOG/running.$$"
printf '#!/bin/sh\n' > "$out"; chmod +x "$out"
echo "built $out"
`

func fakeEnv(t *testing.T, wait string) (Env, string) {
	t.Helper()
	bin, log := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "nvcc"), []byte(fakeNVCC), 0o755); err != nil {
		t.Fatal(err)
	}
	return Env{Runner: runner.Exec{}, Wrapper: bin, Vars: []string{"LOG=" + log, "WAIT=" + wait}}, log
}

const twoPrograms = "# Two programs\n\n```cuda file=a.cu\nint main() {}\n```\n\n```sh run\nnvcc -o a a.cu && ./a\n```\n\n" +
	"```cuda file=b.cu\nint main() {}\n```\n\n```sh run\nnvcc -o b b.cu && ./b\n```\n"

func TestCompileOnlyInParallel(t *testing.T) {
	l, err := lesson.Parse("two.md", []byte(twoPrograms))
	if err != nil {
		t.Fatal(err)
	}
	env, log := fakeEnv(t, "50")
	ws := t.TempDir()
	var out bytes.Buffer
	outcomes, err := Run(context.Background(), l, env, Options{Workspace: ws, CompileOnly: true, Parallel: 4}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 4 {
		t.Fatalf("%d outcomes, want 4: %s", len(outcomes), out.String())
	}
	for i, o := range outcomes {
		if !o.OK || o.Cell.Number != i+1 {
			t.Errorf("outcome %d: cell [%d] ok=%v %s", i, o.Cell.Number, o.OK, o.Reason)
		}
	}
	seen, _ := os.ReadFile(filepath.Join(log, "seen"))
	if !strings.Contains(string(seen), "2") {
		t.Errorf("the two compiles did not overlap (builds running beside each: %q)", seen)
	}
	// Output comes in cell order, whatever order the builds ended in.
	text := out.String()
	if a, b := strings.Index(text, "built a"), strings.Index(text, "built b"); a < 0 || b < a {
		t.Errorf("output out of order:\n%s", text)
	}
	for _, f := range []string{"a.cu", "b.cu", "a", "b"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
}

// A lesson that writes a.cu twice compiles each version in turn: the first
// compile must not see the second version.
func TestCompileOnlyRewriteStaysInOrder(t *testing.T) {
	src := strings.ReplaceAll(twoPrograms, "file=b.cu", "file=a.cu")
	l, err := lesson.Parse("rewrite.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env, log := fakeEnv(t, "3")
	outcomes, err := Run(context.Background(), l, env, Options{Workspace: t.TempDir(), CompileOnly: true, Parallel: 4}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 4 {
		t.Fatalf("%d outcomes, want 4", len(outcomes))
	}
	seen, _ := os.ReadFile(filepath.Join(log, "seen"))
	if strings.TrimSpace(string(seen)) != "1\n1" {
		t.Errorf("builds ran side by side although a.cu is written twice: %q", seen)
	}
}
