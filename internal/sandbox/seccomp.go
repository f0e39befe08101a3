package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// filter says which system calls a sandboxed program is refused (EPERM),
// beyond what Landlock covers.
type filter struct {
	// unixSockets keeps a program from every Unix socket server where
	// Landlock cannot tell pathname sockets apart (before ABI 9): a
	// user's session bus, docker.sock. connect fails with ENOENT, whatever
	// the socket (the program has no network to connect to), and an
	// AF_UNIX datagram socket, which could send without connecting, is
	// never made. Stream sockets may still be made: the CUDA driver makes
	// one to look for an MPS server (/tmp/nvidia-mps/control), and stops
	// with "no CUDA-capable device" when socket fails, where a connect
	// that finds nothing (ENOENT) is what it sees on any machine without
	// MPS. socketpair stays: it reaches nothing.
	unixSockets bool
	// unixAll refuses every AF_UNIX socket instead (EPERM), for a
	// program that has the network, whose connects must go through.
	unixAll bool
	// trace refuses ptrace and process_vm_readv/writev: for a program
	// that shares a user with its observer (compute-sanitizer).
	trace bool
	// signals keeps a program that shares its user with the grader, with
	// no pid namespace or Landlock signal scope between them, to itself:
	// it may signal (kill, tgkill, tkill, rt_sigqueueinfo and
	// rt_tgsigqueueinfo, pidfd_open), set the limits (prlimit64) of, and
	// have SIGIO sent to (fcntl F_SETOWN; F_SETOWN_EX, FIOSETOWN and
	// SIOCSPGRP refused) its own process (self, or 0) and process group
	// (-self) alone, and send no signal through a pidfd (a /proc/PID
	// folder is one). The
	// grader, its parent, is of its user: kill(getppid(), SIGKILL) ended
	// the grade. A child it forks is bound by the same pid: it may not
	// signal itself by its own (abort then ends it by SIGSEGV).
	signals bool
	self    int
	// noWriteExec keeps a program from writing code after it starts:
	// mmap refuses memory both writable and executable, and executable
	// memory that is shared (a second mapping of its pages could write
	// them: shared_alias.cu and fork_alias.cu of the corpus), and mprotect and
	// pkey_mprotect refuse to make memory executable at all (the loader
	// maps code executable from the start; a page made executable later
	// was most often written first, and a filter cannot see what a page
	// was). So the program can neither patch the statistics library's
	// code nor the breakpoints an outside witness's uprobes put there
	// (nor map the runtime's file again where the kernel puts none: shared,
	// or writable first). Dropping them without a write (madvise's
	// MADV_DONTNEED, mremap's MREMAP_DONTUNMAP: madvise_probe.cu and
	// mremap_probe.cu of the corpus) is the statistics library's filter's
	// to refuse, in every judged run.
	// The other ways to code written after start are refused with it
	// (the known bypasses of a filter-based W^X, as systemd's
	// MemoryDenyWriteExecute and firejail's memory-deny-write-execute
	// list them): a memfd (written through one mapping or write(2), then
	// mapped executable), memfd_secret, userfaultfd (which fills pages
	// of a mapping that is executable and was never writable), System V
	// shared memory attached with SHM_EXEC, and personality's
	// READ_IMPLIES_EXEC (after which a readable mapping is executable
	// too, whatever mmap was asked), and prctl(PR_SET_DUMPABLE) but to
	// 0 (a process not dumpable has its /proc/PID/mem root's). Files the program writes are mapped
	// executable no more than these are: where the helper has a mount
	// namespace, its folder and /dev/shm are mounted noexec (owndir.go).
	noWriteExec bool
}

// readImpliesExec is personality(2)'s READ_IMPLIES_EXEC.
const readImpliesExec = 0x0400000

// mapType is mmap(2)'s MAP_TYPE: MAP_SHARED, MAP_PRIVATE or
// MAP_SHARED_VALIDATE.
const mapType = 0x0f

// shmExec is shmat(2)'s SHM_EXEC.
const shmExec = 0o100000

