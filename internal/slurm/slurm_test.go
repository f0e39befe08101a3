package slurm

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestScript(t *testing.T) {
	o := Options{BuildPartition: "cpu", RunPartition: "gpu", Account: "cs101", QOS: "short", Time: "30:00", Throttle: 8, Extra: []string{"--constraint=h100"}}.Defaults()
	j := Job{Name: StageRun, GPU: true, Tasks: 12, Dir: "/shared/gb.db.slurm", Args: []string{"run", "/shared/gb.db.slurm/plan-0.json"}, Exe: "/opt/lessons", Course: "/shared/my course", Cache: "/shared/cache", Env: []string{"LESSONS_SANDBOX_READ=/opt/cuda"}}
	s := Script(j, o)
	for _, want := range []string{"#SBATCH --array=0-11%8\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --partition=gpu\n", "#SBATCH --account=cs101\n", "#SBATCH --qos=short\n",
		"#SBATCH --time=30:00\n", "#SBATCH --constraint=h100\n", "#SBATCH --output=/shared/gb.db.slurm/logs/run-%A_%a.log\n",
		"cd '/shared/my course'\n", "export LESSONS_CACHE=/shared/cache\n", "export LESSONS_SANDBOX_READ=/opt/cuda\n",
		"exec /opt/lessons --course '/shared/my course' grade worker run /shared/gb.db.slurm/plan-0.json\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("run script lacks %q:\n%s", want, s)
		}
	}
	j.Name, j.GPU = StageBuild, false
	s = Script(j, o)
	if strings.Contains(s, "--gres") || !strings.Contains(s, "#SBATCH --partition=cpu\n") || !strings.Contains(s, "#SBATCH --cpus-per-task=4\n") {
		t.Errorf("build script:\n%s", s)
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Time: "an hour"}, "not a Slurm time limit"},
		{Options{RunPartition: "gpu; rm -rf"}, "no spaces, quotes or shell characters"},
		{Options{Throttle: -1}, "throttle -1"},
		{Options{Extra: []string{"constraint=a100"}}, "give options such as"},
	} {
		if err := c.o.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
	if err := (Options{Time: "1-00:00:00", RunPartition: "gpu", Extra: []string{"--mail-type=END"}}).Check(); err != nil {
		t.Error(err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("12_3|RUNNING|None\n12_[4-9%2]|PENDING|JobArrayTaskLimit\nJobId=1 ArrayJobId=1 ArrayTaskId=0 JobState=CANCELLED Reason=None")
	f.Add("12_3|CANCELLED by 0|None")
	f.Fuzz(func(t *testing.T, s string) {
		for _, tk := range append(append(parseQueue([]byte(s)), parseAcct([]byte(s))...), parseScontrol([]byte(s))...) {
			if tk.Job == "" || tk.Index < 0 && !strings.Contains(s, "-") {
				t.Errorf("task %+v from %q", tk, s)
			}
		}
	})
}

// FuzzScript: whatever options pass Check (they come from flags and
// course.toml), the job script keeps one #SBATCH line per option and its
// command line as written: nothing a user typed becomes a command.
func FuzzScript(f *testing.F) {
	f.Add("gpu", "cs101", "normal", "30:00", "--constraint=h100", "/shared/my course")
	f.Add("a\nb", "x'y", "$(reboot)", "1-00:00:00", "--x=1\nrm -rf /", "/c;d")
	f.Fuzz(func(t *testing.T, part, account, qos, tm, extra, course string) {
		o := Options{RunPartition: part, Account: account, QOS: qos, Time: tm, Extra: []string{extra}}
		if o.Check() != nil || strings.Contains(course, "\n") {
			return // a folder's newline stays inside its quotes, on two lines
		}
		j := Job{Name: StageRun, GPU: true, Tasks: 3, Dir: "/jobs", Args: []string{"run", "/jobs/plan-0.json"}, Exe: "/bin/lessons", Course: course, Cache: "/cache"}
		s := Script(j, o.Defaults())
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		last := lines[len(lines)-1]
		if want := "exec /bin/lessons --course " + quote(course) + " grade worker run /jobs/plan-0.json"; last != want {
			t.Fatalf("last line %q, want %q", last, want)
		}
		for _, l := range lines {
			if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "set ") && !strings.HasPrefix(l, "cd ") && !strings.HasPrefix(l, "export ") && !strings.HasPrefix(l, "exec ") {
				t.Fatalf("a line of its own: %q in\n%s", l, s)
			}
		}
	})
}

func TestOverride(t *testing.T) {
	course := Options{RunPartition: "gpu", Account: "cs101", ItemsPerTask: 10, Extra: []string{"--constraint=h100"}}
	flags := Options{RunPartition: "", Account: "other", Throttle: 4, Extra: []string{"--mem=8G"}}
	changed := map[string]bool{"partition": true, "throttle": true, "sbatch-arg": true}
	got := course.Override(flags, func(name string) bool { return changed[name] })
	want := Options{RunPartition: "", Account: "cs101", ItemsPerTask: 10, Throttle: 4, Extra: []string{"--constraint=h100", "--mem=8G"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Override:\n got %+v\nwant %+v", got, want)
	}
	if len(course.Extra) != 1 {
		t.Errorf("Override changed the course's sbatch arguments: %q", course.Extra)
	}
	names := Flags()
	for _, name := range []string{"partition", "build-partition", "account", "qos", "time", "items-per-task", "builds-per-task", "throttle", "gres", "sbatch-arg"} {
		if !slices.Contains(names, name) {
			t.Errorf("Flags() = %q: no %s", names, name)
		}
	}
	if len(names) != 10 {
		t.Errorf("Flags() = %q: want the 10 options a flag sets", names)
	}
}

func TestPilotScript(t *testing.T) {
	o := Options{RunPartition: "gpu", BuildPartition: "cpu", Account: "cs101", Time: "8:00:00", Extra: []string{"--constraint=h100"}}
	s := PilotScript(Pilot{Name: "gpu2", GPUs: 4, CPUs: 16, Dir: "/srv/class/.class/slurm", Exe: "/opt/lessons", URL: "https://gpu.uni.example", Secret: "s3cret", Env: []string{"LESSONS_SANDBOX_READ=/opt/cuda"}}, o)
	for _, want := range []string{"#SBATCH --job-name=lessons-class-gpu2\n", "#SBATCH --array=0-0\n", "#SBATCH --gres=gpu:4\n", "#SBATCH --partition=gpu\n", "#SBATCH --cpus-per-task=16\n",
		"#SBATCH --account=cs101\n", "#SBATCH --time=8:00:00\n", "#SBATCH --constraint=h100\n", "#SBATCH --output=/srv/class/.class/slurm/logs/pilot-gpu2-%A.log\n",
		"(umask 077 && printf '%s' s3cret >\"$dir/secret\")\n", "export LESSONS_SANDBOX_READ=/opt/cuda\n",
		"/opt/lessons pilot --url https://gpu.uni.example --role gpu --dir \"$dir\" --secret-file \"$dir/secret\"\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("pilot script lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "--requeue") {
		t.Error("a pilot is requeued by Slurm: the server submits a new one (with a new secret)")
	}
	s = PilotScript(Pilot{Name: "build0", CPUs: 8, Dir: "/d", Exe: "/opt/lessons", URL: "https://x", Secret: "s"}, o)
	if strings.Contains(s, "--gres") || !strings.Contains(s, "#SBATCH --partition=cpu\n") || !strings.Contains(s, "--role build") {
		t.Errorf("build pilot:\n%s", s)
	}
}
