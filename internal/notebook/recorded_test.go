package notebook

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/lesson"
)

// recordedRun is a lesson run's transcript as lessons run prints it:
// each cell's label, output and mark.
type recordedRun struct {
	labels, outputs map[int]string
	marks           map[int]string
	summary         string
}

var (
	runLabelRE = regexp.MustCompile(`^\[(\d+)\] (.*)$`)
	pageCellRE = regexp.MustCompile(`^cell \[(\d+)\] (\w+) `)
)

func readRun(t *testing.T, file string) recordedRun {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := recordedRun{labels: map[int]string{}, outputs: map[int]string{}, marks: map[int]string{}}
	cell := 0
	for _, line := range strings.Split(string(data), "\n") {
		if m := runLabelRE.FindStringSubmatch(line); m != nil {
			cell, _ = strconv.Atoi(m[1])
			r.labels[cell] = m[2]
			continue
		}
		switch {
		case cell == 0:
			if strings.Contains(line, " cells: ") {
				r.summary = line
			}
		case strings.HasPrefix(line, "✓") || strings.HasPrefix(line, "✗") || strings.HasPrefix(line, "–"):
			r.marks[cell], cell = strings.Fields(line)[0], 0
		default:
			r.outputs[cell] += line + "\n"
		}
	}
	return r
}

// readPage reads TestPageOnGPU's transcript: each cell's status and
// output, the page's line saying how Python cells run left out.
func readPage(t *testing.T, file string) (status, outputs map[int]string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	status, outputs = map[int]string{}, map[int]string{}
	cell := 0
	for _, line := range strings.Split(string(data), "\n") {
		if m := pageCellRE.FindStringSubmatch(line); m != nil {
			cell, _ = strconv.Atoi(m[1])
			status[cell] = m[2]
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "---") || line == "PASS" || strings.HasPrefix(line, "rc=") {
			cell = 0
		}
		if cell != 0 && !strings.HasPrefix(line, "(Python 3.12, no Jupyter kernel") {
			outputs[cell] += line + "\n"
		}
	}
	return status, outputs
}

// TestRecordedOnH100 reads what the GPU notebook gave on the H100
// (testdata/h100-gpu-mixed, README there): every cell of the notebook
// as it is now ran ok under lessons run, its Python cells through the
// driver; in the page each cell ran ok with the same output; and run
// --cell of the last Python cell ran the Python cells above it first and
// printed what the whole run printed.
func TestRecordedOnH100(t *testing.T) {
	dir := "testdata/h100-gpu-mixed/"
	l, err := lesson.ParseFile("../../bench/notebooks/gpucourse/lessons/day001-gpu-mixed.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	run := readRun(t, dir+"run.txt")
	n := 0
	for _, c := range l.Cells {
		if !c.Runnable() {
			continue
		}
		n++
		label := c.Label
		if c.Kind == lesson.Python {
			label = "python: " + label
		}
		if run.labels[c.Number] != label || run.marks[c.Number] != "✓" {
			t.Errorf("cell [%d] %q: recorded as %q, %q (run bench/notebooks/gpu.sh again)", c.Number, label, run.labels[c.Number], run.marks[c.Number])
		}
	}
	if want := fmt.Sprintf("%d cells: %d ok, 0 failed, 0 skipped", n, n); !strings.HasPrefix(run.summary, want) {
		t.Errorf("summary %q, want %q", run.summary, want)
	}
	if data, _ := os.ReadFile(dir + "run.txt"); !strings.Contains(string(data), "Python cells: Python 3.12, no Jupyter kernel") {
		t.Error("the run does not say how its Python cells ran")
	}

	status, outputs := readPage(t, dir+"page.txt")
	for cell := range run.labels {
		want := run.outputs[cell]
		if cell == 14 {
			// The image's line names the file the run saved it in.
			want = strings.SplitAfter(want, "\n")[0]
		}
		if status[cell] != "ok" || !strings.HasPrefix(outputs[cell], want) {
			t.Errorf("cell [%d] in the page: %s\n%q\nlessons run gave\n%q", cell, status[cell], outputs[cell], want)
		}
	}

	one := readRun(t, dir+"cell.txt")
	if one.marks[15] != "✓" || one.outputs[15] != run.outputs[15] || !strings.Contains(one.outputs[0]+readFile(t, dir+"cell.txt"), "(the Python cells above ran first, for their state: [2] ok, [3] ok, [4] ok, [5] ok, [13] ok, [14] ok)") {
		t.Errorf("run --cell 15: %q %q", one.marks[15], one.outputs[15])
	}
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
