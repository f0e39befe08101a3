package gradebook

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/timeline"
)

// raceTrace is a kernel on stream 2 reading stream 1's buffer without an
// event between them, as the library sends it.
func raceTrace() []byte {
	return timeline.Encode([]timeline.Event{
		{T: 1000, Kind: timeline.KindAlloc, Stream: 1, A: 0x1000, B: 4 << 20, C: 1},
		timeline.Name(0, "produce"),
		{T: 2000, Kind: timeline.KindLaunch, Stream: 1, A: 0},
		timeline.Name(1, "consume"),
		{T: 3000, Kind: timeline.KindLaunch, Stream: 2, A: 1},
		{T: 3000, Kind: timeline.KindFinding, Flags: timeline.FindUse, Stream: -1, A: 5, B: 1, C: 4 << 20},
		{T: 4000, Kind: timeline.KindFree, Stream: 1, A: 0x1000, B: 4 << 20, C: 1},
		{T: 5000, Kind: timeline.KindHostWait, Flags: timeline.WaitDevice, Stream: -1, A: 900000},
	})
}

// A run's trace is kept with its attempt, and the student's HTML
// feedback draws it as an image; a student without one gets none.
func TestFeedbackDrawsTheTimeline(t *testing.T) {
	b := open(t)
	b.SetExercises([]Exercise{{"cross-stream", 10, 0}})
	a := attempt("alice", "cross-stream", Failed)
	a.Trace = raceTrace()
	if err := b.Record(a); err != nil {
		t.Fatal(err)
	}
	b.Record(attempt("bob", "cross-stream", Passed))
	s, err := b.Sheet()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Grades["alice"]["cross-stream"].Trace; string(got) != string(raceTrace()) {
		t.Fatalf("the trace came back as %d bytes", len(got))
	}
	page, _ := s.FeedbackHTML("alice")
	m := regexp.MustCompile(`<img [^>]*src="data:image/svg\+xml;base64,([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no timeline in alice's feedback:\n%s", page)
	}
	svg, _ := base64.StdEncoding.DecodeString(string(m[1]))
	if !strings.Contains(string(svg), "kernel consume on stream 2 used a 4 MiB buffer") {
		t.Errorf("the picture does not say the race")
	}
	if dir := os.Getenv("LESSONS_SCREENSHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "feedback-alice.html"), page, 0o644)
	}
	if page, _ := s.FeedbackHTML("bob"); strings.Contains(string(page), "data:image/svg") {
		t.Error("bob's feedback has a timeline he never sent")
	}
}
