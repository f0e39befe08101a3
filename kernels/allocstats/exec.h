// Included by kernels/allocstats.cu at file scope: one translation unit,
// one library (see the list of sections there).
// ---- Programs started by exec ----
//
// A program started by exec (in this process, or in a child by
// posix_spawn, pidfd_spawn, system or popen) has no channel: the descriptor is closed
// on exec and the key is gone from the environment, so its CUDA calls are
// not counted. They are counted here as execs. A forked child that execs
// ends its record first (execs 1, exited 0), so that the judge sees that
// it left by exec; the program's own process sends a snapshot, and its
// record is then cut short, as any program's that does not exit is.
namespace {
void execing(bool replaces) {
    if (busy() || chanFd < 0) return;   // the driver's helper, or a silent child
    std::lock_guard<Lock> g(mu);
    // A forked child that has made no CUDA call speaks now (record()
    // sends its start frame). A vfork's child is not this process (its pid
    // is not chanPid): the count goes into its parent's record, whose
    // memory it shares, and it is no unfollowed process (see record()),
    // unless a compiled program's run (noExec), where any exec fails it.
    execPath = !noExec;
    record();
    execPath = false;
    rec->execs++;
    if (!replaces) {
        pulse();
        return;
    }
    if (guard.parent_pid != 0) {
        leaks();
        countCopies();
        sendFrame(kFrameEnd);
    } else {
        sendFrame(kFrameSnapshot);
    }
}

// argsOf collects the arguments of execl and its kin, up to the null one.
std::vector<char*> argsOf(const char* first, va_list ap) {
    std::vector<char*> argv{const_cast<char*>(first)};
    while (first != nullptr && argv.size() < 4096) {
        char* a = va_arg(ap, char*);
        argv.push_back(a);
        if (a == nullptr) break;
    }
    if (argv.back() != nullptr) argv.push_back(nullptr);
    return argv;
}
}  // namespace

