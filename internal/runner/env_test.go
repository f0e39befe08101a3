package runner

import (
	"slices"
	"testing"
)

func TestHostEnvKeepsToolsNotSecrets(t *testing.T) {
	got := HostEnv([]string{
		"PATH=/usr/bin", "LD_LIBRARY_PATH=/usr/local/cuda/lib64", "LANG=C.UTF-8", "LC_ALL=C",
		"CANVAS_API_TOKEN=x", "GITHUB_TOKEN=x", "AWS_SECRET_ACCESS_KEY=x", "LESSONS_CLASS_TOKEN=x",
		"LESSONS_SERVE_TOKEN=x", "LESSONS_STATS_KEY=x", "SLURM_AUTH_TOKEN=x", "SSH_AUTH_SOCK=/tmp/a",
		"LESSONS_CACHE_MAX=1G", "SLURM_CONF=/etc/slurm.conf", "HOME=/root", "noequals",
		"CUDA_HOME=/usr/local/cuda", "PYTHONPATH=/opt/py", "HF_TOKEN=x", "OPENAI_API_KEY=x", "PGPASSWORD=x",
	}, "TMPDIR=/w")
	want := []string{"PATH=/usr/bin", "LD_LIBRARY_PATH=/usr/local/cuda/lib64", "LANG=C.UTF-8", "LC_ALL=C",
		"LESSONS_CACHE_MAX=1G", "SLURM_CONF=/etc/slurm.conf", "HOME=/root", "CUDA_HOME=/usr/local/cuda", "PYTHONPATH=/opt/py", "TMPDIR=/w"}
	if !slices.Equal(got, want) {
		t.Errorf("HostEnv = %q\nwant %q", got, want)
	}
}
