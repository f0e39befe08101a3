package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter runs a classic BPF program over one system call's
// seccomp_data, as the kernel would (words in the machine's order, little
// endian here), and returns what it decides. It knows the instructions
// program makes, and fails the test on any other.
func runFilter(t *testing.T, prog []unix.SockFilter, arch uint32, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[offArgs+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			var taken bool
			switch in.Code &^ (unix.BPF_JMP | unix.BPF_K) {
			case unix.BPF_JEQ:
				taken = acc == in.K
			case unix.BPF_JGE:
				taken = acc >= in.K
			default:
				taken = acc&in.K != 0
			}
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x this test does not run", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// The write-exec rule on mmap, decided by the filter itself: memory both
// writable and executable is refused, and executable memory must be
// private (a shared mapping's pages can be mapped again writable:
// shared_alias.cu and fork_alias.cu of the corpus), whatever else the
// flags hold; memory that is not executable may be shared.
func TestFilterMmapWriteExec(t *testing.T) {
	arch, err := auditArch()
	if err != nil {
		t.Skip(err)
	}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	for _, on := range []bool{true, false} {
		prog, err := filter{noWriteExec: on}.program()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			prot, flags uint64
			want        uint32 // with the rule on; off, every one is allowed
		}{
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_PRIVATE | unix.MAP_ANONYMOUS, allow},
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_PRIVATE | unix.MAP_FIXED | unix.MAP_DENYWRITE, allow}, // the loader's
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_PRIVATE | 0xffffffff00000000, allow},                  // flags are an int
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_SHARED | unix.MAP_ANONYMOUS, deny},
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_SHARED, deny},
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_SHARED_VALIDATE, deny},
			{unix.PROT_READ | unix.PROT_EXEC, unix.MAP_SHARED | unix.MAP_PRIVATE<<32, deny},
			{unix.PROT_EXEC, unix.MAP_SHARED | unix.MAP_ANONYMOUS, deny},
			{unix.PROT_READ | unix.PROT_WRITE | unix.PROT_EXEC, unix.MAP_PRIVATE | unix.MAP_ANONYMOUS, deny},
			{unix.PROT_READ | unix.PROT_WRITE, unix.MAP_SHARED | unix.MAP_ANONYMOUS, allow},
			{unix.PROT_READ, unix.MAP_SHARED, allow},
		} {
			want := c.want
			if !on {
				want = allow
			}
			got := runFilter(t, prog, arch, unix.SYS_MMAP, [6]uint64{0, 4096, c.prot, c.flags, ^uint64(0), 0})
			if got != want {
				t.Errorf("noWriteExec %v: mmap prot %#x flags %#x: %#x, want %#x", on, c.prot, c.flags, got, want)
			}
		}
	}
}
