package exercise

import (
	"bufio"
	"debug/elf"
	"os"
	"strings"
	"testing"
)

func maxCluster(data []byte, lib *layoutSet) (int, int64) {
	type run struct {
		seen   map[int64]bool
		lo, hi int64
	}
	by := map[int64]*run{}
	for i := 0; i+16 <= len(data); i++ {
		if uniform(data[i : i+16]) {
			continue
		}
		for _, p := range lib.places(rollHash(data[i : i+16])) {
			d := int64(i) - p.at
			r := by[d]
			if r == nil {
				r = &run{seen: map[int64]bool{}, lo: p.at, hi: p.at}
				by[d] = r
			}
			r.seen[p.at] = true
			r.lo, r.hi = min(r.lo, p.at), max(r.hi, p.at)
		}
	}
	best, span := 0, int64(0)
	for _, r := range by {
		if len(r.seen) > best {
			best, span = len(r.seen), r.hi-r.lo
		}
	}
	return best, span
}

func TestZZMax(t *testing.T) {
	libs := map[string]*layoutSet{"driver": codeLayout("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), "runtime": codeLayout("/usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89")}
	f, _ := os.Open("/tmp/a23/progs.txt")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := sc.Text()
		e, err := elf.Open(p)
		if err != nil {
			continue
		}
		l, _ := e.ImportedLibraries()
		e.Close()
		if !strings.Contains(strings.Join(l, " "), "libcudart") {
			continue
		}
		data, _ := os.ReadFile(p)
		for name, lib := range libs {
			if n, span := maxCluster(data, lib); n >= 3 {
				t.Logf("%s %s: %d blocks over %d", p, name, n, span)
			}
		}
	}
}

func TestZZWhich(t *testing.T) {
	lib := codeLayout("/usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89")
	f, _ := os.Open("/tmp/a23/progs.txt")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := sc.Text()
		data, _ := os.ReadFile(p)
		type run struct {
			n      int
			lo, hi int64
			plo    int
		}
		by := map[int64]*run{}
		for i := 0; i+16 <= len(data); i++ {
			for _, q := range lib.places(rollHash(data[i : i+16])) {
				d := int64(i) - q.at
				r := by[d]
				if r == nil {
					r = &run{lo: q.at, hi: q.at, plo: i}
					by[d] = r
				}
				r.n++
				r.lo, r.hi = min(r.lo, q.at), max(r.hi, q.at)
			}
		}
		for _, r := range by {
			if r.n >= 14 && r.n < 100 {
				t.Logf("%s: %d blocks lib %#x-%#x prog %#x", p, r.n, r.lo, r.hi, r.plo)
				return
			}
		}
	}
}
