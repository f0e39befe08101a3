package author

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
)

func TestLintNamesSuspectSources(t *testing.T) {
	dir := coursetest.Tiny(t, []string{"plain", "vmm", "leaky"}, map[string]string{
		// The student file reaches for _exit, the solution does not.
		"exercises/plain.cu": "int main() { _exit(0); }\n",
		// The driver API is what the VMM exercise teaches: no finding.
		"exercises/vmm.cu":   "int main() { cuMemCreate(&h, n, &p, 0); }\n",
		"solutions/vmm.cu":   "int main() { cuMemCreate(&h, n, &p, 0); cuMemMap(d, n, 0, h, 0); }\n",
		"solutions/leaky.cu": "#include <dlfcn.h>\nint main() {}\n",
	})
	c, err := course.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, warnings := Lint(c, nil)
	var got []string
	for _, w := range warnings {
		got = append(got, w.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"exercises/plain.cu:1", "names _exit (an exit without exit handlers), which its solution solutions/plain.cu does not",
		"solutions/leaky.cu:1", "the solution names dlfcn.h (dynamic loading): a submission that does is not marked for review",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("lint's warnings do not say %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "vmm") {
		t.Errorf("the VMM exercise's driver API is a finding:\n%s", all)
	}
}
