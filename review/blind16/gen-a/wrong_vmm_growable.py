WRONG = [
("round-truncates-to-a-unit", [
 "kind: wrong (default output: grow(1 MiB) rounds to 0 and returns at once, '0 bytes mapped'; the fill then writes unmapped addresses (an illegal address) and the program stops with 'a kernel failed' or wrong data)",
 "mistake: round divides and multiplies back (n / g * g), taking that for 'a whole number of units', which rounds down",
 "why it is wrong: the buffer must hold at least the bytes asked for; rounding down gives less (0 for anything under one unit), so part of what the caller writes has no memory behind it",
 "source: own",
], [("        return (n + granularity_ - 1) / granularity_ * granularity_;", "        return n / granularity_ * granularity_;")]),
("old-chunks-mapped-at-offset-zero", [
 "kind: wrong (other arguments only: a move while the buffer holds two chunks or more, e.g. 100 64 300 (the second growth): every old chunk is mapped at the new range's start, the second map is refused (the addresses are already mapped): 'grow to 314572800 bytes failed'; the default run moves one chunk, at offset 0, and is right)",
 "mistake: the move maps each old chunk at the new range's base, the offset counter kept but not added to the address",
 "why it is wrong: each chunk must sit at the same offset in the new range as in the old, or the data moves and the maps collide; with one chunk the mistake cannot show",
 "source: own",
], [("            if (cuMemMap(nb + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) { ok = false; break; }", "            if (cuMemMap(nb, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) { ok = false; break; }")]),
("access-set-before-the-map", [
 "kind: wrong (default output: grow(1 MiB) already fails: cuMemSetAccess is asked for addresses with nothing mapped yet and the driver refuses it: 'grow to 1048576 bytes failed')",
 "mistake: grow opens the new addresses for reads and writes first and maps the chunk after, 'set the rights, then put the memory there'",
 "why it is wrong: access rights belong to a mapping; cuMemSetAccess on a range with no memory mapped behind it is an error, so the rights must be set after cuMemMap",
 "source: ROCm/rocm-systems#10778 (access set on a reserved range before it was mapped, refused by the runtime)",
], [("        if (cuMemMap(base_ + mapped_, want - mapped_, 0, h, 0) != CUDA_SUCCESS) {\n            cuMemRelease(h);\n            return false;\n        }\n        if (cuMemSetAccess(base_ + mapped_, want - mapped_, &access_, 1) != CUDA_SUCCESS) {\n            cuMemUnmap(base_ + mapped_, want - mapped_);\n            cuMemRelease(h);\n            return false;\n        }",
     "        if (cuMemSetAccess(base_ + mapped_, want - mapped_, &access_, 1) != CUDA_SUCCESS) {\n            cuMemRelease(h);\n            return false;\n        }\n        if (cuMemMap(base_ + mapped_, want - mapped_, 0, h, 0) != CUDA_SUCCESS) {\n            cuMemRelease(h);\n            return false;\n        }")]),
("release-keeps-the-handles", [
 "kind: wrong (the record only: release unmaps every chunk and frees the range but never releases a handle; the physical memory (100 MiB by default) stays allocated until the process ends; 'release: ok' and 'every reservation given back: yes' print right)",
 "mistake: release unmaps and frees the addresses only, taking the unmap for the step that gives the memory back",
 "why it is wrong: cuMemUnmap only takes the memory out of the address range; the allocation made by cuMemCreate lives until its handle is released with cuMemRelease",
 "source: NVIDIA/cuda-python#2882 (a VMM resource that unmapped and freed its ranges but never released the cuMemCreate handle)",
], [("            ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;\n", "")]),
]