// ttyIoctls put bytes into a terminal's input (TIOCSTI, and TIOCLINUX's
// paste), take a terminal (TIOCSCTTY), redirect the console (TIOCCONS) or
// change a terminal's line discipline (TIOCSETD). A program has no
// terminal, and may not get one.
var ttyIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCSCTTY, unix.TIOCCONS, unix.TIOCSETD}

// uffdIocNew is /dev/userfaultfd's USERFAULTFD_IOC_NEW, _IO(0xAA, 0):
// a userfaultfd, as the system call makes one.
const uffdIocNew = 0xAA00

// ownerIoctls name who gets a socket's SIGIO and SIGURG, as F_SETOWN
// does (FIOSETOWN, SIOCSPGRP).
var ownerIoctls = []uint32{0x8901, 0x8902}

// auditArch is the AUDIT_ARCH of this binary's system calls; a program
// that makes calls of another (32-bit int 0x80 on x86-64) is killed.
func auditArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	}
	return 0, fmt.Errorf("no system call filter for %s", runtime.GOARCH)
}

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at 16+8i; the low 32 bits first (little-endian)
)

// program is the filter as classic BPF.
func (f filter) program() ([]unix.SockFilter, error) {
	arch, err := auditArch()
	if err != nil {
		return nil, err
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	kill := uint32(unix.SECCOMP_RET_KILL_PROCESS)

	// Built as labelled blocks; jumps are resolved at the end.
	type insn struct {
		code     uint16
		k        uint32
		jt, jf   string // labels; "" is the next instruction
		label    string
		retLabel bool
	}
	var p []insn
	add := func(i insn) { p = append(p, i) }
	add(insn{code: ld, k: offArch})
	add(insn{code: jeq, k: arch, jf: "kill"})
	add(insn{code: ld, k: offNr})
	if runtime.GOARCH == "amd64" {
		add(insn{code: jge, k: 0x40000000, jt: "deny"}) // x32's numbers
	}
	add(insn{code: jeq, k: unix.SYS_IOCTL, jt: "ioctl"})
	// clone3's CLONE_INTO_CGROUP starts a child in another cgroup, out
	// of the run's (and of the outside witness's count), with no write
	// to a cgroup file for Landlock to see (clone3_cgroup.cu of the
	// corpus, where the program keeps root). Answered as a kernel before
	// 5.3 answers it: glibc then starts threads and children by clone.
	add(insn{code: jeq, k: unix.SYS_CLONE3, jt: "nosys"})
	// io_uring makes sockets and connects without the calls below.
	add(insn{code: jeq, k: unix.SYS_IO_URING_SETUP, jt: "deny"})
	// The kernel's keyrings: a user's outlives the run (as root the
	// worker's user is the next student's), and no file rule reaches it.
	for _, nr := range []uint32{unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL} {
		add(insn{code: jeq, k: nr, jt: "deny"})
	}
	// Address families, by list, whatever Landlock's ABI: a network
	// namespace isolates IPv4, IPv6 and netlink's routes, Landlock the
	// Unix sockets; nothing isolates the others (vsock reaches a virtual
	// machine's host, netlink's audit, uevent, sock_diag and generic
	// families the host's kernel, AF_PACKET and AF_ALG the kernel's code).
	add(insn{code: jeq, k: unix.SYS_SOCKET, jt: "socket"})
	add(insn{code: jeq, k: unix.SYS_SOCKETPAIR, jt: "socketpair"})
	if f.unixSockets {
		add(insn{code: jeq, k: unix.SYS_CONNECT, jt: "noent"})
	}
	if f.trace {
		for _, nr := range []uint32{unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV} {
			add(insn{code: jeq, k: nr, jt: "deny"})
		}
	}
	if f.signals {
		for _, nr := range []uint32{unix.SYS_KILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_PRLIMIT64} {
			add(insn{code: jeq, k: nr, jt: "ownGroup"})
		}
		for _, nr := range []uint32{unix.SYS_TGKILL, unix.SYS_TKILL, unix.SYS_RT_TGSIGQUEUEINFO, unix.SYS_PIDFD_OPEN} {
			add(insn{code: jeq, k: nr, jt: "ownProcess"})
		}
		add(insn{code: jeq, k: unix.SYS_PIDFD_SEND_SIGNAL, jt: "deny"})
		add(insn{code: jeq, k: unix.SYS_FCNTL, jt: "fcntl"})
	}
	if f.noWriteExec {
		add(insn{code: jeq, k: unix.SYS_MMAP, jt: "mmap"})
		add(insn{code: jeq, k: unix.SYS_MPROTECT, jt: "mprotect"})
		add(insn{code: jeq, k: unix.SYS_PKEY_MPROTECT, jt: "mprotect"})
		for _, nr := range []uint32{unix.SYS_MEMFD_CREATE, unix.SYS_MEMFD_SECRET, unix.SYS_USERFAULTFD} {
			add(insn{code: jeq, k: nr, jt: "deny"})
		}
		add(insn{code: jeq, k: unix.SYS_SHMAT, jt: "shmat"})
		add(insn{code: jeq, k: unix.SYS_PERSONALITY, jt: "personality"})
		add(insn{code: jeq, k: unix.SYS_PRCTL, jt: "prctl"})
	}
	add(insn{code: ret, k: allow})
	if f.noWriteExec {
		// prot is an int: its low 32 bits are what the kernel reads.
		add(insn{code: ld, k: offArgs + 8*2, label: "mmap"})
		add(insn{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: unix.PROT_WRITE | unix.PROT_EXEC})
		add(insn{code: jeq, k: unix.PROT_WRITE | unix.PROT_EXEC, jt: "deny"})
		add(insn{code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, k: unix.PROT_EXEC, jf: "allow"})
		// Executable, so private: a shared mapping's pages can be
		// mapped a second time, writable (mremap with an old size of 0,
		// a forked child's view made writable by mprotect, /dev/zero's
		// or a file's pages mapped again), and written there. The flags
		// are an int; their type is the low four bits.
		add(insn{code: ld, k: offArgs + 8*3})
		add(insn{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: mapType})
		add(insn{code: jeq, k: unix.MAP_PRIVATE, jt: "allow", jf: "deny"})
		add(insn{code: ld, k: offArgs + 8*2, label: "mprotect"})
		add(insn{code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, k: unix.PROT_EXEC, jt: "deny"})
		add(insn{code: ret, k: allow})
		// shmflg is an int.
		add(insn{code: ld, k: offArgs + 8*2, label: "shmat"})
		add(insn{code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, k: shmExec, jt: "deny"})
		add(insn{code: ret, k: allow})
		// The persona is an unsigned int; 0xffffffff asks, changing nothing.
		add(insn{code: ld, k: offArgs + 8*0, label: "personality"})
		add(insn{code: jeq, k: 0xffffffff, jt: "allow"})
		add(insn{code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, k: readImpliesExec, jt: "deny"})
		add(insn{code: ret, k: allow})
		// A process made not dumpable (a binary its user cannot read,
		// or the statistics library's prctl) stays so: its /proc/PID/mem
		// is root's. The option and the value are ints.
		add(insn{code: ld, k: offArgs + 8*0, label: "prctl"})
		add(insn{code: jeq, k: unix.PR_SET_DUMPABLE, jf: "allow"})
		add(insn{code: ld, k: offArgs + 8*1})
		add(insn{code: jeq, k: 0, jt: "allow", jf: "deny"})
	}
	if f.signals {
		// A pid is an int: its low 32 bits are what the kernel reads.
		self := uint32(int32(f.self))
		add(insn{code: ld, k: offArgs + 8*0, label: "ownGroup"})
		add(insn{code: jeq, k: 0, jt: "sigAllow"})
		add(insn{code: jeq, k: uint32(-int32(f.self)), jt: "sigAllow"})
		add(insn{code: ld, k: offArgs + 8*0, label: "ownProcess"})
		add(insn{code: jeq, k: self, jt: "sigAllow"})
		add(insn{code: ret, k: deny})
		// F_SETOWN names who gets SIGIO (or F_SETSIG's signal, SIGKILL
		// if it likes) when a descriptor is ready; F_SETOWN_EX does as
		// much through a struct the filter cannot read.
		add(insn{code: ld, k: offArgs + 8*1, label: "fcntl"})
		add(insn{code: jeq, k: unix.F_SETOWN_EX, jt: "deny"})
		add(insn{code: jeq, k: unix.F_SETOWN, jf: "sigAllow"})
		add(insn{code: ld, k: offArgs + 8*2})
		add(insn{code: jeq, k: 0, jt: "sigAllow"})
		add(insn{code: jeq, k: self, jt: "sigAllow"})
		add(insn{code: jeq, k: uint32(-int32(f.self)), jt: "sigAllow"})
		add(insn{code: ret, k: deny})
		add(insn{code: ret, k: allow, label: "sigAllow"})
	}
	// ioctl's request is an unsigned int: its low 32 bits are what the
	// kernel reads, whatever the high ones hold.
	add(insn{code: ld, k: offArgs + 8*1, label: "ioctl"})
	reqs := ttyIoctls
	if f.signals {
		reqs = append(slices.Clip(reqs), ownerIoctls...)
	}
	if f.noWriteExec {
		// /dev/userfaultfd's way to a userfaultfd, refused as the
		// system call is (Landlock keeps the device out of reach too).
		reqs = append(slices.Clip(reqs), uffdIocNew)
	}
	for _, req := range reqs {
		add(insn{code: jeq, k: req, jt: "deny"})
	}
	add(insn{code: ret, k: allow})
	// A family is an int, a protocol too: the low 32 bits.
	noFamily := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT))
	add(insn{code: ld, k: offArgs + 8*0, label: "socket"})
	add(insn{code: jeq, k: unix.AF_INET, jt: "allow"})
	add(insn{code: jeq, k: unix.AF_INET6, jt: "allow"})
	add(insn{code: jeq, k: unix.AF_NETLINK, jt: "netlink"})
	add(insn{code: jeq, k: unix.AF_UNIX, jf: "noFamily"})
	if f.unixAll {
		add(insn{code: ret, k: deny})
	}
	if f.unixSockets {
		// The type's low bits; SOCK_NONBLOCK and SOCK_CLOEXEC above them.
		add(insn{code: ld, k: offArgs + 8*1})
		add(insn{code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, k: 0xf})
		add(insn{code: jeq, k: unix.SOCK_DGRAM, jt: "deny"})
	}
	add(insn{code: ret, k: allow, label: "allow"})
	// Netlink's routing family alone: what getaddrinfo asks, and what a
	// network namespace answers for itself.
	add(insn{code: ld, k: offArgs + 8*2, label: "netlink"})
	add(insn{code: jeq, k: unix.NETLINK_ROUTE, jf: "noProtocol"})
	add(insn{code: ret, k: allow})
	// A pair reaches nothing, in the Unix family only.
	add(insn{code: ld, k: offArgs + 8*0, label: "socketpair"})
	add(insn{code: jeq, k: unix.AF_UNIX, jf: "noFamily"})
	add(insn{code: ret, k: allow})
	add(insn{code: ret, k: noFamily, label: "noFamily"})
	add(insn{code: ret, k: uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)), label: "noProtocol"})
	add(insn{code: ret, k: uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOENT)), label: "noent"})
	add(insn{code: ret, k: uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)), label: "nosys"})
	add(insn{code: ret, k: deny, label: "deny"})
	add(insn{code: ret, k: kill, label: "kill"})

	at := map[string]int{}
	for i, in := range p {
		if in.label != "" {
			at[in.label] = i
		}
	}
	out := make([]unix.SockFilter, len(p))
	for i, in := range p {
		s := unix.SockFilter{Code: in.code, K: in.k}
		for _, j := range []struct {
			label string
			to    *uint8
		}{{in.jt, &s.Jt}, {in.jf, &s.Jf}} {
			if j.label == "" {
				continue
			}
			off := at[j.label] - i - 1
			if off < 0 || off > 255 {
				return nil, errors.New("seccomp: a jump out of reach")
			}
			*j.to = uint8(off)
		}
		out[i] = s
	}
	return out, nil
}

// install applies the filter to every thread of this process (and so to
// the program it becomes). It needs no_new_privs, which it sets.
func (f filter) install() error {
	prog, err := f.program()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: installing the filter: %w", errno)
	}
	return nil
}
