package tracer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// maxLine is the longest line Read takes: an event of this package's
// is a few hundred bytes.
const maxLine = 1 << 20

// Read reads the events of a file a Tracer wrote: whole, cut short (a
// process stopped while it wrote: its last line, if cut, is left out),
// or several traces one after the other (a server started again,
// appending), each event's Start that of its own trace. A line that is
// not an event is an error naming it.
func Read(r io.Reader) ([]Event, error) {
	var out []Event
	var start time.Time
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var pending []byte // the last line read, held until the next shows it was whole
	n, at := 0, 0
	flush := func(line []byte, last bool) error {
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			if last {
				return nil // cut short as it was written
			}
			return fmt.Errorf("trace line %d: %v", at, err)
		}
		if e.Ph == "M" {
			if s, ok := e.Args["start"].(string); ok {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					start = t
				}
			}
		}
		e.Start = start
		out = append(out, e)
		return nil
	}
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		line = bytes.TrimPrefix(line, []byte("["))
		line = bytes.TrimPrefix(line, []byte(","))
		line = bytes.TrimSuffix(line, []byte("]"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if pending != nil {
			if err := flush(pending, false); err != nil {
				return out, err
			}
		}
		pending, at = append([]byte(nil), line...), n
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("trace line %d: %v", n+1, err)
	}
	if pending != nil {
		return out, flush(pending, true)
	}
	return out, nil
}

// Spans are the events of es that are spans ("X").
func Spans(es []Event) []Event {
	var out []Event
	for _, e := range es {
		if e.Ph == "X" {
			out = append(out, e)
		}
	}
	return out
}

// Begin is when e began, in its trace's clock (Start plus TS).
func (e Event) Begin() time.Time { return e.Start.Add(time.Duration(e.TS) * time.Microsecond) }
