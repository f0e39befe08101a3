from mkwrong import make
E = "block-pool"
make(E, "correct.cu", "not-ready-answer-cleared-with-get-last-error",
 "allocate calls cudaGetLastError after every cudaEventQuery that is not cudaSuccess, to clear the 'not ready' it takes for a kept error",
 "part 3d, default output: a not-ready answer is not kept by the runtime, so the clear takes away the caller's own launch failure: 'a launch that failed before allocate() is still the last error after it: no, allocate() took it away'; every other line right",
 "pytorch/pytorch#18584 and pytorch/pytorch#61554 (an allocator clearing the last error after a not-ready query; on HIP the not-ready is kept, on CUDA it is not), NVIDIA/cub#47",
 [("            idle_[c].push_back(pend[j]);\n            pend.erase(pend.begin() + j);\n            j--;\n        }\n",
   "            idle_[c].push_back(pend[j]);\n            pend.erase(pend.begin() + j);\n            j--;\n        } else {\n            cudaGetLastError(); // the not-ready answer is not an error: clear it\n        }\n")])
make(E, "correct.cu", "pending-block-accepted-again",
 "deallocate refuses only a block that is idle (state kIdle), so a block already given back and still pending is accepted again and its event recorded again on the new stream",
 "default output, part 2 first: 'double free refused: no' (the block given back a moment before is pending, not idle), and part 3: 'double free while its kernel runs refused: no'; the second give-back on the idle fourth stream re-records the block's event there and queues the block twice: the next allocate finds that event done and hands the block out while its held kernel still runs ('a block', words overwritten), and a later allocate hands the same block out twice",
 "own (the student file: refuse a block 'already given back, done or not')",
 [("if (i < 0 || blocks_[i].state != kOut) return false;", "if (i < 0 || blocks_[i].state == kIdle) return false;")])
make(E, "correct.cu", "blocks-aligned-to-16-bytes",
 "each block's stride rounded to 16 bytes (alignof(max_align_t), 'as malloc aligns'), not to kAlign",
 "default output: classes of 1000 and 3000 bytes give strides of 1008 and 3008: 'blocks aligned to 256 bytes: no'; the pool's one cudaMalloc smaller than the lesson's layout; with classes that are multiples of 256 everything right",
 "own (the student file: cudaMalloc aligns to at least 256 bytes, a kernel reads blocks with aligned vector loads)",
 [("    for (size_t c : classBytes) total += blocks * ((c + kAlign - 1) / kAlign * kAlign);",
   "    const size_t align = alignof(std::max_align_t);\n    for (size_t c : classBytes) total += blocks * ((c + align - 1) / align * align);"),
  ("        const size_t stride = (classBytes[c] + kAlign - 1) / kAlign * kAlign;",
   "        const size_t stride = (classBytes[c] + align - 1) / align * align;")])
make(E, "correct.cu", "empty-class-waits-for-its-oldest-block",
 "when the class has no idle block and no pending one is done, allocate waits on the host for the oldest pending block's event (cudaEventSynchronize) and hands that block out, instead of returning nullptr",
 "part 3, default output and the record: the early request waits for a held kernel that waits for the host's gate (up to kGateNs, 200 ms), then gets that block: 'allocate while every block of 1000 bytes is in use: a block' (no words overwritten: the kernel had ended); the host waits in allocate, which the file forbids",
 "pytorch/pytorch#19222 (an allocator that synchronizes on outstanding events to get blocks back)",
 [("    if (idle_[c].empty()) return nullptr;\n",
   "    if (idle_[c].empty() && !pend.empty() && cudaEventSynchronize(blocks_[pend.front()].done) == cudaSuccess) {\n        idle_[c].push_back(pend.front());\n        pend.erase(pend.begin());\n    }\n    if (idle_[c].empty()) return nullptr;\n")])
