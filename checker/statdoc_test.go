package checker

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/reference/statistics.md")

func TestEveryStatisticHasAMeaning(t *testing.T) {
	for _, n := range StatNames() {
		if m, v := StatMeaning(n); m == "" || v < 1 || v > statsVersion {
			t.Errorf("%s: meaning %q, version %d: say what it counts in phrases or meanings (checker/judge.go, checker/statdoc.go)", n, m, v)
		}
	}
	for n := range meanings {
		if _, ok := phrases[n]; ok {
			t.Errorf("%s has a phrase and a meaning: keep one", n)
		}
	}
	if m, v := StatMeaning("no_such_stat"); m != "" || v != 0 {
		t.Errorf("StatMeaning of an unknown name = %q, %d", m, v)
	}
	for name, want := range map[string]int{"malloc_calls": 1, "unordered_uses": 2, "sync_memsets": 3, "kernel_span_ms": 4, "forks": 5, "uses_after_free": 6, "unknown_frees": 7, "pool_used_high": 1} {
		if _, v := StatMeaning(name); v != want {
			t.Errorf("%s: version %d, want %d", name, v, want)
		}
	}
}

// TestStatisticsReference fails when docs/reference/statistics.md is not
// what StatNames and StatMeaning say; -update rewrites it.
func TestStatisticsReference(t *testing.T) {
	page := filepath.Join("..", "docs", "reference", "statistics.md")
	var b strings.Builder
	b.WriteString("# Statistics a spec can bound\n\n")
	b.WriteString("Generated from the checker's statistics (`checker.StatNames`, `checker.StatMeaning`;\n")
	b.WriteString("`go test ./checker -run TestStatisticsReference -update`); a test fails when this page\n")
	b.WriteString("and the code disagree. How the library records them, and what each record version\n")
	b.WriteString("follows, is in [specs and checks](../checks.md#statistics).\n\n")
	b.WriteString("A `[[check]]` names one with `stat = \"NAME\"` and bounds it (`at_least`, `at_most`,\n")
	b.WriteString("`equals` with `within`, `equal_to` another statistic, `relative_to` a hidden run).\n")
	b.WriteString("`NAME` is the program's own process; `children.NAME` the child processes it forked,\n")
	b.WriteString("merged; `all.NAME` every process of the run. A record older than a statistic's\n")
	b.WriteString("version reads it as 0. Times (`_ms`) are milliseconds.\n\n")
	b.WriteString("| statistic | what it counts | since record version |\n| --- | --- | --- |\n")
	for _, n := range StatNames() {
		m, v := StatMeaning(n)
		fmt.Fprintf(&b, "| `%s` | %s | %d |\n", n, strings.ReplaceAll(m, "|", `\|`), v)
	}
	got := []byte(b.String())
	if *update {
		if err := os.WriteFile(page, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v (make it with go test ./checker -run TestStatisticsReference -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the checker's statistics say: run go test ./checker -run TestStatisticsReference -update", page)
	}
}

// Every version before the newest has its size in versionSizes, so that
// the statistics reference gives a new version's statistics that version
// (the reference said 14 for shareable_fds_open, version 13's, while the
// list stopped at version 12).
func TestVersionSizesCoverEveryVersion(t *testing.T) {
	if len(versionSizes) != statsVersion-1 {
		t.Fatalf("versionSizes holds %d sizes; want %d (every version before %d)", len(versionSizes), statsVersion-1, statsVersion)
	}
	for i := 1; i < len(versionSizes); i++ {
		if versionSizes[i] <= versionSizes[i-1] {
			t.Errorf("version %d's size %d is not past version %d's %d", i+1, versionSizes[i], i, versionSizes[i-1])
		}
	}
	if _, v := StatMeaning("max_unordered_users"); v != statsVersion {
		t.Errorf("max_unordered_users came in version %d, want %d", v, statsVersion)
	}
	if _, v := StatMeaning("vmm_retain_attempts"); v != 22 {
		t.Errorf("vmm_retain_attempts came in version %d, want 22", v)
	}
	if _, v := StatMeaning("vmm_retain_calls"); v != 21 {
		t.Errorf("vmm_retain_calls came in version %d, want 21", v)
	}
	if _, v := StatMeaning("vmm_handle_refs"); v != 21 {
		t.Errorf("vmm_handle_refs came in version %d, want 21", v)
	}
	if _, v := StatMeaning("launches_off_device"); v != 20 {
		t.Errorf("launches_off_device came in version %d, want 20", v)
	}
	if _, v := StatMeaning("kernel_host_launches"); v != 19 {
		t.Errorf("kernel_host_launches came in version %d, want 19", v)
	}
	if _, v := StatMeaning("write_combined_copies"); v != 18 {
		t.Errorf("write_combined_copies came in version %d, want 18", v)
	}
	if _, v := StatMeaning("registered_unmapped"); v != 17 {
		t.Errorf("registered_unmapped came in version %d, want 17", v)
	}
	if _, v := StatMeaning("stale_ipc_waits"); v != 16 {
		t.Errorf("stale_ipc_waits came in version %d, want 16", v)
	}
	if _, v := StatMeaning("shareable_fds_open"); v != 13 {
		t.Errorf("shareable_fds_open came in version %d, want 13", v)
	}
}

// TestDecodeEveryOlderVersion: a record of each version before
// statsVersion decodes at that version's size, its later figures 0, and
// one byte shorter does not (version 22's, the last before
// max_unordered_users, included).
func TestDecodeEveryOlderVersion(t *testing.T) {
	full := (&Stats{MaxUnorderedUsers: 2, VMMRetainAttempts: 7, VMMRetainCalls: 3}).Encode()
	for v := 1; v < statsVersion; v++ {
		size := versionSizes[v-1]
		rec := append([]byte(nil), full[:size]...)
		binary.LittleEndian.PutUint64(rec[8:], uint64(v))
		s, err := DecodeStats(rec)
		if err != nil {
			t.Errorf("version %d at its size %d: %v", v, size, err)
			continue
		}
		if s.MaxUnorderedUsers != 0 {
			t.Errorf("version %d: max_unordered_users %d, want 0 (version 23's)", v, s.MaxUnorderedUsers)
		}
		if v < 22 && s.VMMRetainAttempts != 0 {
			t.Errorf("version %d: vmm_retain_attempts %d, want 0 (version 22's)", v, s.VMMRetainAttempts)
		}
		if _, err := DecodeStats(rec[:size-1]); err == nil {
			t.Errorf("version %d one byte short of %d decoded", v, size)
		}
	}
	if s, err := DecodeStats(full); err != nil || s.VMMRetainAttempts != 7 || s.MaxUnorderedUsers != 2 {
		t.Errorf("version %d: %v, %v", statsVersion, err, s)
	}
}