// Declared with plain types and named by asm labels: the C library's
// headers declare these with attributes of their own.
extern "C" int lessonsExecve(const char* path, char* const argv[], char* const envp[]) __asm__("execve");
extern "C" int lessonsExecve(const char* path, char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(const char*, char* const*, char* const*))realDlsym(RTLD_NEXT, "execve");
    execing(true);
    return fn(path, argv, envp);
}
extern "C" int lessonsExecv(const char* path, char* const argv[]) __asm__("execv");
extern "C" int lessonsExecv(const char* path, char* const argv[]) {
    static auto fn = (int (*)(const char*, char* const*))realDlsym(RTLD_NEXT, "execv");
    execing(true);
    return fn(path, argv);
}
extern "C" int lessonsExecvp(const char* file, char* const argv[]) __asm__("execvp");
extern "C" int lessonsExecvp(const char* file, char* const argv[]) {
    static auto fn = (int (*)(const char*, char* const*))realDlsym(RTLD_NEXT, "execvp");
    execing(true);
    return fn(file, argv);
}
extern "C" int lessonsExecvpe(const char* file, char* const argv[], char* const envp[]) __asm__("execvpe");
extern "C" int lessonsExecvpe(const char* file, char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(const char*, char* const*, char* const*))realDlsym(RTLD_NEXT, "execvpe");
    execing(true);
    return fn(file, argv, envp);
}
extern "C" int lessonsFexecve(int fd, char* const argv[], char* const envp[]) __asm__("fexecve");
extern "C" int lessonsFexecve(int fd, char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(int, char* const*, char* const*))realDlsym(RTLD_NEXT, "fexecve");
    execing(true);
    return fn(fd, argv, envp);
}
// execveat (glibc 2.34 on): the same exec by a descriptor and a path.
extern "C" int lessonsExecveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) __asm__("execveat");
extern "C" int lessonsExecveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) {
    static auto fn = (int (*)(int, const char*, char* const*, char* const*, int))realDlsym(RTLD_NEXT, "execveat");
    if (fn == nullptr) return -1;  // a C library without it (errno is not the library's to set: its import is a name more)
    execing(true);
    return fn(dirfd, path, argv, envp, flags);
}
extern "C" int lessonsExecl(const char* path, const char* arg, ...) __asm__("execl");
extern "C" int lessonsExecl(const char* path, const char* arg, ...) {
    static auto fn = (int (*)(const char*, char* const*))realDlsym(RTLD_NEXT, "execv");
    va_list ap;
    va_start(ap, arg);
    std::vector<char*> argv = argsOf(arg, ap);
    va_end(ap);
    execing(true);
    return fn(path, argv.data());
}
extern "C" int lessonsExeclp(const char* file, const char* arg, ...) __asm__("execlp");
extern "C" int lessonsExeclp(const char* file, const char* arg, ...) {
    static auto fn = (int (*)(const char*, char* const*))realDlsym(RTLD_NEXT, "execvp");
    va_list ap;
    va_start(ap, arg);
    std::vector<char*> argv = argsOf(arg, ap);
    va_end(ap);
    execing(true);
    return fn(file, argv.data());
}
extern "C" int lessonsExecle(const char* path, const char* arg, ...) __asm__("execle");
extern "C" int lessonsExecle(const char* path, const char* arg, ...) {
    static auto fn = (int (*)(const char*, char* const*, char* const*))realDlsym(RTLD_NEXT, "execve");
    va_list ap;
    va_start(ap, arg);
    std::vector<char*> argv = argsOf(arg, ap);
    char* const* envp = va_arg(ap, char* const*);
    va_end(ap);
    execing(true);
    return fn(path, argv.data(), envp);
}
extern "C" int lessonsSpawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                            char* const argv[], char* const envp[]) __asm__("posix_spawn");
extern "C" int lessonsSpawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                            char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const*, char* const*))
        realDlsym(RTLD_NEXT, "posix_spawn");
    execing(false);
    return fn(pid, path, fa, at, argv, envp);
}
extern "C" int lessonsSpawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                             char* const argv[], char* const envp[]) __asm__("posix_spawnp");
extern "C" int lessonsSpawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                             char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const*, char* const*))
        realDlsym(RTLD_NEXT, "posix_spawnp");
    execing(false);
    return fn(pid, file, fa, at, argv, envp);
}
// pidfd_spawn and pidfd_spawnp (glibc 2.39 on): posix_spawn's kin that
// answer with a pidfd. Where the C library has none, ENOSYS, as it would.
extern "C" int lessonsPidfdSpawn(int* pidfd, const char* path, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                                 char* const argv[], char* const envp[]) __asm__("pidfd_spawn");
extern "C" int lessonsPidfdSpawn(int* pidfd, const char* path, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                                 char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(int*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const*, char* const*))
        realDlsym(RTLD_NEXT, "pidfd_spawn");
    if (fn == nullptr) return ENOSYS;
    execing(false);
    return fn(pidfd, path, fa, at, argv, envp);
}
extern "C" int lessonsPidfdSpawnp(int* pidfd, const char* file, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                                  char* const argv[], char* const envp[]) __asm__("pidfd_spawnp");
extern "C" int lessonsPidfdSpawnp(int* pidfd, const char* file, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
                                  char* const argv[], char* const envp[]) {
    static auto fn = (int (*)(int*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const*, char* const*))
        realDlsym(RTLD_NEXT, "pidfd_spawnp");
    if (fn == nullptr) return ENOSYS;
    execing(false);
    return fn(pidfd, file, fa, at, argv, envp);
}
extern "C" int lessonsSystem(const char* command) __asm__("system");
extern "C" int lessonsSystem(const char* command) {
    static auto fn = (int (*)(const char*))realDlsym(RTLD_NEXT, "system");
    if (command != nullptr) execing(false);
    return fn(command);
}
extern "C" FILE* lessonsPopen(const char* command, const char* mode) __asm__("popen");
extern "C" FILE* lessonsPopen(const char* command, const char* mode) {
    static auto fn = (FILE * (*)(const char*, const char*)) realDlsym(RTLD_NEXT, "popen");
    execing(false);
    return fn(command, mode);
}
