package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	c, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "cuda", "bin", "nvcc"))
	if err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("the stand-in nvcc: %v, %v", st, err)
	}
	for _, p := range []string{c.Course + "/course.toml", c.Submissions + "/ana/saxpy.cu", c.Roster, dir + "/env.sh"} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if env, _ := os.ReadFile(filepath.Join(dir, "env.sh")); !strings.Contains(string(env), "export LESSONS_GPU='demo'") {
		t.Errorf("env.sh:\n%s", env)
	}
	if _, err := Write(dir); err == nil || !strings.Contains(err.Error(), "the folder is not empty") {
		t.Errorf("a second demo over the first: %v", err)
	}
}
