package checker

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var testKey = bytes.Repeat([]byte{7}, KeySize)

// frames makes a channel's bytes as the library writes them: a start, the
// given number of snapshots, and an end (when end is set).
func frames(t testing.TB, key []byte, snapshots int, end bool) [][]byte {
	t.Helper()
	var out [][]byte
	add := func(kind int, s *Stats) {
		f, err := EncodeFrame(key, uint64(len(out)), kind, s, &Guard{RuntimeCopies: 1})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	add(FrameStart, &Stats{})
	for i := 0; i < snapshots; i++ {
		add(FrameSnapshot, &Stats{MallocCalls: uint64(i + 1)})
	}
	if end {
		add(FrameEnd, &Stats{MallocCalls: uint64(snapshots), Exited: 1})
	}
	return out
}

func join(fs ...[]byte) []byte { return bytes.Join(fs, nil) }

func TestChannelAcceptsTheLibrarysFrames(t *testing.T) {
	fs := frames(t, testKey, 3, true)
	// Fed a byte at a time, as a pipe may hand them over.
	c := NewChannel(testKey)
	for _, b := range join(fs...) {
		c.Write([]byte{b})
	}
	got, err := c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got.Stats.MallocCalls != 3 || got.Stats.Exited != 1 || got.Frames != 5 || got.Guard.RuntimeCopies != 1 || got.Guard.Version != guardVersion {
		t.Errorf("received %+v, %+v", got.Stats, got.Guard)
	}
	// A program that never touched CUDA: start and end, zeros.
	got, err = verifyFrames(join(frames(t, testKey, 0, true)...), testKey)
	if err != nil || got.Stats.MallocCalls != 0 || got.Frames != 2 {
		t.Errorf("start and end alone: %+v, %v", got, err)
	}
}

// Nothing at all on the channel: the library was not loaded (a fake
// toolchain's empty library); not an error, and no record.
func TestChannelEmpty(t *testing.T) {
	got, err := verifyFrames(nil, testKey)
	if got != nil || err != nil {
		t.Errorf("empty: %+v, %v", got, err)
	}
}

func TestChannelRejects(t *testing.T) {
	fs := frames(t, testKey, 2, true) // start, 2 snapshots, end
	other := frames(t, bytes.Repeat([]byte{8}, KeySize), 2, true)
	tampered := append([]byte(nil), fs[1]...)
	tampered[frameHeader+16] ^= 1 // malloc_calls
	for _, tc := range []struct {
		name, data, want string
		cut              bool
	}{
		{"missing end (_exit)", string(join(fs[:3]...)), "cut short: the program left without exiting normally", true},
		{"truncated mid-frame", string(join(fs[0], fs[1][:100])), "cut short in the middle of a frame", true},
		{"replayed snapshot", string(join(fs[0], fs[1], fs[1], fs[2], fs[3])), "frame 1 came where frame 2 was due", false},
		{"reordered", string(join(fs[0], fs[2], fs[1], fs[3])), "frame 2 came where frame 1 was due", false},
		{"a frame dropped", string(join(fs[0], fs[1], fs[3])), "frames missing", false},
		{"wrong key", string(join(other...)), "not signed with this run's key", false},
		{"tampered", string(join(fs[0], tampered, fs[2], fs[3])), "not signed with this run's key", false},
		{"garbage", "ERROR SUMMARY: 0 errors\n", "frame the library did not write", false},
		{"garbage between frames", string(join(fs[0], []byte("xxxx"), fs[1], fs[2], fs[3])), "frame the library did not write", false},
		{"bytes after end", string(join(join(fs...), []byte{0})), "bytes after the library's end-of-run frame", false},
		{"a frame after end", string(join(join(fs...), fs[3])), "bytes after the library's end-of-run frame", false},
		{"no start", string(join(fs[1:]...)), "frame 1 came where frame 0 was due", false},
		{"two starts", string(join(fs[0], fs[0])), "frame 0 came where frame 1 was due", false},
		{"short garbage", "ab", "frame the library did not write", false},
		{"a process not followed", string(join(fs[0], fs[1], []byte(unfollowedMark), fs[2], fs[3])), "that the statistics library does not follow", false},
		{"not followed, after the end", string(join(join(fs...), []byte(unfollowedMark))), "that the statistics library does not follow", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := verifyFrames([]byte(tc.data), testKey)
			var ce *ChannelError
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, tc.want) || ce.CutShort != tc.cut {
				t.Fatalf("err = %v (%+v), want %q (cut short %v)", err, ce, tc.want, tc.cut)
			}
			if tc.cut && (got == nil || got.Stats == nil) {
				t.Errorf("a record cut short should keep its last snapshot: %+v", got)
			}
		})
	}
}

