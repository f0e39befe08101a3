package queue

import "testing"

// A worker node's GPU joins the queue: waiting runs get its slots; when
// it leaves, its slots go to no one, and when it joins again they are
// its own again (no more slots than it has).
func TestQueueTakesAndDropsANodesGPUs(t *testing.T) {
	c := newClock()
	q := New([]string{"0"}, 1, c.now)
	q.DropDevice("0") // the server's own GPU left out (--slurm-only)
	a := mustQueue(t, q, "ann")
	if granted(a) {
		t.Fatal("a run was given a dropped GPU's slot")
	}
	q.AddDevice("gpu0/0", 2)
	if !granted(a) || q.slots[a.slot].device != "gpu0/0" {
		t.Fatalf("the waiting run was not given the node's slot: %+v", a)
	}
	b := mustQueue(t, q, "bob")
	if !granted(b) {
		t.Fatal("the node's second slot was not given")
	}
	if st := q.State(); st.Slots != 2 || len(st.Busy) != 1 || st.Busy["gpu0/0"] != 2 {
		t.Errorf("state with the node's GPU: %+v", st)
	}
	q.DropDevice("gpu0/0")
	a.Done(0)
	if st := q.State(); st.Slots != 0 || st.Busy["gpu0/0"] != 1 {
		t.Errorf("state after it left, one of its runs still ending: %+v", st)
	}
	cc := mustQueue(t, q, "cat")
	if granted(cc) {
		t.Fatal("a run was given a slot of a GPU that left")
	}
	q.AddDevice("gpu0/0", 2)
	if !granted(cc) {
		t.Fatal("the GPU joined again and the waiting run got no slot")
	}
	if n := len(q.slots); n != 3 {
		t.Errorf("%d slots, want 3 (the server's one and the node's two, not two more)", n)
	}
	b.Done(0)
	cc.Done(0)
}
