// Package timeline is the trace of a run, as the statistics library sends
// it (kernels/timeline.h, over the record's signed channel): the model
// parsed from its events, drawn for a student in the terminal (Text) and
// in the page and the feedback (SVG).
package timeline

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// EventSize is the size of one event in the trace.
const EventSize = 40

// Kinds of event (kernels/timeline.h's kTl*).
const (
	KindAlloc     = 1
	KindFree      = 2
	KindLaunch    = 3
	KindCopy      = 4
	KindRecord    = 5
	KindWait      = 6
	KindHostWait  = 7
	KindPool      = 8 // Stream is the pool's number; A its reserved bytes, B its used bytes
	KindTrim      = 9
	KindThreshold = 10
	KindGraph     = 11
	KindFinding   = 12
	KindName      = 13
	KindCut       = 14
	KindRan       = 15 // A the launch's event id + 1; B, C its start and end on the GPU
)

// Kinds of host wait (an event's flags).
const (
	WaitDevice = 1
	WaitStream = 2
	WaitEvent  = 3
	WaitCopy   = 4
)

// Kinds of finding (an event's flags).
const (
	FindUse       = 1 // a use on a stream not ordered after the allocation or another stream's use
	FindFree      = 2 // a free not ordered after another stream's use
	FindAfterFree = 3 // a use of memory already freed
	FindLeak      = 4 // an allocation never freed
)

// Event is one entry of the trace, as sent.
type Event struct {
	T           uint64 // nanoseconds since the library started
	Kind, Flags uint16
	Stream      int32 // 0 the default stream, -1 the host (a name's id for KindName)
	A, B, C     uint64
}

// Alloc is an allocation's life: from its allocation to its free (End
// is -1 when it was never freed: a leak).
type Alloc struct {
	ID, End int // event ids
	Stream  int
	Addr    uint64
	Bytes   uint64
	Async   bool
	FreedOn int // the stream that freed it
	Reuses  int // the allocation whose block it took (same address, freed before), or -1
}

// Edge is an event recorded on one stream and waited for on another.
type Edge struct {
	Record, Wait int // event ids
	From, To     int // streams
}

// Ran is when a kernel (or a graph) ran on the GPU, in nanoseconds on
// the trace's clock: the GPU's own times, aligned with the host's at the
// first timed launch.
type Ran struct {
	Start, End uint64
}

// PoolSample is a pool's reserved and used bytes after event ID.
type PoolSample struct {
	ID             int
	Pool           int
	Reserved, Used uint64
}

// Finding is one of the judge's findings, tied to the events involved.
type Finding struct {
	ID    int // the finding's own event
	Kind  int
	At    int // the operation at fault, or -1
	With  int // the allocation (or its free) it clashed with, or -1
	Bytes uint64
}

// Timeline is a run's trace, read.
type Timeline struct {
	Events   []Event
	Names    map[uint64]string // kernels' names by id
	Streams  []int             // streams seen, in order
	Allocs   []Alloc
	Edges    []Edge
	Findings []Finding
	// Ran is when each timed launch ran on the GPU, by its event id.
	Ran map[int]Ran
	// Pools are the pools' reserved and used bytes, each time they changed.
	Pools []PoolSample
	// Cut is how many events the library left out (its cap reached).
	Cut uint64
	// allocAt is the allocation of an allocation's or a free's event.
	allocAt map[int]int
}

// ParseError says why bytes are not a trace.
type ParseError struct {
	Event  int
	Reason string
}

func (e *ParseError) Error() string {
	if e.Event < 0 {
		return "read the run's trace: " + e.Reason
	}
	return fmt.Sprintf("read the run's trace: event %d: %s", e.Event, e.Reason)
}

// MaxEvents is the most events a trace holds (the library's cap and its
// note that it cut).
const MaxEvents = 32768

// Parse reads a trace (the verdict's Trace bytes).
func Parse(b []byte) (*Timeline, error) {
	if len(b)%EventSize != 0 {
		return nil, &ParseError{-1, fmt.Sprintf("%d bytes is not a whole number of %d-byte events", len(b), EventSize)}
	}
	n := len(b) / EventSize
	if n > MaxEvents {
		return nil, &ParseError{-1, fmt.Sprintf("%d events, more than the library keeps (%d)", n, MaxEvents)}
	}
	tl := &Timeline{Names: map[uint64]string{}, Ran: map[int]Ran{}}
	le := binary.LittleEndian
	seen := map[int]bool{}
	var last uint64
	for i := 0; i < n; i++ {
		p := b[i*EventSize:]
		e := Event{T: le.Uint64(p), Kind: le.Uint16(p[8:]), Flags: le.Uint16(p[10:]), Stream: int32(le.Uint32(p[12:])),
			A: le.Uint64(p[16:]), B: le.Uint64(p[24:]), C: le.Uint64(p[32:])}
		if e.Kind == KindHostWait && e.T+e.A < e.T {
			return nil, &ParseError{i, "a host wait that ends past the end of time"}
		}
		if e.Kind < KindAlloc || e.Kind > KindRan {
			return nil, &ParseError{i, fmt.Sprintf("unknown kind %d", e.Kind)}
		}
		if e.Stream < -1 {
			return nil, &ParseError{i, fmt.Sprintf("stream %d", e.Stream)}
		}
		if e.Kind != KindHostWait && e.T < last {
			// Events are appended in host order; only a host wait is
			// stamped at its start.
			e.T = last
		}
		if e.Kind != KindHostWait && e.T > last {
			last = e.T
		}
		tl.Events = append(tl.Events, e)
		if e.Kind == KindName {
			tl.Names[uint64(e.Stream)] = nameOf(e)
			continue
		}
		if e.Kind == KindCut {
			tl.Cut = e.A
			continue
		}
		if e.Kind == KindRan && e.C < e.B {
			return nil, &ParseError{i, "a kernel that ends on the GPU before it starts"}
		}
		if e.Stream >= 0 && e.Kind != KindFinding && e.Kind != KindPool && !seen[int(e.Stream)] {
			seen[int(e.Stream)] = true
			tl.Streams = append(tl.Streams, int(e.Stream))
		}
	}
	sort.Ints(tl.Streams)
	if err := tl.link(); err != nil {
		return nil, err
	}
	return tl, nil
}

