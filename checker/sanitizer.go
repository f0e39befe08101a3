package checker

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// SanitizerReport is what a run under one of compute-sanitizer's tools
// found, read from the tool's log.
type SanitizerReport struct {
	Tool string
	// Skipped says why the tool did not run ("compute-sanitizer is not
	// installed"); "" when it ran.
	Skipped string
	// Summary is false when the log has no summary: the run under the
	// tool did not end by itself.
	Summary bool
	Errors  int
	// LeakedBytes is memcheck's leak check's count.
	LeakedBytes int64
	// First is the first error in the tool's words, with where it was
	// ("Invalid __global__ read of size 4 bytes at sum(...)+0x70").
	First string
	// Ended says how the run under the tool ended when not by itself.
	Ended string
	// Unfinished is set, with Skipped, when the tool started on the
	// program and ended by itself without a summary: it may not work
	// here, or the program stopped it.
	Unfinished bool
}

var (
	errorSummaryRE = regexp.MustCompile(`ERROR SUMMARY: (\d+) errors?`)
	raceSummaryRE  = regexp.MustCompile(`RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?`)
	leakSummaryRE  = regexp.MustCompile(`LEAK SUMMARY: (\d+) bytes? leaked`)
)

// ParseSanitizer reads the log compute-sanitizer wrote (--log-file, or
// its lines in the program's output: they start with "=========").
func ParseSanitizer(tool string, log []byte) *SanitizerReport {
	r := &SanitizerReport{Tool: tool}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var first []string // the first error's lines, while it lasts
	collecting := false
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "=========")
		if !ok {
			continue
		}
		body := strings.TrimSpace(line)
		indented := strings.HasPrefix(line, "  ") // the error's details
		if m := errorSummaryRE.FindStringSubmatch(body); m != nil {
			r.Summary = true
			r.Errors, _ = strconv.Atoi(m[1])
		}
		if m := raceSummaryRE.FindStringSubmatch(body); m != nil {
			r.Summary = true
			r.Errors, _ = strconv.Atoi(m[1])
		}
		if m := leakSummaryRE.FindStringSubmatch(body); m != nil {
			r.LeakedBytes, _ = strconv.ParseInt(m[1], 10, 64)
		}
		switch {
		case body == "" || body == "COMPUTE-SANITIZER" || strings.Contains(body, "SUMMARY:"):
			collecting = false
		case r.First == "" && first == nil && !indented:
			first, collecting = []string{body}, true
		case collecting && indented && len(first) < 2 && strings.HasPrefix(body, "at "):
			first = append(first, body)
		case !indented:
			collecting = false
		}
	}
	if first != nil {
		r.First = strings.Join(first, " ")
		if len(r.First) > 300 {
			r.First = r.First[:300] + "…"
		}
	}
	return r
}
