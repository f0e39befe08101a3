package checker

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// The statistics library (kernels/allocstats.cu) sends its record to the
// grader as frames over a pipe the grader made (the program's descriptor
// $LESSONS_STATS_FD), each signed with a key the grader made for this run
// alone ($LESSONS_STATS_KEY, which the library takes out of the
// environment before the program's main). A frame, little-endian:
//
//	0   magic    u32  "LSF1"
//	4   kind     u16  FrameStart, FrameSnapshot or FrameEnd
//	6   flags    u16  0
//	8   seq      u64  0, 1, 2, ... in the order written
//	16  recLen   u32  bytes of the record (struct Record, DecodeStats)
//	20  guardLen u32  bytes of the guard block (struct Guard)
//	24  record, then guard
//	..  HMAC-SHA256 under the key of every byte before it
//
// A frame is at most MaxFrame bytes (the pipe's PIPE_BUF, so that each is
// written at once, never interleaved with another writer's bytes).
const (
	frameMagic  = 0x3146534c // "LSF1"
	frameHeader = 24
	frameMAC    = sha256.Size
	// MaxFrame is the size limit of a frame: POSIX's PIPE_BUF on Linux.
	MaxFrame = 4096
	// KeySize is the size of a run's key.
	KeySize = 32
)

// Kinds of frame.
const (
	// FrameStart is written by the library's constructor, before the
	// program's main.
	FrameStart = 1
	// FrameSnapshot is the record so far, written as the program runs.
	FrameSnapshot = 2
	// FrameEnd is written by the library's own exit handler, once.
	FrameEnd = 3
)

// Guard is what the library saw of calls around it, sent beside the
// record (not in it, so that the record's layout is the statistics' own).
type Guard struct {
	Version uint64
	// DriverAllocCalls, DriverAllocBytes and DriverFreeCalls count the
	// driver API's allocations the program made itself (cuMemAlloc and
	// its kin); they are counted in the record's figures too.
	DriverAllocCalls, DriverAllocBytes, DriverFreeCalls uint64
	// Redirected counts look-ups of a hooked CUDA function (dlsym,
	// dlvsym, cudaGetDriverEntryPoint, cuGetProcAddress) answered with
	// the hook instead of the real function.
	Redirected uint64
	// RuntimeCopies and DriverCopies are how many copies of libcudart
	// and libcuda were mapped at the end (more than one: a private copy,
	// loaded with dlmopen or from another file, that the hooks do not
	// reach).
	RuntimeCopies, DriverCopies uint64
	// Namespaces is how many link namespaces held objects at the end
	// (more than one: dlmopen).
	Namespaces uint64
}

const guardVersion = 1

// ChannelError says why a record sent over the channel cannot be
// trusted, in words an instructor can read.
type ChannelError struct {
	// CutShort is set when every frame was the library's but the last,
	// the end of the run, never came: the program left without its
	// normal exit (or crashed, or was killed).
	CutShort bool
	Reason   string
}

func (e *ChannelError) Error() string { return e.Reason }

// Received is a record that came over the channel and verified.
type Received struct {
	// Stats is the last record the library sent (nil when it sent none).
	Stats *Stats
	Guard Guard
	// Frames is how many frames verified.
	Frames int
}

// Channel verifies the frames of one run as they come: Write them in,
// then Close. It keeps only the last frame's record, so a long run's
// snapshots cost no memory.
type Channel struct {
	key    []byte
	buf    []byte
	seq    uint64
	ended  bool
	err    *ChannelError
	last   Received
	record []byte
	extra  int // bytes that came after the end, or after an error
}

// NewChannel is a verifier of frames signed with key.
func NewChannel(key []byte) *Channel {
	return &Channel{key: append([]byte(nil), key...)}
}

