package exercise

import (
	"slices"
	"strings"
	"testing"
)

// A judged run's environment turns glibc's restartable sequences off and
// keeps the other tunables it had: the last GLIBC_TUNABLES (the one a
// started program sees) merged, with the setting last, an earlier
// rseq=1 dropped.
func TestWithoutRseqKeepsOtherTunables(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"PATH=/bin"}, []string{"PATH=/bin", "GLIBC_TUNABLES=glibc.pthread.rseq=0"}},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.check=3", "A=1"}, []string{"A=1", "GLIBC_TUNABLES=glibc.malloc.check=3:glibc.pthread.rseq=0"}},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.check=3", "GLIBC_TUNABLES=glibc.pthread.rseq=1:glibc.cpu.x86_ibt=on"}, []string{"GLIBC_TUNABLES=glibc.cpu.x86_ibt=on:glibc.pthread.rseq=0"}},
		{[]string{"GLIBC_TUNABLES=::junk:=1:glibc.pthread.rseq=1"}, []string{"GLIBC_TUNABLES=glibc.pthread.rseq=0"}},
	} {
		if got := withoutRseq(c.in); !slices.Equal(got, c.want) {
			t.Errorf("withoutRseq(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Whatever tunables a spec's environment gives, the run has exactly one
// GLIBC_TUNABLES, and its last setting of glibc.pthread.rseq is 0.
func FuzzWithoutRseq(f *testing.F) {
	f.Add("glibc.malloc.check=3:glibc.pthread.rseq=1")
	f.Add(":::=:glibc.pthread.rseq")
	f.Fuzz(func(t *testing.T, v string) {
		got := withoutRseq([]string{"GLIBC_TUNABLES=" + v, "B=2"})
		n := 0
		for _, kv := range got {
			if tv, ok := strings.CutPrefix(kv, "GLIBC_TUNABLES="); ok {
				n++
				parts := strings.Split(tv, ":")
				if parts[len(parts)-1] != rseqTunable {
					t.Fatalf("%q: the setting is not last: %q", v, tv)
				}
				for _, p := range parts[:len(parts)-1] {
					if strings.HasPrefix(p, "glibc.pthread.rseq=") || !strings.Contains(p, "=") {
						t.Fatalf("%q: kept %q", v, p)
					}
				}
			}
		}
		if n != 1 || !slices.Contains(got, "B=2") {
			t.Fatalf("%q: %q", v, got)
		}
	})
}