func nameOf(e Event) string {
	var w [24]byte
	binary.LittleEndian.PutUint64(w[:], e.A)
	binary.LittleEndian.PutUint64(w[8:], e.B)
	binary.LittleEndian.PutUint64(w[16:], e.C)
	s := strings.TrimRight(string(w[:]), "\x00")
	// A name is the program's: nothing in it may steer a terminal.
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\uFFFD' || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}

// ref is an event id sent as id+1 (0: none); one past the events, or not
// before the referring event, is an error.
func ref(v uint64, i int) (int, bool) {
	if v == 0 {
		return -1, true
	}
	if v-1 >= uint64(i) {
		return 0, false
	}
	return int(v - 1), true
}

// link pairs allocations with their frees, waits with their records, and
// findings with their events.
func (tl *Timeline) link() error {
	tl.allocAt = map[int]int{}
	byID := tl.allocAt             // an allocation's (or its free's) event id: its index in Allocs
	freedAt := map[uint64]int{}    // an address: the last allocation freed there
	lastRecord := map[uint64]int{} // an event handle: its last record's event id
	for i, e := range tl.Events {
		switch e.Kind {
		case KindAlloc:
			a := Alloc{ID: i, End: -1, Stream: int(e.Stream), Addr: e.A, Bytes: e.B, Async: e.C == 1, FreedOn: -1, Reuses: -1}
			if j, ok := freedAt[e.A]; ok {
				a.Reuses = j
			}
			byID[i] = len(tl.Allocs)
			tl.Allocs = append(tl.Allocs, a)
		case KindFree:
			from, ok := ref(e.C, i)
			if !ok {
				return &ParseError{i, "a free of an allocation that is not before it"}
			}
			if j, ok := byID[from]; ok && tl.Allocs[j].End < 0 && tl.Allocs[j].ID == from {
				tl.Allocs[j].End = i
				byID[i] = j
				tl.Allocs[j].FreedOn = int(e.Stream)
				freedAt[e.A] = j
			}
		case KindRecord:
			lastRecord[e.A] = i
		case KindWait:
			if r, ok := lastRecord[e.A]; ok {
				from := int(tl.Events[r].Stream)
				if from != int(e.Stream) {
					tl.Edges = append(tl.Edges, Edge{Record: r, Wait: i, From: from, To: int(e.Stream)})
				}
			}
		case KindRan:
			at, ok := ref(e.A, i)
			if !ok || at < 0 || (tl.Events[at].Kind != KindLaunch && tl.Events[at].Kind != KindGraph) {
				return &ParseError{i, "a kernel's time on the GPU tied to an event that is not a launch before it"}
			}
			tl.Ran[at] = Ran{Start: e.B, End: e.C}
		case KindPool:
			tl.Pools = append(tl.Pools, PoolSample{ID: i, Pool: int(e.Stream), Reserved: e.A, Used: e.B})
		case KindFinding:
			at, ok1 := ref(e.A, i)
			with, ok2 := ref(e.B, i)
			if !ok1 || !ok2 {
				return &ParseError{i, "a finding tied to an event that is not before it"}
			}
			if e.Flags < FindUse || e.Flags > FindLeak {
				return &ParseError{i, fmt.Sprintf("unknown finding %d", e.Flags)}
			}
			tl.Findings = append(tl.Findings, Finding{ID: i, Kind: int(e.Flags), At: at, With: with, Bytes: e.C})
		}
	}
	return nil
}

// Span is the time from the first event to the last one's end, in
// nanoseconds.
func (tl *Timeline) Span() uint64 {
	var end uint64
	for _, e := range tl.Events {
		t := e.T
		switch e.Kind {
		case KindHostWait:
			t += e.A
		case KindRan:
			t = max(t, e.C)
		}
		if t > end {
			end = t
		}
	}
	return end
}

// AllocOf is the allocation whose event id is id, or nil.
func (tl *Timeline) AllocOf(id int) *Alloc {
	if j, ok := tl.allocAt[id]; ok {
		return &tl.Allocs[j]
	}
	return nil
}

// Encode writes events as the library sends them: tests and hand-written
// traces use it.
func Encode(events []Event) []byte {
	b := make([]byte, EventSize*len(events))
	le := binary.LittleEndian
	for i, e := range events {
		p := b[i*EventSize:]
		le.PutUint64(p, e.T)
		le.PutUint16(p[8:], e.Kind)
		le.PutUint16(p[10:], e.Flags)
		le.PutUint32(p[12:], uint32(e.Stream))
		le.PutUint64(p[16:], e.A)
		le.PutUint64(p[24:], e.B)
		le.PutUint64(p[32:], e.C)
	}
	return b
}

// Name is an event for a kernel's name (as the library sends it).
func Name(id int32, name string) Event {
	var w [24]byte
	copy(w[:], name)
	le := binary.LittleEndian
	return Event{Kind: KindName, Stream: id, A: le.Uint64(w[:]), B: le.Uint64(w[8:]), C: le.Uint64(w[16:])}
}
