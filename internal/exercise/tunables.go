package exercise

import "strings"

// rseqTunable turns glibc's restartable sequences off (glibc 2.35 and
// later; earlier ones register none and ignore it).
const rseqTunable = "glibc.pthread.rseq=0"

// withoutRseq returns env with glibc's restartable sequence registration
// turned off, for a judged run: with an area of its own, a thread can
// have the kernel move it out of a CUDA call, past the statistics
// library's count, at a timer's signal (rseq_escape.cu of the corpus).
// The library's filter refuses the program an area of its own, and stops
// a run whose main thread has one (kernels/allocstats/channel.h). Other
// tunables the run already has are kept; the last GLIBC_TUNABLES of env
// (the one a program started with env sees) is the one merged, and the
// setting comes last in it, so that no earlier one of the same name wins.
func withoutRseq(env []string) []string {
	out := make([]string, 0, len(env)+1)
	last := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GLIBC_TUNABLES="); ok {
			last = v
			continue
		}
		out = append(out, kv)
	}
	var keep []string
	for t := range strings.SplitSeq(last, ":") {
		name, _, ok := strings.Cut(t, "=")
		if !ok || name == "" || name == "glibc.pthread.rseq" {
			continue
		}
		keep = append(keep, t)
	}
	return append(out, "GLIBC_TUNABLES="+strings.Join(append(keep, rseqTunable), ":"))
}
