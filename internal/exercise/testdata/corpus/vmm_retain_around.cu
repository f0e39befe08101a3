// vmm_around.cu for the two ways to take a reference to physical memory
// without a create (round 25): the driver's own
// cuMemRetainAllocationHandle and cuMemImportFromShareableHandle, found in
// its symbol table (no dlsym for the library to answer), called around the
// library's hooks. The program makes one chunk through the hooks (a
// reservation, a create with a POSIX descriptor as its shareable type, a
// map, an access), then takes a hundred references to it unseen (retains
// of its mapped address, and imports of its own exported descriptor), and
// gives back only the create's: the record says 1 create, 0 retains and 1
// release (vmm-growable's vmm_release_calls equal to vmm_handle_refs), and
// the chunk's memory stays allocated to the end. The seven probed
// functions are called through the hooks only, so their bound holds.
// Where there is no device (here: driver 535) each call is made and
// refused, the hundred around the hooks too.
// What stops it: the witness probes the two (entries, the functions
// behind them, their ways out; LESSONS_WITNESS_DRIVER_REFS=bound, not yet by
// default: owed a GPU run over the course) and bounds their count added up by the record's
// vmm_retain_attempts (record version 22), which counts every call as
// the seven's vmm_*_calls do, made or refused: 100 counted against 0
// fails it ("virtual memory managed around the statistics library",
// TestWitnessBoundsDriverVMMReferences), here and on a GPU. Until round
// 25's close it was in corpus-open: the record counted only retains that
// succeeded, which no bound of a count of calls could use. Where the
// witness is off the scan names dl_iterate_phdr and the driver API.
// want: virtual memory managed around the statistics library|dynamic loading
// needs: witness
// flags: -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { RETAIN, IMPORT, N };
static void* found[N];
static const char* names[N] = {"cuMemRetainAllocationHandle", "cuMemImportFromShareableHandle"};

static int visit(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcuda.so") == NULL) return 0;
    const ElfW(Sym)* syms = NULL;
    const char* strs = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn)* d = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB) syms = (const ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) strs = (const char*)d->d_un.d_ptr;
        }
    }
    for (size_t k = 0; syms != NULL && strs != NULL && (const char*)&syms[k] < strs; k++)
        for (int n = 0; n < N; n++)
            if (syms[k].st_value != 0 && strcmp(strs + syms[k].st_name, names[n]) == 0)
                found[n] = (void*)(info->dlpi_addr + syms[k].st_value);
    return 1;
}

int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);  // counted
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t size = 0;
    if (cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || size == 0)
        size = 2 << 20;  // no device: every call below is made, and refused
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle h = 0;
    // Through the hooks, all counted.
    bool made = cuMemAddressReserve(&va, size, 0, 0, 0) == CUDA_SUCCESS;
    made = cuMemCreate(&h, size, &prop, 0) == CUDA_SUCCESS && made;
    made = made && cuMemMap(va, size, 0, h, 0) == CUDA_SUCCESS && cuMemSetAccess(va, size, &access, 1) == CUDA_SUCCESS;
    int fd = -1;
    if (cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS) fd = -1;
    dlopen("libcuda.so.1", RTLD_NOW);  // the driver itself, not a copy
    dl_iterate_phdr(visit, NULL);
    int taken = 0, calls = 0;
    for (int i = 0; i < 50 && found[RETAIN] != NULL; i++, calls++) {  // none counted
        CUmemGenericAllocationHandle again = 0;
        if (((CUresult(*)(CUmemGenericAllocationHandle*, void*))found[RETAIN])(&again, (void*)va) == CUDA_SUCCESS) taken++;
    }
    for (int i = 0; i < 50 && found[IMPORT] != NULL; i++, calls++) {  // none counted
        CUmemGenericAllocationHandle again = 0;
        if (((CUresult(*)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType))found[IMPORT])(&again, (void*)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == CUDA_SUCCESS) taken++;
    }
    if (fd >= 0) close(fd);
    // Given back as a correct design does: the create's reference alone.
    cuMemUnmap(va, size);
    cuMemRelease(h);
    cuMemAddressFree(va, size);
    printf("1 chunk made: %s (and %d references taken unseen in %d calls)\n", made ? "yes" : "no", taken, calls);
    return 0;
}
