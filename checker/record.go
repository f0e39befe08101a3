package checker

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
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
	// FrameTrace carries events of the run's trace (LESSONS_STATS_TRACE;
	// internal/timeline reads them) in place of the record, sent before
	// the end frame.
	FrameTrace = 4
	// MaxTrace is the most trace bytes a process may send: the library
	// keeps at most 32,768 events of 40 bytes.
	MaxTrace = 32768 * 40
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
	// Pid is the process that sent the frame, ParentPid the process that
	// forked it (version 2; 0 in frames of version 1, all of which are
	// the program's own process). The library follows the program's
	// fork()ed children: each numbers its own frames from 0 on the same
	// channel, and Channel keeps a record per process.
	Pid, ParentPid uint64
	// CUDAChildren is how many forked processes of the run called CUDA
	// or sent a record, as the program's own process saw at its last
	// frame (version 3): each is counted, in memory shared with it,
	// before its first call is made or its first frame sent, so one whose
	// frames went elsewhere (a file put at the channel's number between
	// the library's look and its write) is still counted, and Close fails
	// a record that lacks it.
	CUDAChildren uint64
	// WrittenCode is how many executable mappings of files written
	// during the run the library saw at its end or before a dlclose, the
	// most at any count (version 4): code the program wrote and ran,
	// which no hook sees (a copy of the runtime under a name of its own).
	// WrittenPath is the end of the first one's path.
	WrittenCode uint64
	WrittenPath string
}

const guardVersion = 4

// writtenPathSize is the bytes of the guard that hold WrittenPath.
const writtenPathSize = 64

// MaxProcesses is how many processes (the program and the children it
// forked that called CUDA) one channel may carry.
const MaxProcesses = 64

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
	// Stats is the last record the program's own process sent (nil when
	// it sent none).
	Stats *Stats
	Guard Guard
	// Frames is how many frames verified, of every process.
	Frames int
	// Children is the records of the child processes the program forked
	// (those that called CUDA), merged (MergeStats); nil when there were
	// none. ChildGuards are their guards, in the order they started.
	Children    *Stats
	ChildGuards []Guard
	// Trace is the program's own process's trace events, in order (nil
	// when tracing was off).
	Trace []byte
}

// printable is a path the library sent, as words for a reason: bytes
// that are not printable are shown quoted.
func printable(p string) string {
	if p == "" {
		return "(no path)"
	}
	for _, r := range p {
		if r < ' ' || r == 0x7f || r == utf8.RuneError {
			return strconv.Quote(p)
		}
	}
	return p
}

// Problem says, in words, why a guard of any process makes the record
// untrustworthy, or "".
func (r *Received) Problem() string {
	if p := r.Guard.Problem(); p != "" {
		return p
	}
	for _, g := range r.ChildGuards {
		if p := g.Problem(); p != "" {
			return fmt.Sprintf("in child process %d: %s", g.Pid, p)
		}
	}
	return ""
}

// process is what the channel knows of one process's frames.
type process struct {
	pid, parent uint64
	seq         uint64
	ended       bool
	stats       *Stats
	guard       Guard
	trace       []byte
}

// Channel verifies the frames of one run as they come: Write them in,
// then Close. It keeps only each process's last record, so a long run's
// snapshots cost no memory. The first frame is the program's own start;
// a child forked by a process of the run starts with a start frame of
// its own (its pid and its parent's in the guard), and each process's
// frames are in sequence from 0 and end with one end frame. The program's
// children may end after it.
type Channel struct {
	key    []byte
	buf    []byte
	err    *ChannelError
	frames int
	root   *process
	procs  map[uint64]*process
	order  []*process
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
	if c.err != nil {
		return n, nil
	}
	c.buf = append(c.buf, p...)
	for c.err == nil {
		size, ok := c.frameSize()
		if !ok || len(c.buf) < size {
			break
		}
		c.frame(c.buf[:size])
		c.buf = c.buf[size:]
	}
	if c.err != nil {
		c.buf = nil
	}
	return n, nil
}

// allEnded says whether every process that started has sent its end
// (a child may still start after: one the program left running).
func (c *Channel) allEnded() bool {
	if c.root == nil {
		return false
	}
	for _, p := range c.order {
		if !p.ended {
			return false
		}
	}
	return true
}

// unfollowedMark is what the library writes into the channel, in place
// of a frame, from a process of the run it does not follow (a child made
// by a raw clone or _Fork) that called CUDA or started a program
// (kernels/allocstats/channel.h, unfollowed).
const unfollowedMark = "LSUNFOLLOWED"

// Unfollowed is the reason a run's record fails for such a process.
const Unfollowed = "a process of the program that the statistics library does not follow (a child made by clone or _Fork, not fork, or a forked child that hid the record's channel) called CUDA or started a program: what it did is in no record"

const afterEnd = "the statistics record has bytes after the library's end-of-run frame: something else wrote to the record's channel"

