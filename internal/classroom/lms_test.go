package classroom

import (
	"archive/zip"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lms"
	"github.com/cudalessons/lessons/internal/roster"
)

// TestServeAnUnpackedLMSClass: a Canvas download unpacked by grade
// unpack is served as a class from the roster.csv it wrote: the
// students are the LMS's, they sign in, and the class's gradebook keeps
// their LMS ids for the export back to Canvas.
func TestServeAnUnpackedLMSClass(t *testing.T) {
	src := filepath.Join(t.TempDir(), "canvas.zip")
	fh, _ := os.Create(src)
	zw := zip.NewWriter(fh)
	for _, name := range []string{"smithjohn_1001_5001_pool.cu", "doejane_late_1002_5002_pool.cu"} {
		w, _ := zw.Create(name)
		w.Write([]byte("int main() { /* DONE */ }\n"))
	}
	zw.Close()
	fh.Close()
	tc := newTestClass(t, func(cfg *Config) {
		out := filepath.Join(t.TempDir(), "class")
		write := func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) }
		if _, err := lms.Unpack(src, out, cfg.Course, nil, write); err != nil {
			t.Fatal(err)
		}
		people, err := roster.Load(filepath.Join(out, "roster.csv"))
		if err != nil {
			t.Fatalf("serve --class refuses grade unpack's roster: %v", err)
		}
		cfg.Roster = people
	})
	smith := tc.browser()
	if code := smith.signin(tc.invite("smithjohn")); code != http.StatusSeeOther {
		t.Fatalf("sign-in of smithjohn: %d", code)
	}
	if code, body := smith.get("/_class/api/me"); code != 200 || !strings.Contains(body, "smithjohn") {
		t.Fatalf("me: %d %s", code, body)
	}
	people, err := tc.class.Book().People()
	if err != nil {
		t.Fatal(err)
	}
	if p := people["smithjohn"]; p.LMSID != "1001" || p.LMS != "canvas" || p.Handle != "smithjohn_1001_5001" {
		t.Errorf("the gradebook's smithjohn: %+v", p)
	}
}
