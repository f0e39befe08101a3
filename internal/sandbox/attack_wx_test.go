package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// retCode is x86-64's `mov eax, 42; ret`: what each way below tries to
// make executable after the program started.
var retCode = []byte{0xb8, 42, 0, 0, 0, 0xc3}

// wxBypass tries the known ways around a filter-based W^X (systemd's
// MemoryDenyWriteExecute and firejail's list them; so do public
// write-ups of anti-cheat and judge escapes), each printed as
// "NAME: <nil>" when the code was written and mapped executable (or the
// write went through), else with the error that stopped it.
func wxBypass() {
	try := func(name string, f func() error) { fmt.Printf("%s: %v\n", name, f()) }
	// A file it writes, mapped executable (dlopen does as much).
	mapFile := func(path string) error {
		if err := os.WriteFile(path, retCode, 0o755); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		fd, err := unix.Open(path, unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		_, err = unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_PRIVATE)
		return err
	}
	cwd, _ := os.Getwd()
	try("file mmap x", func() error { return mapFile(filepath.Join(cwd, "code.bin")) })
	try("shm file mmap x", func() error { return mapFile("/dev/shm/code.bin") })
	// A program it writes, started.
	try("execve written", func() error {
		self, err := os.ReadFile("/bin/true")
		if err != nil {
			return fmt.Errorf("reading a program: %w", err)
		}
		path := filepath.Join(cwd, "mine")
		if err := os.WriteFile(path, self, 0o755); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		return exec.Command(path).Run()
	})
	// A memfd: written, then mapped executable.
	try("memfd", func() error {
		fd, _, errno := unix.Syscall(unix.SYS_MEMFD_CREATE, uintptr(unsafe.Pointer(&[]byte("x\x00")[0])), 0, 0)
		if errno != 0 {
			return errno
		}
		defer unix.Close(int(fd))
		unix.Write(int(fd), retCode)
		_, err := unix.Mmap(int(fd), 0, 4096, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_SHARED)
		return err
	})
	try("memfd_secret", func() error {
		fd, _, errno := unix.Syscall(unix.SYS_MEMFD_SECRET, 0, 0, 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	})
	// userfaultfd fills pages of a mapping that was never writable.
	try("userfaultfd", func() error {
		fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC, 0, 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	})
	// System V shared memory attached executable, written through a
	// second attachment.
	try("shmat exec", func() error {
		id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o700)
		if err != nil {
			return err
		}
		defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		addr, _, errno := unix.Syscall(unix.SYS_SHMAT, uintptr(id), 0, shmExec)
		if errno != 0 {
			return errno
		}
		unix.Syscall(unix.SYS_SHMDT, addr, 0, 0)
		return nil
	})
	// READ_IMPLIES_EXEC: every readable mapping executable too.
	try("personality", func() error {
		old, _, errno := unix.Syscall(unix.SYS_PERSONALITY, readImpliesExec, 0, 0)
		if errno != 0 {
			return errno
		}
		unix.Syscall(unix.SYS_PERSONALITY, old, 0, 0)
		return nil
	})
	// Two mappings of one shared page: executable and never writable,
	// then a second mapping of it (mremap with an old size of 0, or a
	// forked child's view) made writable and written.
	sharedX := func(flags int) ([]byte, error) {
		return unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_EXEC, flags)
	}
	try("shared alias", func() error {
		x, err := sharedX(unix.MAP_SHARED | unix.MAP_ANONYMOUS)
		if err != nil {
			return err
		}
		defer unix.Munmap(x)
		p, err := unix.MremapPtr(unsafe.Pointer(&x[0]), 0, nil, 4096, unix.MREMAP_MAYMOVE)
		if err != nil {
			return fmt.Errorf("mremap: %w", err)
		}
		w := unsafe.Slice((*byte)(p), 4096)
		defer unix.Munmap(w)
		if err := unix.Mprotect(w, unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return fmt.Errorf("mprotect: %w", err)
		}
		copy(w, retCode)
		if x[0] != retCode[0] {
			return fmt.Errorf("the write did not reach the executable mapping")
		}
		return nil
	})
	try("dev zero alias", func() error {
		fd, err := unix.Open("/dev/zero", unix.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		x, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_EXEC, unix.MAP_SHARED)
		if err != nil {
			return err
		}
		return unix.Munmap(x)
	})
	// Made dumpable again: its /proc/PID/mem its own user's.
	try("dumpable", func() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0) })
	// /proc/self/mem writes through a page's protection (FOLL_FORCE):
	// the byte already there is written back into its own code.
	try("proc self mem", func() error { return pokeText("self", os.Getpid()) })
	// And a child's, forked (as a CUDA program forks for IPC).
	try("proc child mem", func() error {
		cmd := exec.Command("/proc/self/exe")
		cmd.Env = []string{"SANDBOX_TEST_MODE=sleep"}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("no child: %w", err)
		}
		defer cmd.Process.Kill()
		for i := 0; i < 100; i++ {
			// Until it runs this binary (its exec done).
			if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid)); err == nil && exe == selfExe() {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		return pokeText("child", cmd.Process.Pid)
	})
}

