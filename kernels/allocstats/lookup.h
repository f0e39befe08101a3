// Included by kernels/allocstats.cu inside its anonymous namespace: one
// translation unit, one library (see the list of sections there).
// ---- Looking symbols up without our own dlsym ----
//
// The library defines dlsym and dlvsym (so that a program's look-up of a
// hooked name finds the hook): its own look-ups must reach glibc's, found
// in libc's (or, before glibc 2.34, libdl's) dynamic symbol table.

struct Lookup { const char* lib; const char* name; void* addr; };

int lookupIn(struct dl_phdr_info* info, size_t, void* data) {
    Lookup* q = (Lookup*)data;
    if (info->dlpi_name == nullptr || strstr(info->dlpi_name, q->lib) == nullptr) return 0;
    const ElfW(Dyn)* dyn = nullptr;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == nullptr) return 0;
    // glibc relocates the dynamic section's addresses in place on most
    // machines; an address below the object's base is still an offset.
    auto at = [&](ElfW(Addr) p) { return p < info->dlpi_addr ? p + info->dlpi_addr : p; };
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    const uint32_t* gnu = nullptr;
    const ElfW(Half)* versym = nullptr;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym)*)at(dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char*)at(dyn->d_un.d_ptr); break;
        case DT_GNU_HASH: gnu = (const uint32_t*)at(dyn->d_un.d_ptr); break;
        case DT_VERSYM: versym = (const ElfW(Half)*)at(dyn->d_un.d_ptr); break;
        }
    }
    if (symtab == nullptr || strtab == nullptr || gnu == nullptr) return 0;
    uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloomSize = gnu[2];
    const ElfW(Addr)* bloom = (const ElfW(Addr)*)(gnu + 4);
    const uint32_t* buckets = (const uint32_t*)(bloom + bloomSize);
    const uint32_t* chain = buckets + nbuckets;
    uint32_t h = 5381;
    for (const unsigned char* c = (const unsigned char*)q->name; *c; c++) h = h * 33 + *c;
    if (nbuckets == 0) return 0;
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset) return 0;
    for (;; i++) {
        uint32_t ch = chain[i - symoffset];
        const ElfW(Sym)* sym = &symtab[i];
        // The default version (not a hidden, older one).
        if ((h | 1) == (ch | 1) && sym->st_shndx != SHN_UNDEF && strcmp(strtab + sym->st_name, q->name) == 0 &&
            (versym == nullptr || (versym[i] & 0x8000) == 0)) {
            q->addr = (void*)(info->dlpi_addr + sym->st_value);
            return 1;
        }
        if (ch & 1) break;
    }
    return 0;
}

void* lookup(const char* lib, const char* name) {
    Lookup q{lib, name, nullptr};
    dl_iterate_phdr(lookupIn, &q);
    return q.addr;
}

typedef void* (*DlsymFn)(void*, const char*);
typedef void* (*DlvsymFn)(void*, const char*, const char*);
DlsymFn glibcDlsym;
DlvsymFn glibcDlvsym;
const char* selfName;                  // this library's file
std::once_flag dlOnce;

void findDl() {
    std::call_once(dlOnce, [] {
        glibcDlsym = (DlsymFn)lookup("libc.so", "dlsym");
        glibcDlvsym = (DlvsymFn)lookup("libc.so", "dlvsym");
        if (glibcDlsym == nullptr) glibcDlsym = (DlsymFn)lookup("libdl.so", "dlsym");
        if (glibcDlvsym == nullptr) glibcDlvsym = (DlvsymFn)lookup("libdl.so", "dlvsym");
        Dl_info self;
        if (dladdr((void*)&findDl, &self) != 0 && self.dli_fname != nullptr) selfName = strdup(self.dli_fname);
        if (glibcDlsym == nullptr || glibcDlvsym == nullptr) {
            static const char msg[] = "allocstats: glibc's dlsym cannot be found\n";
            ssize_t ignored = write(2, msg, sizeof msg - 1);
            (void)ignored;
            abort();
        }
    });
}

void* realDlsym(void* handle, const char* name) {
    findDl();
    return glibcDlsym(handle, name);
}

// hookFor is this library's own definition of a CUDA name (or of dlsym,
// dlvsym and dlclose), or null: what a program's look-up of the name is given.
void* hookFor(const char* name) {
    findDl();
    if (name == nullptr || selfName == nullptr) return nullptr;
    if (strncmp(name, "cu", 2) != 0 && strncmp(name, "__cuda", 6) != 0 && strcmp(name, "dlsym") != 0 && strcmp(name, "dlvsym") != 0 &&
        strcmp(name, "dlclose") != 0)
        return nullptr;
    return lookup(selfName, name);
}

// nvidiaCaller: the runtime and the driver look their own functions up
// (libcudart finds the driver's); those look-ups get the real ones.
bool nvidiaCaller(const void* ret) {
    Dl_info d;
    if (dladdr(ret, &d) == 0 || d.dli_fname == nullptr) return false;
    const char* b = strrchr(d.dli_fname, '/');
    b = b != nullptr ? b + 1 : d.dli_fname;
    return strncmp(b, "libcudart", 9) == 0 || strncmp(b, "libcuda.", 8) == 0 || strncmp(b, "libnv", 5) == 0;
}
