// A judged run's system call filter (kernels/fail_test.go): the program
// may install no filter of its own, by seccomp or by prctl, nor turn on
// syscall user dispatch (prctl 59; turning it off is asked here, which
// succeeds where not judged), nor handle SIGTRAP (asking its handler
// stays allowed) nor open a perf event (a null one: EFAULT where not
// judged), and may not exec (a path that is not there:
// refused, not missing); other calls (a pipe, a prctl of another kind) go
// through. Round 16's ways round the witness are refused too: userfaultfd
// (the system call, and the ioctl USERFAULTFD_IOC_NEW of /dev/userfaultfd,
// by its low 32 bits whatever the high ones hold: on no descriptor, EBADF
// where not judged), ptrace (a peek at a process not traced: ESRCH where
// not judged), process_vm_writev and process_vm_readv (of nothing, in the
// process itself: 0 where not judged) with EPERM, and clone3 with ENOSYS
// (a size of 0: EINVAL where not judged); a thread (glibc tries clone3 and
// falls back to clone) and a forked child still start. Round 17's:
// madvise's MADV_DONTNEED, MADV_DONTNEED_LOCKED and MADV_GUARD_INSTALL
// (every advice from 24 on; of an anonymous page of its own: 0 where not
// judged), process_madvise (MADV_COLD of that page, on its own pidfd: the
// page's size where not judged), mremap's MREMAP_DONTUNMAP and
// io_uring_setup (whose IORING_OP_MADVISE no filter sees) with EPERM,
// while another advice (MADV_WILLNEED) and a plain mremap go through. With
// LESSONS_STATS_NOWX=1, the write-exec rule: memory writable and
// executable, executable and shared, made executable later (mprotect)
// and personality's READ_IMPLIES_EXEC refused (EPERM), and asking the
// persona goes through; a file's code mapped private and executable goes
// through where the loader maps it (dlopen of a library not yet loaded),
// and not from the program's own mmap (round 18: a copy of the runtime
// mapped over its code ran unprobed). Without the rule, both go through.
// /proc/self/mem opens for writing with the rule as without it (a rule
// against it left the CUDA driver 580 unable to name its threads through
// /proc/self/task/TID/comm: every solution failed), /proc is read and
// another file (/dev/null) written; and with the rule the
// runtime's code is sealed (mseal, where the kernel has it): an mremap of
// it in place, which changes nothing, is refused (EPERM).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <signal.h>
#include <string.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
int cudaFree(void*);
static const char* why(long r, int e) { return r == 0 ? "" : e == EACCES ? "EACCES" : e == EPERM ? "EPERM" : e == ENOSYS ? "ENOSYS" : e == EBADF ? "EBADF" : e == ESRCH ? "ESRCH" : e == EINVAL ? "EINVAL" : "other"; }
static void* thread(void* arg) { return arg; }
// cudartCode finds the (stand-in) runtime's executable segment.
static void* codeAt;
static size_t codeLen;
static int cudartCode(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size, (void)data;
  if (strstr(info->dlpi_name, "libcudart") == NULL) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
      uintptr_t a = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr) & ~(uintptr_t)4095;
      codeAt = (void*)a;
      codeLen = ((info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz + 4095) & ~(uintptr_t)4095) - a;
    }
  return 1;
}
int main() {
  struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  struct sock_fprog prog = {1, f};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  long a = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
  int ea = errno;
  long b = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  int eb = errno;
  char* argv[] = {"/nonexistent", NULL};
  long c = syscall(SYS_execve, "/nonexistent", argv, NULL);
  int ec = errno;
  int fds[2];
  long d = pipe(fds);
  long e = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  long g = prctl(59, 0, 0, 0, 0);
  int eg = errno;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  long h = sigaction(SIGTRAP, &sa, NULL);
  int eh = errno;
  long q = sigaction(SIGTRAP, NULL, &old);
  long p = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
  int ep = errno;
  printf("seccomp %ld %s, prctl %ld %s, execve %ld %s, pipe %ld, dumpable %ld, dispatch %ld %s, trap %ld %s, trap asked %ld, perf %ld %s\n", a,
         ea == EPERM ? "EPERM" : "other", b, eb == EPERM ? "EPERM" : "other", c, ec == EPERM ? "EPERM" : "other", d, e, g,
         g == 0 ? "" : eg == EPERM ? "EPERM" : "other", h, h == 0 ? "" : eh == EPERM ? "EPERM" : "other", q, p, ep == EPERM ? "EPERM" : "other");
  errno = 0;
  long u = syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */ | O_CLOEXEC);
  int eu = errno;
  if (u >= 0) close((int)u), u = 0;
  long un = syscall(SYS_ioctl, -1, 0xAA00UL);
  int eun = errno;
  long unh = syscall(SYS_ioctl, -1, 0x10000AA00UL);
  int eunh = errno;
  long other = syscall(SYS_ioctl, -1, 0x5401UL /* TCGETS */);
  int eother = errno;
  long t = ptrace(PTRACE_PEEKDATA, 1, NULL, NULL);
  int et = errno;
  long w = process_vm_writev(getpid(), NULL, 0, NULL, 0, 0);
  int ew = errno;
  long r = process_vm_readv(getpid(), NULL, 0, NULL, 0, 0);
  int er = errno;
  long c3 = syscall(435 /* clone3 */, NULL, 0);
  int ec3 = errno;
  pthread_t th;
  void* back = NULL;
  int tc = pthread_create(&th, NULL, thread, (void*)"thread");
  if (tc == 0) pthread_join(th, &back);
  pid_t child = fork();
  if (child == 0) _exit(7);
  int st = 0;
  if (child > 0) waitpid(child, &st, 0);
  printf("userfaultfd %ld %s, ioctl new %ld %s, high %ld %s, tcgets %ld %s, ptrace %ld %s, writev %ld %s, readv %ld %s, clone3 %ld %s, thread %s, fork %d\n",
         u, why(u, eu), un, why(un, eun), unh, why(unh, eunh), other, why(other, eother), t, why(t, et), w, why(w, ew), r, why(r, er), c3, why(c3, ec3),
         tc == 0 && back != NULL ? "ok" : "failed", child > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  page[0] = 1;
  errno = 0;
  long md = madvise(page, 4096, MADV_DONTNEED);
  int emd = errno;
  long ml = madvise(page, 4096, 24 /* MADV_DONTNEED_LOCKED */);
  int eml = errno;
  long mw = madvise(page, 4096, MADV_WILLNEED);
  int emw = errno;
  long self = syscall(434 /* pidfd_open */, getpid(), 0);
  struct iovec v = {page, 4096};
  long pm = syscall(440 /* process_madvise */, self, &v, 1, 20 /* MADV_COLD */, 0);
  int epm = errno;
  errno = 0;
  char* moved = mremap(page, 4096, 4096, MREMAP_MAYMOVE | 4 /* MREMAP_DONTUNMAP */, NULL);
  long mu = moved == MAP_FAILED ? -1 : 0;
  int emu = errno;
  char* grown = mremap(page, 4096, 8192, MREMAP_MAYMOVE);
  char params[120] = {0};  // struct io_uring_params
  errno = 0;
  long ring = syscall(425 /* io_uring_setup */, 1, params);
  int ering = errno;
  if (ring >= 0) close((int)ring), ring = 0;
  errno = 0;
  long guard = madvise(page, 4096, 102 /* MADV_GUARD_INSTALL */);
  int eguard = errno;
  printf("madvise dontneed %ld %s, locked %ld %s, willneed %ld %s, process_madvise %ld %s, dontunmap %ld %s, mremap %s, io_uring %ld %s, guard %ld %s\n", md,
         why(md, emd), ml, why(ml, eml), mw, why(mw, emw), pm, pm >= 0 ? "" : why(pm, epm), mu, why(mu, emu), grown != MAP_FAILED ? "ok" : "failed", ring,
         why(ring, ering), guard, why(guard, eguard));
  page = grown != MAP_FAILED ? grown : page;
  errno = 0;
  long rwx = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? -1 : 0;
  int erwx = errno;
  long sx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? -1 : 0;
  int esx = errno;
  long mx = mprotect(page, 4096, PROT_READ | PROT_EXEC);
  int emx = errno;
  int self_exe = open("/proc/self/exe", O_RDONLY);
  long px = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, self_exe, 0) == MAP_FAILED ? -1 : 0;
  int epx = errno;
  void* loaded = dlopen("libresolv.so.2", RTLD_NOW | RTLD_LOCAL);
  long asked = personality(0xffffffff);
  long ri = personality(READ_IMPLIES_EXEC) == -1 ? -1 : 0;
  int eri = errno;
  personality(asked);
  printf("rwx %ld %s, shared exec %ld %s, mprotect exec %ld %s, read implies exec %ld %s, private exec %ld %s, dlopen %s, persona asked %s\n", rwx, why(rwx, erwx), sx,
         why(sx, esx), mx, why(mx, emx), ri, why(ri, eri), px, why(px, epx), loaded != NULL ? "ok" : "failed", asked != -1 ? "ok" : "failed");
  errno = 0;
  int mem = open("/proc/self/mem", O_RDWR);
  long pm2 = mem >= 0 ? 0 : -1;
  int epm2 = errno;
  if (mem >= 0) close(mem);
  int tmp = open("/proc/self/status", O_RDONLY);
  int dn = open("/dev/null", O_WRONLY);
  printf("proc mem %ld %s, proc read %s, dev write %s\n", pm2, why(pm2, epm2), tmp >= 0 ? "ok" : "failed", dn >= 0 ? "ok" : "failed");
  dl_iterate_phdr(cudartCode, NULL);
  errno = 0;
  long sealed = codeAt != NULL && mremap(codeAt, codeLen, codeLen, 0) == codeAt ? 0 : -1;
  int esealed = errno;
  printf("runtime code moved in place %ld %s\n", sealed, why(sealed, esealed));
  cudaFree(NULL);
  return 0;
}
