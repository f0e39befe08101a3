from mk import *
EX = "ipc-pool"
s = read("exercises/day073/ipc_pool.cu")
s = sub(s, '''    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
''', '''    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
    {
        int fd = recv_fd(sock);
        if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
        cudaError_t e = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
        close(fd);
        CHECK(e);
        cudaIpcEventHandle_t h[2];
        if (!recv_all(sock, h, sizeof h)) { fprintf(stderr, "importer: no event handles came\\n"); return 1; }
        CHECK(cudaIpcOpenEventHandle(&filled, h[0]));
        CHECK(cudaIpcOpenEventHandle(&freed, h[1]));
    }
''')
s = sub(s, '''        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
''', '''        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
''')
s = sub(s, '''        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
''', '''        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const char answer = 'a';
        if (!send_all(sock, &answer, 1)) return 1;
''')
s = sub(s, '''    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
''', '''    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
    {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&pool, &props));
        int fd = -1;
        CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
        const bool sent = send_fd(sock, fd);
        close(fd);
        if (!sent) { fprintf(stderr, "exporter: could not send the pool\\n"); return 1; }
        CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));
        cudaIpcEventHandle_t h[2];
        CHECK(cudaIpcGetEventHandle(&h[0], filled));
        CHECK(cudaIpcGetEventHandle(&h[1], freed));
        if (!send_all(sock, h, sizeof h)) return 1;
    }
    // Every round's block is kept until the child has answered for all of
    // them: the child's frees are in its stream's order, so the freed mark
    // recorded after its last free comes after all of them.
    std::vector<int*> kept;
''')
s = sub(s, '''        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
''', '''        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
        CHECK(cudaEventRecord(filled, s));   // before the block is sent: the child's wait takes this mark or a later one
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) return 1;
        kept.push_back(block);
        if (r == rounds - 1) {
            for (int k = 0; k < rounds; k++) {
                char answer = 0;
                if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer for round %d\\n", k); return 1; }
            }
            // Every answer came after its record: the last one is queued.
            CHECK(cudaStreamWaitEvent(s, freed, 0));
            for (int* p : kept) CHECK(cudaFreeAsync(p, s));
            kept.clear();
        }
''')
s = sub(s, '''#include <cstdint>
''', '''#include <cstdint>
#include <vector>
''')
correct = s
write(EX, "correct.cu", header("//", "correct", "none: the parent sends every round's block at once and keeps them all (a vector); after the last round it reads every answer, queues one wait for freed (recorded by the child after its last free, which its stream orders after all the others) and frees every block; the event handles sent as one array.", "none.", "none (written from the lesson and the student file).") + correct)

W = [
("freed-waited-before-each-answer",
 "wrong (each block freed behind the previous round's mark)",
 "after the last round the parent, for each round k, queues the wait for freed and the free of block k, then reads round k's answer (the wait and free first, so that they go out as early as possible).",
 "a wait takes the event's mark at the time it is queued: before round k's answer the child may not have recorded freed for round k, so block k's free waits for round k-1's mark (or for nothing, in round 0), while the child's kernel can still read block k. The parent never allocates again, so nothing overwrites the block and the sums print right.",
 "sgl-project/sglang#14214 (a stream wait queued before the record it was meant to wait for), ROCm/rocm-systems#6786 (one shared IPC event recorded again and again: a waiter attached to the wrong recording)",
 [('''            for (int k = 0; k < rounds; k++) {
                char answer = 0;
                if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer for round %d\\n", k); return 1; }
            }
            // Every answer came after its record: the last one is queued.
            CHECK(cudaStreamWaitEvent(s, freed, 0));
            for (int* p : kept) CHECK(cudaFreeAsync(p, s));
            kept.clear();
''', '''            for (int k = 0; k < rounds; k++) {
                CHECK(cudaStreamWaitEvent(s, freed, 0));
                CHECK(cudaFreeAsync(kept[k], s));
                char answer = 0;
                if (!recv_all(sock, &answer, 1)) { fprintf(stderr, "exporter: no answer for round %d\\n", k); return 1; }
            }
            kept.clear();
''')]),
("blocks-kept-in-an-array-of-eight",
 "wrong (shows only with more rounds than eight)",
 "the parent keeps the rounds' blocks in a fixed array of 8 (the default is 5 rounds) with a count, and frees those it kept.",
 "with more than 8 rounds the blocks past the eighth are written past the array's end (on the stack, over the count or other locals) or, guarded as here, never kept: they are never freed and the pool is destroyed with them still allocated; a run with the default 5 rounds is right.",
 "no public thread found for this exact case; the kind is issue 36's 'arguments other than the defaults (the public specs never run other arguments)', and ROCm/rocm-systems#11511 (an IPC event's ring indexed without the modulo: from the 33rd record on it read past the array)",
 [('''    std::vector<int*> kept;
''', '''    int* kept[8] = {};
    int nkept = 0;
'''), ('''        kept.push_back(block);
''', '''        if (nkept < 8) kept[nkept++] = block;
'''), ('''            for (int* p : kept) CHECK(cudaFreeAsync(p, s));
            kept.clear();
''', '''            for (int k = 0; k < nkept; k++) CHECK(cudaFreeAsync(kept[k], s));
            nkept = 0;
''')]),
("freed-on-the-answers-alone",
 "wrong (the parent's frees ordered after nothing of the child's GPU)",
 "the parent reads every answer and then frees the blocks with no wait on freed, taking the answers (sent after the child queued its frees) as proof that the child is done.",
 "an answer says only that the child's host made its calls: its kernels, and the frees of its imports behind them, may still be queued. The parent's frees are ordered after nothing of the child's stream, while the child's kernel still reads the blocks; the parent allocates nothing more, so the sums print right.",
 "NVIDIA/cuda-samples streamOrderedAllocationIPC (the importer frees 'before the exporter process frees it', and the sample makes that so with the importer's stream synchronize and its exit, which the parent waits for: an answer sent before the child's GPU is done carries no such order), pytorch/pytorch#15974 (interprocess events: what orders two processes' GPU work is a record in one and a wait or synchronize on the shared event in the other)",
 [('''            // Every answer came after its record: the last one is queued.
            CHECK(cudaStreamWaitEvent(s, freed, 0));
''', '''            // Every answer came after the child's free was queued.
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.cu" % slug, header("//", kind, mis, why, src) + apply(correct, edits))
