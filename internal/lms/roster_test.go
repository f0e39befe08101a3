package lms

import (
	"errors"
	"strings"
	"testing"
)

func TestReadRoster(t *testing.T) {
	in := "\ufeffStudent ID,Full Name,Email Address,Canvas User ID,Section,SIS User ID,SIS Login ID,Notes\n" +
		"jsmith,John Smith,jsmith@uni.edu,1001,A,S-1,jsmith,likes pools\n" +
		",,,,,,,\n" +
		"jdoe,\"Doe, Jane\",jdoe@uni.edu,,B\n"
	r, err := ReadRoster(strings.NewReader(in), "roster.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(r) != 2 {
		t.Fatalf("%d people: %+v", len(r), r)
	}
	if p := r[0]; p.ID != "jsmith" || p.Name != "John Smith" || p.Email != "jsmith@uni.edu" || p.LMSID != "1001" || p.Section != "A" || p.SISID != "S-1" || p.Login != "jsmith" {
		t.Errorf("first: %+v", p)
	}
	if p := r[1]; p.Name != "Doe, Jane" || p.LMSID != "" {
		t.Errorf("second: %+v", p)
	}
}

func TestReadRosterErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "roster.csv:1: empty",
		"name,email\nJohn,j@u\n":           "roster.csv:1: no id column",
		"id,name\njsmith,John\n,Nobody\n":  "roster.csv:3: no id",
		"id,name\njsmith,John\njsmith,J\n": "roster.csv:3: id \"jsmith\" is on line 2 too",
		"id,name\n../etc,John\n":           "roster.csv:2: id \"../etc\" has characters",
		"id,name\na,\"unclosed\n":          "roster.csv:2: extraneous or missing \" in quoted-field",
	} {
		_, err := ReadRoster(strings.NewReader(in), "roster.csv")
		var re *RosterError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want a RosterError with %q", in, err, want)
		}
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"alice":            "alice",
		"Zoë K":            "Zoe-K",
		"../../etc":        "etc",
		".hidden":          "hidden",
		"a/b\\c":           "a-b-c",
		"José María López": "Jose-Maria-Lopez",
		"":                 "",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

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
		people, taken := join(subs, layout, roster)
		for key, s := range taken {
			if key == "" || key != Key(key) || strings.HasPrefix(key, ".") || strings.ContainsAny(key, `/\`) {
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
