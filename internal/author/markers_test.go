package author

import (
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
)

const pipeline = `int main() {
    for (int it = 0; it < 12; it++) {
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&d, bytes, stream));
        CHECK(cudaFreeAsync(d, stream));
        // STUB
        // // TODO: allocate d on stream.
        // (void)d;
        //
        // END SOLUTION
    }
    /* BEGIN SOLUTION */
    CHECK(cudaDeviceSynchronize());
    /* END SOLUTION */
}
`

func TestStudentAndSolution(t *testing.T) {
	src, err := Parse("p.cu", []byte(pipeline))
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Regions) != 2 {
		t.Fatalf("regions = %+v, want 2", src.Regions)
	}
	if r := src.Regions[0]; r.Begin != 3 || r.Stub != 6 || r.End != 10 {
		t.Errorf("region 1 = %+v, want begin 3, stub 6, end 10", r)
	}
	if f, l := src.Regions[0].SolutionLines(); f != 4 || l != 5 {
		t.Errorf("solution lines = %d-%d, want 4-5", f, l)
	}
	wantStudent := `int main() {
    for (int it = 0; it < 12; it++) {
        // TODO: allocate d on stream.
        (void)d;

    }
    // TODO: write this part
}
`
	if got := string(src.Student()); got != wantStudent {
		t.Errorf("student:\n%s\nwant:\n%s", got, wantStudent)
	}
	wantSolution := `int main() {
    for (int it = 0; it < 12; it++) {
        CHECK(cudaMallocAsync(&d, bytes, stream));
        CHECK(cudaFreeAsync(d, stream));
    }
    CHECK(cudaDeviceSynchronize());
}
`
	if got := string(src.Solution()); got != wantSolution {
		t.Errorf("solution:\n%s\nwant:\n%s", got, wantSolution)
	}
}