func TestEncodeFrameFitsPipeBuf(t *testing.T) {
	f, err := EncodeFrame(testKey, 0, FrameStart, &Stats{}, &Guard{})
	if err != nil || len(f) > MaxFrame {
		t.Fatalf("a frame of %d bytes: %v", len(f), err)
	}
}

func TestGuardProblem(t *testing.T) {
	for g, want := range map[Guard]string{
		{RuntimeCopies: 1, DriverCopies: 1, Namespaces: 1}: "",
		{RuntimeCopies: 2}: "2 copies of the CUDA runtime",
		{DriverCopies: 2}:  "copies of the CUDA driver library",
		{Namespaces: 2}:    "dlmopen",
		{RuntimeCopies: MapsUnread, DriverCopies: MapsUnread, Namespaces: 1}: "could not read the program's mappings",
	} {
		if got := g.Problem(); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%+v: %q, want %q", g, got, want)
		}
	}
}

// FuzzChannel: whatever a program writes to the channel, the verifier
// neither panics nor accepts a record that is not the library's frames
// followed by nothing.
func FuzzChannel(f *testing.F) {
	fs := frames(f, testKey, 2, true)
	f.Add(join(fs...), 0, 0)
	f.Add(join(fs...), 3, 40)
	f.Add([]byte("LSF1"), 0, 0)
	f.Fuzz(func(t *testing.T, data []byte, at, n int) {
		// Splice the fuzzer's bytes into the honest stream.
		honest := join(fs...)
		if at < 0 || at > len(honest) {
			at = len(honest)
		}
		if n < 0 || at+n > len(honest) {
			n = 0
		}
		mixed := join(honest[:at], data, honest[at+n:])
		got, err := verifyFrames(mixed, testKey)
		if err == nil && got != nil && !bytes.Equal(mixed, honest) {
			// Accepted bytes that are not the honest stream: only
			// possible if they are another run's frames under this key,
			// which the fuzzer cannot sign.
			t.Fatalf("accepted %d forged bytes (at %d, replacing %d)", len(data), at, n)
		}
		if err == nil && got == nil && len(mixed) != 0 {
			t.Fatal("bytes accepted as an empty channel")
		}
	})
}

// verifyFrames verifies a whole channel's bytes at once, as Channel does
// as they come.
func verifyFrames(data, key []byte) (*Received, error) {
	c := NewChannel(key)
	c.Write(data)
	return c.Close()
}

// A guard's written code (version 4) comes over the channel with the end
// of its file's path, and makes the record untrusted, naming the file.
func TestGuardCarriesCodeWrittenDuringTheRun(t *testing.T) {
	g := &Guard{RuntimeCopies: 1, WrittenCode: 2, WrittenPath: "/tmp/run/libnvprivate.so"}
	start, _ := EncodeFrame(testKey, 0, FrameStart, &Stats{}, g)
	end, _ := EncodeFrame(testKey, 1, FrameEnd, &Stats{}, g)
	got, err := verifyFrames(append(start, end...), testKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.Guard.WrittenCode != 2 || got.Guard.WrittenPath != g.WrittenPath {
		t.Fatalf("got %d %q", got.Guard.WrittenCode, got.Guard.WrittenPath)
	}
	if p := got.Problem(); !strings.Contains(p, "the program ran code from a file written during its run: /tmp/run/libnvprivate.so") {
		t.Fatalf("the problem is %q", p)
	}
	if p := (Guard{RuntimeCopies: 1, WrittenCode: 1, WrittenPath: "a\nb"}).Problem(); !strings.Contains(p, `"a\nb"`) {
		t.Fatalf("a path with a newline is not quoted: %q", p)
	}
}
