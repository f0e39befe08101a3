package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestInviteWritesALinkEach(t *testing.T) {
	dir := t.TempDir()
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id,name,email\nann,Ann,ann@uni.example\nbob,Bob,\n"), 0o644)
	ios, _, out, _ := iostreams.Test()
	cmd := newInvite(ios)
	cmd.SetArgs([]string{"--class", filepath.Join(dir, "class"), "--roster", roster, "--url", "https://gpu.uni.example/"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "ann,Ann,ann@uni.example,https://gpu.uni.example/_class/signin?link=") {
		t.Fatalf("links:\n%s", out.String())
	}
	if st, err := os.Stat(filepath.Join(dir, "class", ".class")); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the class's private folder: %v %v", st, err)
	}
	for _, args := range [][]string{
		{"--class", filepath.Join(dir, "class"), "--roster", roster, "--url", "gpu.uni.example"},
		{"--class", filepath.Join(dir, "class"), "--url", "https://gpu.uni.example"},
	} {
		cmd = newInvite(ios)
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "https://") && !strings.Contains(err.Error(), "--roster") {
			t.Errorf("invite %q: %v", args, err)
		}
	}
}

func TestServeClassFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ServeOptions
	cmd := newServe(ios, &globals{}, func(o *ServeOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--class", "/srv/class", "--roster", "r.csv", "--max-queued", "2", "--gpu-per-hour", "5m", "--instructor", "a@x", "--instructor", "b@x"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	o := got.ClassOpts
	if o.Dir != "/srv/class" || o.MaxQueued != 2 || o.GPUPerHour.Minutes() != 5 || len(o.Instructors) != 2 {
		t.Fatalf("flags: %+v", o)
	}
}

func TestSubmitNeedsServerAndToken(t *testing.T) {
	t.Setenv("LESSONS_CLASS_SERVER", "")
	t.Setenv("LESSONS_CLASS_TOKEN", "")
	ios, _, _, _ := iostreams.Test()
	cmd := newSubmit(ios)
	cmd.SetArgs([]string{"pool", "pool.cu"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "LESSONS_CLASS_TOKEN") {
		t.Fatalf("submit without a token: %v", err)
	}
}

// serve --class and grade --slurm name Slurm's options alike; the class's
// old names still work, hidden, and say so.
func TestOneSlurmVocabulary(t *testing.T) {
	for _, args := range [][]string{
		{"--partition", "gpu", "--sbatch-arg=--constraint=h100", "--time", "4:00:00", "--lessons-binary", "/opt/lessons"},
		{"--slurm-partition", "gpu", "--slurm-sbatch-arg=--constraint=h100", "--slurm-time", "4:00:00", "--slurm-exe", "/opt/lessons"},
	} {
		ios, _, _, errOut := iostreams.Test()
		var got *ServeOptions
		cmd := newServe(ios, &globals{}, func(o *ServeOptions) error { got = o; return nil })
		cmd.SetErr(errOut)
		cmd.SetArgs(append([]string{"--class", "/srv/class", "--slurm-nodes", "4", "--slurm-build-nodes", "1", "--slurm-only"}, args...))
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		s := got.ClassOpts.Slurm
		if !s.On() || s.Nodes != 4 || s.Builders != 1 || !s.Only || s.Options.RunPartition != "gpu" || s.Options.Extra[0] != "--constraint=h100" || s.Options.Time != "4:00:00" || s.Exe != "/opt/lessons" {
			t.Errorf("%q: %+v", args, s)
		}
		if !cmd.Flags().Changed("partition") || !cmd.Flags().Changed("time") {
			t.Errorf("%q: --partition and --time not changed, so course.toml's [grade.slurm] would win over them", args)
		}
		old := strings.HasPrefix(args[0], "--slurm-")
		if said := strings.Contains(errOut.String(), "--slurm-partition is deprecated: use --partition (grade --slurm's name)"); said != old {
			t.Errorf("%q: the deprecation line %v, want %v:\n%s", args, said, old, errOut)
		}
	}
	var help bytes.Buffer
	ios, _, _, _ := iostreams.Test()
	cmd := newServe(ios, &globals{}, nil)
	cmd.SetOut(&help)
	cmd.Usage()
	if strings.Contains(help.String(), "--slurm-partition") || !strings.Contains(help.String(), "--partition") {
		t.Errorf("serve's help shows the old names, or not the new:\n%s", help.String())
	}
	ios, _, _, _ = iostreams.Test()
	grade := newGrade(ios, &globals{}, nil)
	for _, name := range []string{"partition", "build-partition", "account", "qos", "time", "sbatch-arg", "lessons-binary"} {
		if grade.Flags().Lookup(name) == nil || cmd.Flags().Lookup(name) == nil {
			t.Errorf("--%s is not a flag of both grade and serve", name)
		}
	}
}