// Write takes bytes as they came from the pipe. It never fails, so that
// the pipe is drained to its end whatever the program wrote; what was
// wrong is Close's error.
func (c *Channel) Write(p []byte) (int, error) {
	n := len(p)
	if c.err != nil || c.ended {
		if c.ended && c.err == nil && len(p) > 0 {
			c.fail(false, "the statistics record has bytes after the library's end-of-run frame: something else wrote to the record's channel")
		}
		return n, nil
	}
	c.buf = append(c.buf, p...)
	for c.err == nil && !c.ended {
		size, ok := c.frameSize()
		if !ok || len(c.buf) < size {
			break
		}
		c.frame(c.buf[:size])
		c.buf = c.buf[size:]
	}
	if c.ended && c.err == nil && len(c.buf) > 0 {
		c.fail(false, "the statistics record has bytes after the library's end-of-run frame: something else wrote to the record's channel")
	}
	if c.err != nil || c.ended {
		c.buf = nil
	}
	return n, nil
}

// frameSize is the size of the frame at the start of buf, once its header
// is there; a header that cannot start a frame fails the channel.
func (c *Channel) frameSize() (int, bool) {
	if len(c.buf) < frameHeader {
		if len(c.buf) >= 4 && binary.LittleEndian.Uint32(c.buf) != frameMagic {
			c.foreign("does not start as the library's frames do")
		}
		return 0, false
	}
	if binary.LittleEndian.Uint32(c.buf) != frameMagic {
		c.foreign("does not start as the library's frames do")
		return 0, false
	}
	rl, gl := binary.LittleEndian.Uint32(c.buf[16:]), binary.LittleEndian.Uint32(c.buf[20:])
	size := uint64(frameHeader) + uint64(rl) + uint64(gl) + frameMAC
	if size > MaxFrame {
		c.foreign(fmt.Sprintf("claims %d bytes, more than a frame holds", size))
		return 0, false
	}
	return int(size), true
}

func (c *Channel) foreign(why string) {
	c.fail(false, fmt.Sprintf("the statistics record has a frame the library did not write (frame %d %s): the program wrote to the record's channel", c.seq, why))
}

func (c *Channel) fail(cut bool, reason string) {
	if c.err == nil {
		c.err = &ChannelError{CutShort: cut, Reason: reason}
	}
}

func (c *Channel) frame(f []byte) {
	body, mac := f[:len(f)-frameMAC], f[len(f)-frameMAC:]
	h := hmac.New(sha256.New, c.key)
	h.Write(body)
	if !hmac.Equal(h.Sum(nil), mac) {
		c.foreign("is not signed with this run's key")
		return
	}
	kind := binary.LittleEndian.Uint16(f[4:])
	seq := binary.LittleEndian.Uint64(f[8:])
	rl := int(binary.LittleEndian.Uint32(f[16:]))
	if seq != c.seq {
		what := "replayed or reordered"
		if seq > c.seq {
			what = "missing"
		}
		c.fail(false, fmt.Sprintf("the statistics record is out of sequence: frame %d came where frame %d was due (frames %s): something read from or wrote to the record's channel", seq, c.seq, what))
		return
	}
	switch {
	case seq == 0 && kind != FrameStart:
		c.fail(false, "the statistics record does not begin with the library's start frame")
		return
	case seq > 0 && kind == FrameStart:
		c.fail(false, fmt.Sprintf("the statistics record has a second start frame (frame %d): two programs wrote to one channel", seq))
		return
	case kind != FrameStart && kind != FrameSnapshot && kind != FrameEnd:
		c.fail(false, fmt.Sprintf("the statistics record has a frame of unknown kind %d (frame %d)", kind, seq))
		return
	}
	rec, guard := f[frameHeader:frameHeader+rl], f[frameHeader+rl:len(f)-frameMAC]
	st, err := DecodeStats(rec)
	if err != nil {
		c.fail(false, fmt.Sprintf("the statistics record's frame %d cannot be read: %v", seq, err))
		return
	}
	c.last.Stats = st
	c.last.Guard = decodeGuard(guard)
	c.last.Frames++
	c.seq++
	if kind == FrameEnd {
		c.ended = true
	}
}