// frameSize is the size of the frame at the start of buf, once its header
// is there; a header that cannot start a frame fails the channel.
func (c *Channel) frameSize() (int, bool) {
	if len(c.buf) >= len(unfollowedMark) && string(c.buf[:len(unfollowedMark)]) == unfollowedMark {
		c.fail(false, Unfollowed)
		return 0, false
	}
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
	if c.allEnded() {
		c.fail(false, afterEnd)
		return
	}
	c.fail(false, fmt.Sprintf("the statistics record has a frame the library did not write (frame %d %s): the program wrote to the record's channel", c.frames, why))
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
	rec, gb := f[frameHeader:frameHeader+rl], f[frameHeader+rl:len(f)-frameMAC]
	guard := decodeGuard(gb)
	p := c.process(kind, seq, guard)
	if p == nil {
		return
	}
	who := ""
	if p != c.root {
		who = fmt.Sprintf(" of child process %d", p.pid)
	}
	switch {
	case p.ended && p == c.root:
		c.fail(false, afterEnd)
		return
	case p.ended:
		c.fail(false, fmt.Sprintf("the statistics record%s has a frame after its end-of-run frame: something else wrote to the record's channel", who))
		return
	case seq != p.seq:
		what := "replayed or reordered"
		if seq > p.seq {
			what = "missing"
		}
		c.fail(false, fmt.Sprintf("the statistics record%s is out of sequence: frame %d came where frame %d was due (frames %s): something read from or wrote to the record's channel", who, seq, p.seq, what))
		return
	case seq == 0 && kind != FrameStart:
		c.fail(false, "the statistics record"+who+" does not begin with the library's start frame")
		return
	case seq > 0 && kind == FrameStart:
		c.fail(false, fmt.Sprintf("the statistics record%s has a second start frame (frame %d): two programs wrote to one channel", who, seq))
		return
	case kind == FrameTrace:
		if len(p.trace)+rl > MaxTrace {
			c.fail(false, fmt.Sprintf("the statistics record%s has more trace than the library sends (frame %d): something else wrote to the record's channel", who, seq))
			return
		}
		p.trace = append(p.trace, rec...)
		p.seq++
		c.frames++
		return
	case kind != FrameStart && kind != FrameSnapshot && kind != FrameEnd:
		c.fail(false, fmt.Sprintf("the statistics record%s has a frame of unknown kind %d (frame %d)", who, kind, seq))
		return
	}
	st, err := DecodeStats(rec)
	if err != nil {
		c.fail(false, fmt.Sprintf("the statistics record%s's frame %d cannot be read: %v", who, seq, err))
		return
	}
	p.stats, p.guard = st, guard
	p.seq++
	c.frames++
	if kind == FrameEnd {
		p.ended = true
	}
}

// process finds the process a frame is from, or starts a child: a start
// frame of a process not seen yet, forked by one of the run's (a pid is
// never taken twice). The first frame of the channel is the program's own.
func (c *Channel) process(kind uint16, seq uint64, g Guard) *process {
	if c.root == nil {
		c.root = &process{pid: g.Pid}
		c.procs = map[uint64]*process{g.Pid: c.root}
		c.order = []*process{c.root}
		return c.root
	}
	if p := c.procs[g.Pid]; p != nil {
		return p
	}
	switch {
	case kind != FrameStart || seq != 0:
		c.fail(false, fmt.Sprintf("the statistics record has frame %d of process %d, which never started: something read from or wrote to the record's channel", seq, g.Pid))
		return nil
	case c.procs[g.ParentPid] == nil:
		c.fail(false, fmt.Sprintf("the statistics record has a child process %d whose parent %d is not one of the run's processes", g.Pid, g.ParentPid))
		return nil
	case len(c.order) >= MaxProcesses:
		c.fail(false, fmt.Sprintf("the program forked more than %d processes that called CUDA: the statistics record follows at most %d", MaxProcesses-1, MaxProcesses-1))
		return nil
	}
	p := &process{pid: g.Pid, parent: g.ParentPid}
	c.procs[g.Pid] = p
	c.order = append(c.order, p)
	return p
}

