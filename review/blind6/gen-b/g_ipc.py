import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
src=open('exercises/day073/ipc_pool.cu').read()
src=rep(src,'''    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
''','''    // The pool comes once; the events come with each block (a fresh pair
    // a round, made by the parent), so the child opens them in the loop.
    {
        const int fd = recv_fd(sock);
        if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\\n"); return 1; }
        CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0));
        close(fd);
    }
''')
src=rep(src,'''        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
''','''        cudaIpcEventHandle_t h[2];   // this round's filled and freed
        if (!recv_all(sock, h, sizeof h)) { fprintf(stderr, "importer: no events came in round %d\\n", r); return 1; }
        CHECK(cudaIpcOpenEventHandle(&filled, h[0]));
        CHECK(cudaIpcOpenEventHandle(&freed, h[1]));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
''')
src=rep(src,'''        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
''','''        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        // This round's handles are closed before the answer: the parent
        // destroys the events once it has it.
        CHECK(cudaEventDestroy(filled));
        CHECK(cudaEventDestroy(freed));
        filled = freed = nullptr;
        const char done = 'd';
        if (!send_all(sock, &done, 1)) return 1;
''')
src=rep(src,'''    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
''','''    {
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
        if (!sent) { fprintf(stderr, "exporter: the pool descriptor was not sent\\n"); return 1; }
    }
    // The events: a fresh interprocess pair each round (below), so that no
    // record of one round can be taken for another's.
''')
src=rep(src,'''        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
''','''        CHECK(cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&freed, cudaEventInterprocess | cudaEventDisableTiming));
        CHECK(cudaEventRecord(filled, s));   // before the message that lets the child wait for it
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        cudaIpcEventHandle_t h[2];
        CHECK(cudaIpcGetEventHandle(&h[0], filled));
        CHECK(cudaIpcGetEventHandle(&h[1], freed));
        if (!send_all(sock, &data, sizeof data) || !send_all(sock, h, sizeof h)) {
            fprintf(stderr, "exporter: round %d could not be sent\\n", r);
            return 1;
        }
        char done = 0;   // the child has queued its free and its record of freed
        if (!recv_all(sock, &done, 1)) { fprintf(stderr, "exporter: no answer in round %d\\n", r); return 1; }
        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));
        // The child closed its handles before it answered.
        CHECK(cudaEventDestroy(filled));
        CHECK(cudaEventDestroy(freed));
        filled = freed = nullptr;
''')
ex='ipc-pool'
write(ex,'correct.cu',['kind: correct',
 'mistake: none. The design: a fresh pair of interprocess events each round, made by the parent and sent with that round\'s export',
 'data; the child closes its pair before it answers, the parent destroys its pair once it has the answer and has queued its',
 'wait on freed and its free; the pool descriptor is sent alone, first.',
 'why it is wrong: -','source: -'],src)
i1=rep(src,'''        CHECK(cudaStreamWaitEvent(s, freed, 0));
        CHECK(cudaFreeAsync(block, s));''','''        CHECK(cudaEventSynchronize(freed));   // the child's GPU is done with it
        CHECK(cudaFreeAsync(block, s));''')
write(ex,'wrong-freed-synchronized-on-the-host.cu',['kind: wrong',
 'mistake: the parent waits for the child\'s freed event with cudaEventSynchronize on the host before its free, instead of making',
 'its stream wait for it with cudaStreamWaitEvent.',
 'why it is wrong: the exercise forbids host waits during the rounds: the parent stands still each round until the child\'s 30 ms',
 'read is over. The order is right, so the output is.',
 'source: pytorch/pytorch#15974 (an event shared between processes waited for with synchronize() on the host)'],i1)
i2=rep(src,'''        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));''','''        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaStreamSynchronize(s));   // the answer must mean the block is free''')
write(ex,'wrong-child-synchronizes-before-answering.cu',['kind: wrong',
 'mistake: the child, instead of recording freed after its free, synchronizes its stream and only then answers; freed is never',
 'recorded, so the parent\'s wait on it is a no-op and the order comes from the child\'s host wait.',
 'why it is wrong: the child waits on the host every round (its one host wait is the final one); the program orders the two',
 'processes through a host, as the lesson\'s demo does, not through an event. The output is right.',
 'source: NVIDIA/cuda-samples Samples/2_Concepts_and_Techniques/streamOrderedAllocationIPC (the processes synchronize their',
 'streams and meet at a barrier between the export and the use)'],i2)
i3=rep(src,"""        close(fd);
    }
""","""        close(fd);
    }
    int* prev = nullptr;   // the last round's import, freed before the next import
""")
i3=rep(i3,"""        CHECK(cudaStreamWaitEvent(s, filled, 0));
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));""","""        CHECK(cudaStreamWaitEvent(s, filled, 0));
        if (prev != nullptr) CHECK(cudaFreeAsync(prev, s));   // done with it since its kernel
        prev = nullptr;
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));""")
i3=rep(i3,"""        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));""","""        // freed says the kernel is done with the block; the import itself
        // is given back at the next round's import (or now, in the last).
        CHECK(cudaEventRecord(freed, s));
        prev = block;
        if (r == rounds - 1) {
            CHECK(cudaFreeAsync(block, s));
            prev = nullptr;
        }""")
write(ex,'wrong-import-freed-a-round-late.cu',['kind: wrong',
 'mistake: the child records freed right after its kernel and gives its import back only at the next round, just before it',
 "imports the next block (the last round's at once, after the record).",
 'why it is wrong: an importer must free its import before the exporter frees the block (cudaMemPoolImportPointer); here the',
 "parent's free of each block comes before the child's free of its import (freed only says the kernel is done), and the parent",
 'may already have handed the memory out again. The data are right, since the kernel is done before freed.',
 'source: deepseek-ai/DeepEP#497 (the exporter frees while importers still hold the mapping: undefined, but it happens to work)'],i3)
