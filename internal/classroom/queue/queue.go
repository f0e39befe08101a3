package queue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/grade"
)

// FullError is a run refused because its student already has as
// many queued or running as the instructor allows.
type FullError struct{ Max int }

func (e *FullError) Error() string {
	return fmt.Sprintf("you already have %d runs queued or running, the most this class allows: wait for one to end (or stop one)", e.Max)
}

// BudgetError is a run refused because its student used their GPU time
// of the last hour.
type BudgetError struct {
	Used, Budget time.Duration
	Wait         time.Duration // until enough of it is an hour old
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("you used %s of GPU time in the last hour, the most this class allows (%s): runs start again in %s",
		e.Used.Round(time.Second), e.Budget, e.Wait.Round(time.Second))
}

// Queue is the class's one queue over the GPUs' run slots: a slot is
// given round-robin by student (one student's burst waits behind every
// other student's next run), a student has at most MaxQueued runs queued
// or running and at most Budget of GPU time an hour, and a timed run has
// its GPU to itself (grade's gate).
type Queue struct {
	MaxQueued int           // 0: no limit
	Budget    time.Duration // GPU time a student may use an hour; 0: no limit

	mu      sync.Mutex
	clock   func() time.Time
	slots   []slot
	gates   map[string]*grade.GPU
	ring    []string // students in the order they first queued
	cursor  int      // where in ring the next turn starts
	waiting map[string][]*Ticket
	running map[string]int
	used    map[string][]use
	mean    time.Duration // a run's mean time on its slot, for estimates
	// Started counts the runs given a slot, for the instructor's view.
	Started int
}

type slot struct {
	device string
	busy   *Ticket
	off    bool // its device left (a worker node's GPU: queue_devices.go)
}

type use struct {
	end  time.Time
	took time.Duration
}

// Ticket is one run's place in the queue.
type Ticket struct {
	Student string
	Timed   bool
	Queued  time.Time
	q       *Queue
	granted chan int // the slot
	slot    int      // -1 until granted
	done    bool
}

// NewQueue is a queue with perDevice run slots on each device.
func New(devices []string, perDevice int, clock func() time.Time) *Queue {
	q := &Queue{clock: clock, gates: map[string]*grade.GPU{}, waiting: map[string][]*Ticket{}, running: map[string]int{}, used: map[string][]use{}, mean: time.Second}
	if len(devices) == 0 {
		devices = []string{"0"}
	}
	for _, d := range devices {
		q.gates[d] = new(grade.GPU)
		for range max(perDevice, 1) {
			q.slots = append(q.slots, slot{device: d})
		}
	}
	return q
}

// usedLocked is student's GPU time in the hour before now, the older
// uses forgotten.
func (q *Queue) usedLocked(student string, now time.Time) (time.Duration, time.Time) {
	us := q.used[student]
	k := 0
	for k < len(us) && now.Sub(us[k].end) >= time.Hour {
		k++
	}
	us = us[k:]
	q.used[student] = us
	var sum time.Duration
	for _, u := range us {
		sum += u.took
	}
	oldest := now
	if len(us) > 0 {
		oldest = us[0].end
	}
	return sum, oldest
}

// Enqueue puts a run of student's in the queue, or says why not.
func (q *Queue) Enqueue(student string, timed bool) (*Ticket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock()
	if err := q.refuseLocked(student, now); err != nil {
		return nil, err
	}
	t := &Ticket{Student: student, Timed: timed, Queued: now, q: q, granted: make(chan int, 1), slot: -1}
	if _, ok := q.waiting[student]; !ok && q.running[student] == 0 && !q.inRing(student) {
		q.ring = append(q.ring, student)
	}
	q.waiting[student] = append(q.waiting[student], t)
	q.dispatchLocked()
	return t, nil
}

// Refuse says why a run of student's would be refused now, nil when it
// would queue: a cell asks before it builds, so that a refused run
// costs no build.
func (q *Queue) Refuse(student string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.refuseLocked(student, q.clock())
}

func (q *Queue) refuseLocked(student string, now time.Time) error {
	if q.MaxQueued > 0 && len(q.waiting[student])+q.running[student] >= q.MaxQueued {
		return &FullError{Max: q.MaxQueued}
	}
	if q.Budget > 0 {
		if used, oldest := q.usedLocked(student, now); used >= q.Budget {
			return &BudgetError{Used: used, Budget: q.Budget, Wait: oldest.Add(time.Hour).Sub(now)}
		}
	}
	return nil
}

func (q *Queue) inRing(student string) bool {
	for _, s := range q.ring {
		if s == student {
			return true
		}
	}
	return false
}

// dispatchLocked gives free slots to the waiting runs, a student at a
// time around the ring.
func (q *Queue) dispatchLocked() {
	for i := range q.slots {
		if q.slots[i].busy != nil || q.slots[i].off {
			continue
		}
		t := q.nextLocked()
		if t == nil {
			return
		}
		q.slots[i].busy = t
		t.slot = i
		q.running[t.Student]++
		q.Started++
		t.granted <- i
	}
}

