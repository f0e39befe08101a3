package sandbox

import (
	"fmt"
	"testing"
)

// givenGPUs names a GPU by index only where CUDA's order is the bus's:
// GPUs of one model, or CUDA_DEVICE_ORDER=PCI_BUS_ID.
func TestGivenGPUs(t *testing.T) {
	same := []gpuNode{{bus: "1b", uuid: "GPU-aaaa", model: "H200", minor: 0}, {bus: "2c", uuid: "GPU-bbbb", model: "H200", minor: 1}}
	mixed := []gpuNode{{bus: "1b", uuid: "GPU-aaaa", model: "A100", minor: 0}, {bus: "2c", uuid: "GPU-bbbb", model: "H200", minor: 1}}
	for _, c := range []struct {
		visible string
		nodes   []gpuNode
		pci     bool
		want    string // minors, or "no"
	}{
		{"1", same, false, "[1]"},
		{"1,0", same, false, "[1 0]"},
		{"2", same, false, "no"},
		{"-1", same, false, "no"},
		{"GPU-bb", same, false, "[1]"},
		{"GPU-", same, false, "no"}, // a prefix of both
		{"MIG-aaaa", same, false, "no"},
		{"0", mixed, false, "no"},
		{"0", mixed, true, "[0]"},
		{"GPU-bbbb", mixed, false, "[1]"},
	} {
		given, ok := givenGPUs(c.visible, c.nodes, c.pci)
		got := "no"
		if ok {
			var minors []int
			for _, g := range given {
				minors = append(minors, g.minor)
			}
			got = fmt.Sprint(minors)
		}
		if got != c.want {
			t.Errorf("givenGPUs(%q, pci %v) = %s, want %s", c.visible, c.pci, got, c.want)
		}
	}
}
