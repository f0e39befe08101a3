package slurm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Door 4: sbatch hands the submitter's environment to the job
// (--export=ALL), so a pilot submitted by a class server ran with the
// server's LMS token. The environment sbatch is given is built for it.
func TestAttackSbatchGetsNoSecrets(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "env")
	script := "#!/bin/sh\nenv > " + dump + "\necho 42\n"
	if err := os.WriteFile(filepath.Join(dir, "sbatch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	t.Setenv("CANVAS_API_TOKEN", "canvas-sekrit")
	t.Setenv("MOODLE_WSTOKEN", "moodle-sekrit")
	t.Setenv("SLURM_CONF", "/etc/slurm/slurm.conf")
	id, err := Cluster{Exec: Command}.Submit(context.Background(), "job.sh")
	if err != nil || id != "42" {
		t.Fatalf("submit: %q %v", id, err)
	}
	env, _ := os.ReadFile(dump)
	for _, s := range []string{"canvas-sekrit", "moodle-sekrit"} {
		if strings.Contains(string(env), s) {
			t.Errorf("sbatch was given %s", s)
		}
	}
	if !strings.Contains(string(env), "SLURM_CONF=/etc/slurm/slurm.conf") {
		t.Errorf("sbatch lost Slurm's own settings: %s", env)
	}
}