func (q *Queue) nextLocked() *Ticket {
	n := len(q.ring)
	for k := range n {
		s := q.ring[(q.cursor+k)%n]
		if w := q.waiting[s]; len(w) > 0 {
			q.waiting[s] = w[1:]
			// Not modulo n: a student who joins the ring meanwhile comes
			// after the one just served, not before.
			q.cursor = (q.cursor+k)%n + 1
			return w[0]
		}
	}
	return nil
}

// Slots is how many run slots the queue has over its GPUs.
func (q *Queue) Slots() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.slots)
}

// Place is where a waiting run stands (1: next), and how many wait in
// all; 0 once it has its slot.
func (q *Queue) Place(t *Ticket) (place, of int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.placeLocked(t)
}

func (q *Queue) placeLocked(t *Ticket) (place, of int) {
	n := len(q.ring)
	for _, w := range q.waiting {
		of += len(w)
	}
	if t.slot >= 0 || t.done {
		return 0, of
	}
	// The turns to come: round r takes each student's r-th run, from the
	// cursor on.
	pos := 0
	for r := 0; ; r++ {
		any := false
		for k := range n {
			w := q.waiting[q.ring[(q.cursor+k)%n]]
			if r < len(w) {
				any = true
				pos++
				if w[r] == t {
					return pos, of
				}
			}
		}
		if !any {
			return 0, of
		}
	}
}

// Estimate is about how long a run at place waits for its slot.
func (q *Queue) Estimate(place int) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	if place <= 0 {
		return 0
	}
	return time.Duration(place) * q.mean / time.Duration(max(q.onLocked(), 1))
}

// Wait waits for the ticket's slot and returns its device; a ctx that
// ends first takes the run out of the queue.
func (t *Ticket) Wait(ctx context.Context) (string, error) {
	select {
	case i := <-t.granted:
		return t.q.slots[i].device, nil
	case <-ctx.Done():
		t.q.mu.Lock()
		defer t.q.mu.Unlock()
		select {
		case i := <-t.granted: // granted meanwhile: give it back
			t.slot = i
			t.doneLocked(0)
		default:
			w := t.q.waiting[t.Student]
			for k, o := range w {
				if o == t {
					t.q.waiting[t.Student] = append(w[:k:k], w[k+1:]...)
					break
				}
			}
			t.done = true
		}
		return "", ctx.Err()
	}
}

// Slot is the run slot the ticket holds (its sandbox's user and folder).
func (t *Ticket) Slot() int { return t.slot }

// Take holds the ticket's GPU (alone when the run is timed) until
// release is called.
func (t *Ticket) Take(device string) (release func()) { return t.q.gates[device].Take(t.Timed) }

// Done gives the slot back; took is the GPU time the run used.
func (t *Ticket) Done(took time.Duration) {
	t.q.mu.Lock()
	defer t.q.mu.Unlock()
	t.doneLocked(took)
}

func (t *Ticket) doneLocked(took time.Duration) {
	if t.done || t.slot < 0 {
		return
	}
	q := t.q
	t.done = true
	q.slots[t.slot].busy = nil
	q.running[t.Student]--
	if took > 0 {
		q.used[t.Student] = append(q.used[t.Student], use{end: q.clock(), took: took})
		q.mean = (q.mean*7 + took) / 8
	}
	q.dispatchLocked()
}

// State is the queue as the instructor's view shows it.
type State struct {
	Slots    int                      `json:"slots"`
	Busy     map[string]int           `json:"busy"` // runs on each device
	Waiting  map[string]int           `json:"waiting"`
	Running  map[string]int           `json:"running"`
	GPUHour  map[string]time.Duration `json:"gpuHourNS"` // GPU time in the last hour
	Started  int                      `json:"started"`
	MeanRun  time.Duration            `json:"meanRunNS"`
	Budget   time.Duration            `json:"budgetNS"`
	MaxQueue int                      `json:"maxQueued"`
}

// State is a copy of the queue's state.
func (q *Queue) State() State {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock()
	st := State{Slots: q.onLocked(), Busy: map[string]int{}, Waiting: map[string]int{}, Running: map[string]int{}, GPUHour: map[string]time.Duration{},
		Started: q.Started, MeanRun: q.mean, Budget: q.Budget, MaxQueue: q.MaxQueued}
	for _, s := range q.slots {
		if !s.off {
			st.Busy[s.device] += 0
		}
		if s.busy != nil {
			st.Busy[s.device]++
		}
	}
	for s, w := range q.waiting {
		if len(w) > 0 {
			st.Waiting[s] = len(w)
		}
	}
	for s, n := range q.running {
		if n > 0 {
			st.Running[s] = n
		}
	}
	for s := range q.used {
		if u, _ := q.usedLocked(s, now); u > 0 {
			st.GPUHour[s] = u
		}
	}
	return st
}

// Mine is the place of student's first waiting run (0: none waits),
// how many of theirs wait and run, and the estimate of the wait.
func (q *Queue) Mine(student string) (place, waiting, running int, est time.Duration) {
	q.mu.Lock()
	w := q.waiting[student]
	if len(w) > 0 {
		place, _ = q.placeLocked(w[0])
	}
	waiting, running = len(w), q.running[student]
	q.mu.Unlock()
	return place, waiting, running, q.Estimate(place)
}
