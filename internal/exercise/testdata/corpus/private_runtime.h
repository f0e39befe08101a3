// What the forgers of a private runtime share (dlmopen_unload.cu,
// maps_unread.cu): a private copy of the CUDA runtime in a link namespace
// of its own, its functions found in its own symbol table (GNU hash), and
// the loader's list of namespaces cut to the first; and the cudaMalloc of
// the runtime already loaded (loadedMalloc); a copy of the runtime's file
// (copyOf) and the loader's own mmap (findLoader).
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

typedef cudaError_t (*MallocFn)(void**, size_t);

static void* privateRuntime(void) {
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"};
    for (const char* n : names) {
        void* h = dlmopen(LM_ID_NEWLM, n, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL) return h;
    }
    return NULL;
}

static uint32_t gnuHash(const char* s) {
    uint32_t h = 5381;
    for (; *s; s++) h = h * 33 + (unsigned char)*s;
    return h;
}

static void* privateSymbol(void* h, const char* name) {
    struct link_map* lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) return NULL;
    const ElfW(Sym)* syms = NULL;
    const char* strs = NULL;
    const uint32_t* gh = NULL;
    for (const ElfW(Dyn)* d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB) syms = (const ElfW(Sym)*)d->d_un.d_ptr;
        if (d->d_tag == DT_STRTAB) strs = (const char*)d->d_un.d_ptr;
        if (d->d_tag == DT_GNU_HASH) gh = (const uint32_t*)d->d_un.d_ptr;
    }
    if (syms == NULL || strs == NULL || gh == NULL) return NULL;
    uint32_t nb = gh[0], symoff = gh[1], bloom = gh[2];
    const uint32_t* buckets = gh + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
    const uint32_t* chain = buckets + nb;
    uint32_t hv = gnuHash(name);
    uint32_t i = buckets[hv % nb];
    if (i < symoff) return NULL;
    for (;; i++) {
        uint32_t c = chain[i - symoff];
        if ((c | 1) == (hv | 1) && strcmp(strs + syms[i].st_name, name) == 0 && syms[i].st_value != 0)
            return (void*)(lm->l_addr + syms[i].st_value);
        if (c & 1) return NULL;
    }
}

// loadedMalloc is the cudaMalloc of the runtime the program already has
// loaded, found in that runtime's own symbol table (past the statistics
// library's hook of dlsym), or NULL: what the forgers that take the
// witness's probes away call a hundred times.
static MallocFn loadedMalloc(void) {
    void* h = NULL;
    const char* names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"};
    for (const char* n : names)
        if (h == NULL) h = dlopen(n, RTLD_NOW | RTLD_NOLOAD);
    return h != NULL ? (MallocFn)privateSymbol(h, "cudaMalloc") : NULL;
}

// What the forgers that map a copy of the runtime's file share
// (overlay_copy.cu, loader_mmap.cu, ../corpus-open/moved_copy.cu): the
// copy, in a memfd or a file of a folder, and the loader's own mmap.
static char copyPath[2][600];

// copyOf writes the file at path into a memfd or a file of dir's.
static int copyOf(const char* path, const char* dir, int k) {
    int in = open(path, O_RDONLY);
    if (in < 0) return -1;
    struct stat st;
    fstat(in, &st);
    int out;
    if (dir == NULL) {
        out = memfd_create("copy", 0);
        copyPath[k][0] = 0;
    } else {
        snprintf(copyPath[k], sizeof copyPath[k], "%s/.copy%d-%d", dir, k, (int)getpid());
        out = open(copyPath[k], O_RDWR | O_CREAT | O_TRUNC, 0700);
    }
    if (out >= 0) {
        off_t o = 0;
        while (o < st.st_size && sendfile(out, in, &o, st.st_size - o) > 0) {
        }
        if (o != st.st_size) {
            close(out);
            out = -1;
        }
    }
    close(in);
    return out;
}

// The CUDA runtime as loaded (its program headers and its file's path),
// for the forgers that move a copy of it (moved_copy.cu, moved_copy_tmp.cu,
// moved_self.cu): found by dl_iterate_phdr(findRuntime, NULL).
static struct dl_phdr_info rt;
static char rtPath[512];

static int findRuntime(struct dl_phdr_info* info, size_t, void*) {
    const char* b = strrchr(info->dlpi_name, '/');
    if (b == NULL || strncmp(b + 1, "libcudart", 9) != 0) return 0;
    rt = *info;
    snprintf(rtPath, sizeof rtPath, "%s", info->dlpi_name);
    return 1;
}

// runtimeSpan is the span [lo, hi) of rt's loaded segments, rounded out to
// pages: the room a moved copy needs.
static void runtimeSpan(uintptr_t page, uintptr_t* lo, uintptr_t* hi) {
    *lo = ~(uintptr_t)0, *hi = 0;
    for (int i = 0; i < rt.dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &rt.dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if ((ph->p_vaddr & ~(page - 1)) < *lo) *lo = ph->p_vaddr & ~(page - 1);
        if (((ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1)) > *hi) *hi = (ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);
    }
}

typedef void* (*MmapFn)(void*, size_t, int, int, int, off_t);
static MmapFn loaderMmap;

// findLoaderMmap looks for the loader's mmap in its executable segment.
static int findLoader(struct dl_phdr_info* info, size_t, void*) {
    if (info->dlpi_addr != getauxval(AT_BASE)) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        const unsigned char* c = (const unsigned char*)(info->dlpi_addr + ph->p_vaddr);
        static const unsigned char body[] = {0xb8, 0x09, 0x00, 0x00, 0x00, 0x0f, 0x05};
        for (size_t k = 32; loaderMmap == NULL && k + sizeof body < ph->p_memsz; k++) {
            if (memcmp(c + k, body, sizeof body) != 0) continue;
            for (size_t b = 3; b < 32; b++)  // mov %ecx,%r10d (41 89 ca) or mov %rcx,%r10 (49 89 ca)
                if ((c[k - b] == 0x41 || c[k - b] == 0x49) && c[k - b + 1] == 0x89 && c[k - b + 2] == 0xca) {
                    loaderMmap = (MmapFn)(c + k - b);
                    break;
                }
        }
    }
    return 1;
}

// The loader's list of namespaces, as a debugger reads it (glibc 2.35:
// struct r_debug_extended): the first namespace's r_next cut.
struct DebugExtended { struct r_debug base; struct DebugExtended* r_next; };

static void hideNamespaces(void) {
    extern ElfW(Dyn) _DYNAMIC[];
    for (ElfW(Dyn)* d = _DYNAMIC; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_DEBUG && d->d_un.d_ptr != 0) {
            struct DebugExtended* r = (struct DebugExtended*)d->d_un.d_ptr;
            if (r->base.r_version >= 2) r->r_next = NULL;
        }
}
