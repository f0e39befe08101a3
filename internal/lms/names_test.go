package lms

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/roster"
)

func TestNameKeys(t *testing.T) {
	for in, want := range map[string]string{
		"Smith, John":      "smithjohn johnsmith",
		"John Smith":       "johnsmith smithjohn",
		"Ana María López":  "anamarialopez lopezanamaria",
		"O'Brien, Siobhán": "obriensiobhan siobhanobrien",
		"Plato":            "plato",
	} {
		if got := strings.Join(nameKeys(in), " "); got != want {
			t.Errorf("nameKeys(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLooseName(t *testing.T) {
	for in, want := range map[string]string{
		"async_pipeline (1).cu":        "async_pipeline.cu",
		"Async Pipeline.cu":            "async_pipeline.cu",
		"async-pipeline - Copy (2).cu": "async_pipeline.cu",
		"Copy of async_pipeline.cu":    "async_pipeline.cu",
		"async_pipeline.cu.txt":        "async_pipeline.cu",
		"async_pipeline-3.cu":          "async_pipeline.cu",
		"notes.txt":                    "notes.txt",
	} {
		if got := looseName(in); got != want {
			t.Errorf("looseName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzMatch: any name handed in, under any layout, is split, keyed and
// matched without a panic, and a student's folder name never leaves the
// folder or hides.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{"smithjohn_late_1_2_async_pipeline-1.cu", "John Smith_3_assignsubmission_file_/x (1).cu",
		"alice/day070/async_pipeline.cu", "../..", "a_1_2_.zip/-1", "Ω_0_0_-0.", ".git/x"} {
		f.Add(s, []byte(pipeDone))
	}
	ts := []Target{{ID: "async-pipeline", Path: "day070/async_pipeline.cu", Marks: []string{"runPipeline", "scaleKernel"}},
		{ID: "pool", Path: "pool.cu", Extras: []string{"pool.h"}}}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		files := []File{{Path: name, Data: data}, {Path: name + "/again.cu", Data: data}}
		layout := detect(files)
		subs, _ := split(files, layout)
		people, taken := join(subs, layout, listed)
		for key, s := range taken {
			if !roster.ValidID(key) || strings.HasPrefix(key, ".") || strings.ContainsAny(key, `/\`) {
				t.Errorf("%q gives the folder %q", name, key)
			}
			if _, ok := people[key]; !ok {
				t.Errorf("%q: no person for %q", name, key)
			}
			kept, _ := assign(key, s.files, ts)
			for _, k := range kept {
				if k.dest != ts[0].Path && k.dest != ts[1].Path && k.dest != "pool.h" {
					t.Errorf("%q placed at %q", name, k.dest)
				}
			}
		}
		looseName(name)
		nameKeys(name)
	})
}