func selfExe() string {
	exe, _ := os.Readlink("/proc/self/exe")
	return exe
}

// pokeText writes, through /proc/PID/mem, the first byte of pid's
// executable code back where it is.
func pokeText(who string, pid int) error {
	maps, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return fmt.Errorf("%s's maps: %w", who, err)
	}
	defer maps.Close()
	var addr uint64
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && strings.HasPrefix(f[1], "r-x") {
			start, _, _ := strings.Cut(f[0], "-")
			addr, _ = strconv.ParseUint(start, 16, 64)
			break
		}
	}
	if addr == 0 {
		return fmt.Errorf("%s has no code mapping", who)
	}
	mem, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	b := make([]byte, 1)
	if _, err := mem.ReadAt(b, int64(addr)); err != nil {
		return fmt.Errorf("reading: %w", err)
	}
	_, err = mem.WriteAt(b, int64(addr))
	return err
}

// TestAttackWriteExecBypasses: with NoWriteExec, none of the known ways
// around the rule writes code the program then runs: as root with a user
// of its own per run, and under a grader that is not root (its pid and
// mount namespace). Without the rule they work (the test's own check
// that each attempt can succeed).
func TestAttackWriteExecBypasses(t *testing.T) {
	all := []string{"file mmap x", "shm file mmap x", "execve written", "memfd", "memfd_secret", "userfaultfd",
		"shmat exec", "personality", "dumpable", "proc self mem", "proc child mem", "shared alias", "dev zero alias"}
	for _, v := range variants {
		if v.programRoot {
			continue // root's own /proc/PID/mem is root's: see docs/security.md
		}
		t.Run(v.name, func(t *testing.T) {
			f := setup(t)
			if v.grader {
				f.needUserPIDNS(t)
			}
			f.variant(t, v.programRoot)
			f.pol.DirFiles, f.pol.DirBytes = 64, 64<<20
			f.pol.NoWriteExec = true
			// The program in the run's folder, where the grader puts a
			// student's.
			data, err := os.ReadFile(f.self)
			if err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(f.dir, "prog")
			if err := os.WriteFile(prog, data, 0o755); err != nil {
				t.Fatal(err)
			}
			req := graderRequest{Policy: f.policyFor(t, v.grader), Self: f.self, Prog: prog, Mode: "wxbypass"}
			req.Policy.NoWriteExec = false
			out := f.grader(t, v.grader, nil, req)
			for _, name := range []string{"file mmap x", "execve written", "memfd", "shmat exec", "personality", "proc self mem", "shared alias"} {
				if !strings.HasSuffix(lineOf(out, name+": "), ": <nil>") {
					t.Errorf("without NoWriteExec, %s should work here:\n%s", name, out)
				}
			}
			req.Policy.NoWriteExec = true
			out = f.grader(t, v.grader, nil, req)
			for _, name := range all {
				line := lineOf(out, name+": ")
				if line == "" {
					t.Errorf("no %q in:\n%s", name, out)
					continue
				}
				if strings.HasSuffix(line, ": <nil>") {
					t.Errorf("%s went through:\n%s", name, out)
				}
			}
			t.Logf("%s", out)
		})
	}
}

// lineOf is the first line of out that starts with prefix.
func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