func decodeGuard(b []byte) Guard {
	var g Guard
	words := []*uint64{&g.Version, &g.DriverAllocCalls, &g.DriverAllocBytes, &g.DriverFreeCalls, &g.Redirected, &g.RuntimeCopies, &g.DriverCopies, &g.Namespaces}
	for i, w := range words {
		if 8*i+8 <= len(b) {
			*w = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	return g
}

func (g *Guard) encode() []byte {
	words := []uint64{g.Version, g.DriverAllocCalls, g.DriverAllocBytes, g.DriverFreeCalls, g.Redirected, g.RuntimeCopies, g.DriverCopies, g.Namespaces}
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// Close ends the channel: the pipe reached its end. It returns the record
// when the frames were the library's, in order, from its start frame to
// its end frame; nil and no error when nothing at all came (the library
// was not loaded: a fake toolchain's, or a program that is not a CUDA
// build); else why the record cannot be trusted (a *ChannelError), with
// what verified so far (a crashed program's last snapshot).
func (c *Channel) Close() (*Received, error) {
	if c.err == nil && !c.ended {
		switch {
		case len(c.buf) > 0 && c.seq == 0 && len(c.buf) < frameHeader:
			c.foreign("is cut off")
		case len(c.buf) > 0:
			c.fail(true, "the statistics record was cut short in the middle of a frame: the program left without exiting normally (_exit, a crash or a kill), and the library's end-of-run record is missing")
		case c.seq == 0:
			return nil, nil
		default:
			c.fail(true, "the statistics record was cut short: the program left without exiting normally (_exit, a crash or a kill), and the library's end-of-run record is missing")
		}
	}
	last := c.last
	if c.err != nil {
		if last.Frames == 0 {
			return nil, c.err
		}
		return &last, c.err
	}
	return &last, nil
}

// EncodeFrame makes a frame as the library does: tests, and stand-ins
// for the library in a toolchain without CUDA, use it.
func EncodeFrame(key []byte, seq uint64, kind int, s *Stats, g *Guard) ([]byte, error) {
	rec := s.Encode()
	var gb []byte
	if g != nil {
		gg := *g
		if gg.Version == 0 {
			gg.Version = guardVersion
		}
		gb = gg.encode()
	}
	size := frameHeader + len(rec) + len(gb) + frameMAC
	if size > MaxFrame {
		return nil, errors.New("a frame of this record would pass PIPE_BUF")
	}
	f := make([]byte, frameHeader, size)
	binary.LittleEndian.PutUint32(f, frameMagic)
	binary.LittleEndian.PutUint16(f[4:], uint16(kind))
	binary.LittleEndian.PutUint64(f[8:], seq)
	binary.LittleEndian.PutUint32(f[16:], uint32(len(rec)))
	binary.LittleEndian.PutUint32(f[20:], uint32(len(gb)))
	f = append(append(f, rec...), gb...)
	h := hmac.New(sha256.New, key)
	h.Write(f)
	return h.Sum(f), nil
}

// Problem says, in words, why the guard makes the record untrustworthy
// (the program reached CUDA by a way the library does not watch), or "".
func (g Guard) Problem() string {
	switch {
	case g.RuntimeCopies > 1:
		return fmt.Sprintf("the program loaded %d copies of the CUDA runtime (libcudart): calls into a private copy (dlmopen, or a copy of the file) are not counted", g.RuntimeCopies)
	case g.DriverCopies > 1:
		return fmt.Sprintf("the program loaded %d copies of the CUDA driver library (libcuda): calls into a private copy are not counted", g.DriverCopies)
	case g.Namespaces > 1:
		return "the program loaded libraries into a link namespace of their own (dlmopen), where the statistics library's hooks do not reach"
	}
	return ""
}