func decodeGuard(b []byte) Guard {
	var g Guard
	words := []*uint64{&g.Version, &g.DriverAllocCalls, &g.DriverAllocBytes, &g.DriverFreeCalls, &g.Redirected, &g.RuntimeCopies, &g.DriverCopies, &g.Namespaces, &g.Pid, &g.ParentPid, &g.CUDAChildren}
	words = append(words, &g.WrittenCode)
	for i, w := range words {
		if 8*i+8 <= len(b) {
			*w = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	if at := 8 * len(words); at+writtenPathSize <= len(b) {
		p := b[at : at+writtenPathSize]
		if i := bytes.IndexByte(p, 0); i >= 0 {
			p = p[:i]
		}
		g.WrittenPath = string(p)
	}
	return g
}

func (g *Guard) encode() []byte {
	words := []uint64{g.Version, g.DriverAllocCalls, g.DriverAllocBytes, g.DriverFreeCalls, g.Redirected, g.RuntimeCopies, g.DriverCopies, g.Namespaces, g.Pid, g.ParentPid, g.CUDAChildren, g.WrittenCode}
	b := make([]byte, 8*len(words)+writtenPathSize)
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	copy(b[8*len(words):len(b)-1], g.WrittenPath)
	return b
}

// Close ends the channel: the pipe reached its end. It returns the record
// when the frames were the library's, in order, from its start frame to
// its end frame; nil and no error when nothing at all came (the library
// was not loaded: a fake toolchain's, or a program that is not a CUDA
// build); else why the record cannot be trusted (a *ChannelError), with
// what verified so far (a crashed program's last snapshot).
func (c *Channel) Close() (*Received, error) {
	if c.err == nil && (c.root == nil || !c.root.ended) {
		switch {
		case len(c.buf) > 0 && c.frames == 0 && len(c.buf) < frameHeader:
			c.foreign("is cut off")
		case len(c.buf) > 0:
			c.fail(true, "the statistics record was cut short in the middle of a frame: the program left without exiting normally (_exit, a crash or a kill), and the library's end-of-run record is missing")
		case c.root == nil:
			return nil, nil
		case c.root.stats != nil && c.root.stats.Execs > 0:
			c.fail(true, "the statistics record was cut short: the program replaced itself with another program (exec), whose CUDA calls the library cannot follow, and the library's end-of-run record is missing")
		default:
			c.fail(true, "the statistics record was cut short: the program left without exiting normally (_exit, a crash or a kill), and the library's end-of-run record is missing")
		}
	}
	if c.err == nil {
		for _, p := range c.order[1:] {
			if !p.ended {
				c.fail(true, fmt.Sprintf("the statistics record of child process %d (forked by process %d) was cut short: the child called CUDA and then left without exiting normally (_exit, a crash or a kill) or outlived the program, and its end-of-run record is missing", p.pid, p.parent))
				break
			}
		}
		if c.err == nil && c.root != nil && c.root.guard.CUDAChildren > uint64(len(c.order)-1) {
			c.fail(false, fmt.Sprintf("%s: %d forked processes called CUDA, and %d sent a record (a child's frames were kept from the grader)", Unfollowed, c.root.guard.CUDAChildren, len(c.order)-1))
		}
		if c.err == nil && len(c.buf) > 0 {
			if c.allEnded() {
				c.fail(false, afterEnd)
			} else {
				c.fail(true, "the statistics record was cut short in the middle of a frame of a child process")
			}
		}
	}
	var last Received
	if c.root != nil && c.root.stats != nil {
		last = Received{Stats: c.root.stats, Guard: c.root.guard, Frames: c.frames, Trace: c.root.trace}
		for _, p := range c.order[1:] {
			if p.stats != nil {
				last.Children = MergeStats(last.Children, p.stats)
				last.ChildGuards = append(last.ChildGuards, p.guard)
			}
		}
	}
	if c.err != nil {
		if last.Stats == nil {
			return nil, c.err
		}
		return &last, c.err
	}
	return &last, nil
}

// EncodeFrame makes a frame as the library does: tests, and stand-ins
// for the library in a toolchain without CUDA, use it.
func EncodeFrame(key []byte, seq uint64, kind int, s *Stats, g *Guard) ([]byte, error) {
	return encodeFrame(key, seq, kind, s.Encode(), g)
}

// EncodeTraceFrame makes a frame of trace events (FrameTrace) as the
// library does.
func EncodeTraceFrame(key []byte, seq uint64, events []byte, g *Guard) ([]byte, error) {
	return encodeFrame(key, seq, FrameTrace, events, g)
}

func encodeFrame(key []byte, seq uint64, kind int, rec []byte, g *Guard) ([]byte, error) {
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

// MapsUnread is the guard's count of the runtime's and the driver's
// copies when the library could not open /proc/self/maps at the end
// (kMapsUnread in kernels/allocstats/channel.h): the run is not trusted.
const MapsUnread = ^uint64(0)

// Problem says, in words, why the guard makes the record untrustworthy
// (the program reached CUDA by a way the library does not watch), or "".
func (g Guard) Problem() string {
	switch {
	case g.RuntimeCopies == MapsUnread:
		return "the statistics library could not read the program's mappings (/proc/self/maps) at its end (every descriptor in use, or the limit of open files lowered): a private copy of the CUDA runtime would go unseen, so the record is not trusted; close the files you open"
	case g.RuntimeCopies > 1:
		return fmt.Sprintf("the program loaded %d copies of the CUDA runtime (libcudart): calls into a private copy (dlmopen, or a copy of the file) are not counted", g.RuntimeCopies)
	case g.DriverCopies > 1:
		return fmt.Sprintf("the program loaded %d copies of the CUDA driver library (libcuda): calls into a private copy are not counted", g.DriverCopies)
	case g.Namespaces > 1:
		return "the program loaded libraries into a link namespace of their own (dlmopen), where the statistics library's hooks do not reach"
	case g.WrittenCode > 0:
		return fmt.Sprintf("the program ran code from a file written during its run: %s (mapped executable; %d such mapping(s)): code the program writes and runs is not counted; use the CUDA libraries on the machine, not a copy", printable(g.WrittenPath), g.WrittenCode)
	}
	return ""
}
