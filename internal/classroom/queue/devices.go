package queue

import (
	"github.com/cudalessons/lessons/internal/grade"
)

// AddDevice gives the queue per run slots on device (a worker node's
// GPU that joined, or joined again) and hands them to waiting runs.
func (q *Queue) AddDevice(device string, per int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.gates[device] == nil {
		q.gates[device] = new(grade.GPU)
	}
	n := 0
	for i := range q.slots {
		if q.slots[i].device == device {
			if n < per {
				q.slots[i].off = false
			}
			n++
		}
	}
	for ; n < per; n++ {
		q.slots = append(q.slots, slot{device: device})
	}
	q.dispatchLocked()
}

// DropDevice gives device's slots to no more runs (its worker left); a
// run that holds one keeps it until it ends (stopped with its worker).
func (q *Queue) DropDevice(device string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.slots {
		if q.slots[i].device == device {
			q.slots[i].off = true
		}
	}
}

// Open is how many slots runs may be given now.
func (q *Queue) Open() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.onLocked()
}

// onLocked is how many slots runs may be given (those of GPUs that left
// are not).
func (q *Queue) onLocked() int {
	n := 0
	for _, s := range q.slots {
		if !s.off {
			n++
		}
	}
	return n
}
