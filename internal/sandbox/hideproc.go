package sandbox

// Under a root grader each run is a user of its own, but the host's /proc
// still showed it every process of the machine: a classmate's run's
// command line holds the hidden run's arguments that the spec keeps from
// students (and a program ran beside it for seconds, 16 to a GPU). So the
// helper starts in a mount namespace of its own, with CAP_SYS_ADMIN kept
// across its exec, mounts a /proc there that shows each user its own
// processes alone (hidepid=2: the processes of other users are not
// listed, nor can their entries be opened), and drops every capability
// before anything else. The pid namespace stays the grader's, so the
// pids the driver reports (the NVML cross-check) are the ones the grader
// knows, and the program's own /proc entries are there as before.

import (
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// envHideProcTry makes Helper try what hideProc does and exit: 0 when
// it could.
const envHideProcTry = "LESSONS_SANDBOX_HIDEPROC_TRY"

// withHiddenProc starts the helper in a mount namespace of its own, with
// CAP_SYS_ADMIN as an ambient capability, for hideProc.
func withHiddenProc(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWNS
	a.AmbientCaps = append(a.AmbientCaps, unix.CAP_SYS_ADMIN)
}

// hideProc mounts the /proc of a run whose user is its own (and its
// folder's file system and /dev, where p says so), and its /dev/shm (shm
// says whether it could), then drops every capability.
func hideProc(p Policy) (shm bool, err error) {
	if err := mountProc("hidepid=2"); err != nil {
		return false, err
	}
	if err := ownMounts(p); err != nil {
		return false, err
	}
	// After the run's own /dev: mounted on the shm folder bound there.
	shm = mountShm()
	return shm, dropCaps()
}

// canHideProc reports whether a helper started as uid:gid may mount its
// /proc (a container may refuse mount namespaces or mounts even to
// root); tried once per process. Where it may not, runs see the host's
// /proc as before.
func canHideProc(self string, uid, gid int) bool {
	hideOnce.Do(func() {
		cmd := exec.Command(self)
		cmd.Env = []string{envHideProcTry + "=1"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
		withHiddenProc(cmd.SysProcAttr)
		hideOn = cmd.Run() == nil
	})
	return hideOn
}

var (
	hideOnce sync.Once
	hideOn   bool
)
