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

// Round 16's ways round the outside witness, as the sandbox's own filter
// answers them: clone3 with ENOSYS always (its CLONE_INTO_CGROUP starts a
// child in another cgroup: clone3_cgroup.cu), clone itself allowed;
// /dev/userfaultfd's USERFAULTFD_IOC_NEW (its low 32 bits, whatever the
// high ones hold) refused with the write-exec rule, as userfaultfd is;
// ptrace and process_vm_writev refused for a program without a tool
// above it.
func TestFilterRound16(t *testing.T) {
	arch, err := auditArch()
	if err != nil {
		t.Skip(err)
	}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	nosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	for _, f := range []filter{{}, {noWriteExec: true, trace: true}} {
		prog, err := f.program()
		if err != nil {
			t.Fatal(err)
		}
		on := func(v bool, yes, no uint32) uint32 {
			if v {
				return yes
			}
			return no
		}
		for _, c := range []struct {
			name string
			nr   uint32
			args [6]uint64
			want uint32
		}{
			{"clone3", unix.SYS_CLONE3, [6]uint64{}, nosys},
			{"clone", unix.SYS_CLONE, [6]uint64{uint64(unix.SIGCHLD)}, allow},
			{"USERFAULTFD_IOC_NEW", unix.SYS_IOCTL, [6]uint64{3, uffdIocNew}, on(f.noWriteExec, deny, allow)},
			{"USERFAULTFD_IOC_NEW, high bits", unix.SYS_IOCTL, [6]uint64{3, 1<<32 | uffdIocNew}, on(f.noWriteExec, deny, allow)},
			{"TCGETS", unix.SYS_IOCTL, [6]uint64{3, unix.TCGETS}, allow},
			{"userfaultfd", unix.SYS_USERFAULTFD, [6]uint64{}, on(f.noWriteExec, deny, allow)},
			{"ptrace", unix.SYS_PTRACE, [6]uint64{}, on(f.trace, deny, allow)},
			{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV, [6]uint64{}, on(f.trace, deny, allow)},
		} {
			if got := runFilter(t, prog, arch, c.nr, c.args); got != c.want {
				t.Errorf("%+v: %s: %#x, want %#x", f, c.name, got, c.want)
			}
		}
	}
}