func TestCRLFAndNoFinalNewline(t *testing.T) {
	in := "a\r\n// BEGIN SOLUTION\r\nb\r\n// STUB\r\n// c\r\n// END SOLUTION\r\nd"
	src, err := Parse("x.cpp", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(src.Student()), "a\r\nc\r\nd"; got != want {
		t.Errorf("student = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"unended", "a\n// BEGIN SOLUTION\nb\n", "x.cu:2: BEGIN SOLUTION is never ended"},
		{"nested", "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n", "x.cu:2: BEGIN SOLUTION inside the region begun at line 1"},
		{"stray end", "a\n// END SOLUTION\n", "x.cu:2: END SOLUTION without a BEGIN SOLUTION"},
		{"stray stub", "// STUB\n", "x.cu:1: STUB outside a solution region"},
		{"two stubs", "// BEGIN SOLUTION\n// STUB\n// STUB\n// END SOLUTION\n", "x.cu:3: second STUB in the region begun at line 1 (first at line 2)"},
		{"after code", "x(); // BEGIN SOLUTION\n", "x.cu:1: line mentions a solution marker but is not one"},
		{"lower case", "// begin solution\n", "x.cu:1: line mentions a solution marker but is not one"},
		{"misspelt", "// END SOLUTIONS\n", "x.cu:1: line mentions a solution marker but is not one"},
		{"stub code", "// BEGIN SOLUTION\n// STUB\nreturn 0;\n// END SOLUTION\n", "x.cu:3: stub line is not a // comment: return 0;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.cu", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if es := lesson.AsErrors(err); len(es) == 0 || es[0].Fix == "" {
				t.Errorf("error %v says nothing to do", err)
			}
		})
	}
}

// A Python solution's markers and stubs are # comments: its student file
// gets the stub uncommented by its first #, or a # TODO line.
func TestPythonMarkers(t *testing.T) {
	sol := "import cupy as cp\n\ndef run():\n    # BEGIN SOLUTION\n    pool = cp.cuda.MemoryAsyncPool()\n    # STUB\n    # pool = None  # TODO 1\n    # END SOLUTION\n    # BEGIN SOLUTION\n    return pool\n    # END SOLUTION\n"
	src, err := Parse("x.py", []byte(sol))
	if err != nil {
		t.Fatal(err)
	}
	want := "import cupy as cp\n\ndef run():\n    pool = None  # TODO 1\n    # TODO: write this part\n"
	if got := string(src.Student()); got != want {
		t.Errorf("student file:\n%s\nwant:\n%s", got, want)
	}
	if got := string(src.Solution()); got != "import cupy as cp\n\ndef run():\n    pool = cp.cuda.MemoryAsyncPool()\n    return pool\n" {
		t.Errorf("solution:\n%s", got)
	}
	if _, err := Parse("x.py", []byte("# BEGIN SOLUTION\nx = 1\n# STUB\nx = 2\n# END SOLUTION\n")); err == nil || !strings.Contains(err.Error(), "not a # comment") {
		t.Errorf("an uncommented stub line: %v", err)
	}
}

func TestHasMarkers(t *testing.T) {
	if !HasMarkers([]byte(pipeline)) || HasMarkers([]byte("int x; // solution begins here\n")) {
		t.Error("HasMarkers is wrong")
	}
	if !Marked("a/b.cuh") || !Marked("x.CPP") || !Marked("x.py") || Marked("x.ipynb") {
		t.Error("Marked is wrong")
	}
}

// FuzzParse: any input either parses, with regions in order and inside
// the file and a student and a solution file no longer than it and with
// no marker left, or is an error with a line.
func FuzzParse(f *testing.F) {
	f.Add(pipeline)
	f.Add("// BEGIN SOLUTION\n// STUB\n//\n// END SOLUTION")
	f.Add("/* BEGIN SOLUTION */\r\nx\r\n/* END SOLUTION */\r\n")
	f.Add("// END SOLUTION\n// BEGIN SOLUTION\n")
	f.Fuzz(func(t *testing.T, in string) {
		src, err := Parse("f.cu", []byte(in))
		if err != nil {
			for _, e := range lesson.AsErrors(err) {
				if e.Line < 1 {
					t.Fatalf("error without a line: %v", e)
				}
			}
			if lesson.AsErrors(err) == nil {
				t.Fatalf("error is not a document error: %v", err)
			}
			return
		}
		prev := 0
		for _, r := range src.Regions {
			if r.Begin <= prev || r.End <= r.Begin || r.End > len(src.Lines) || (r.Stub != 0 && (r.Stub <= r.Begin || r.Stub >= r.End)) {
				t.Fatalf("bad region %+v after line %d of %d", r, prev, len(src.Lines))
			}
			prev = r.End
		}
		if sol := src.Solution(); len(sol) > len(in) || HasMarkers(sol) {
			t.Fatalf("solution %q of %q", sol, in)
		}
		if _, err := Parse("g.cu", src.Student()); err != nil && len(src.Regions) == 0 {
			t.Fatalf("a file without regions does not parse again: %v", err)
		}
	})
}

// FuzzParsePython: a Python solution's # markers keep the same promises
// as FuzzParse's, and its student file says TODO in a # comment.
func FuzzParsePython(f *testing.F) {
	f.Add("import os\n# BEGIN SOLUTION\nx = 1\n# STUB\n# x = None\n# END SOLUTION\n")
	f.Add("# BEGIN SOLUTION\r\n    pass\r\n# END SOLUTION\r\n")
	f.Add("# STUB\n# BEGIN SOLUTION\n")
	f.Fuzz(func(t *testing.T, in string) {
		src, err := Parse("f.py", []byte(in))
		if err != nil {
			for _, e := range lesson.AsErrors(err) {
				if e.Line < 1 {
					t.Fatalf("error without a line: %v", e)
				}
			}
			return
		}
		prev := 0
		for _, r := range src.Regions {
			if r.Begin <= prev || r.End <= r.Begin || r.End > len(src.Lines) || (r.Stub != 0 && (r.Stub <= r.Begin || r.Stub >= r.End)) {
				t.Fatalf("bad region %+v after line %d of %d", r, prev, len(src.Lines))
			}
			prev = r.End
		}
		if sol := src.Solution(); len(sol) > len(in) || HasMarkers(sol) {
			t.Fatalf("solution %q of %q", sol, in)
		}
		stu := src.Student()
		if strings.Count(string(stu), "// TODO: write this part") > strings.Count(in, "// TODO: write this part") {
			t.Fatalf("a Python student file with a C++ comment: %q", stu)
		}
	})
}
