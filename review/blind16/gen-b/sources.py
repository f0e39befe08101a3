# The source line of a wrong file, where a public thread fits (read as the
# search tool's excerpt of it); every slug not named here is "own".
SOURCES = {
    "own-take-also-waits-on-its-event": "intel/llvm#5099 (a wait on an event of the same stream is a no-op: the same redundant wait, removed there)",
    "fill-dedented-out-of-the-producer-block": "pytorch/pytorch#2702 (work outside the side stream lands on the default stream, which PyTorch's non-blocking streams do not order against; see also pytorch/pytorch#3054)",
    "produced-waited-for-before-it-is-recorded": "sgl-project/sglang#14214 (a wait issued before the matching record: the record happens later than the wait)",
    "block-sent-before-filled-is-recorded": "sgl-project/sglang#14214 (a wait that can come before the matching record)",
    "factor-set-after-the-launch": "CHIP-SPV/chipStar#1498 (parameters set in an executable graph reach the next launch, not one already made)",
    "factor-set-once-by-pointer": "ROCm/clr#138 (kernel node parameters are copied by the set-params call; the caller's memory is not the node's)",
    "interprocess-events-without-disable-timing": "NVIDIA/cuda-python#1145 (IPC-enabled events cannot use timing)",
    "filled-recorded-on-the-legacy-stream": "pytorch/pytorch#3054 (non-blocking streams are not ordered with the legacy default stream)",
    "arena-freed-on-the-legacy-stream": "pytorch/pytorch#3054 (non-blocking streams are not ordered with the legacy default stream)",
    "heap-lists-never-given-back": "owl-project/owl#151 (device malloc returns null once the heap is used up)",
}
