WRONG = [
 dict(slug="offset-moved-by-add-and-undone-by-sub",
  where="a race, the program's own output now and then: while a refused thread's add is not yet undone, smaller lists of its block see the offset past the end and go to the heap with room left (the room-left line above 0 in some runs; the sums right)",
  mistake="take moves the offset with atomicAdd and, when the list does not fit, takes its bytes back with a second atomicAdd of minus the bytes before going to the heap (\"one atomic instead of a loop\")",
  why="between the add and the sub the offset counts bytes nobody holds; every thread that reads it then decides on a wrong offset, so a list is sent to the heap although the slice has room where the offset really stands",
  source="own",
  edits=[("""    unsigned long long cur = *(volatile unsigned long long*)used;
    while (cur + want <= a.stride) {
        const unsigned long long seen = atomicCAS(used, cur, cur + want);
        if (seen == cur) return reinterpret_cast<int*>(a.base + (size_t)blockIdx.x * a.stride + cur);
        cur = seen;   // another thread moved it: try again from where it stands
    }
    return static_cast<int*>(malloc(bytes));""","""    const unsigned long long cur = atomicAdd(used, want);
    if (cur + want <= a.stride) return reinterpret_cast<int*>(a.base + (size_t)blockIdx.x * a.stride + cur);
    atomicAdd(used, 0ull - want);   // did not fit: give the bytes back (there is no 64-bit atomicSub)
    return static_cast<int*>(malloc(bytes));""")]),
 dict(slug="give-back-frees-every-list",
  where="the program's own output and the record: from the first release_lists, device free is called on addresses inside the cudaMallocAsync buffer (not the heap's): an error or a corrupted heap, lists without memory in later rounds",
  mistake="give_back calls free on every list it gets (\"take gave it, so free takes it back\"), without asking in_arena",
  why="only memory that malloc gave may go to the device heap's free; slice lists belong to the cudaMallocAsync buffer, and are given back by the next launch starting the slices again",
  source="own",
  edits=[("    if (list != nullptr && !in_arena(a, list)) free(list);","    if (list != nullptr) free(list);")]),
 dict(slug="arena-end-in-int-pointer-arithmetic",
  where="the program's own output: addresses beyond the arena taken for its own > 0 (`beyond` past a list is within the end that is four times too far); where the heap lies above the buffer, heap lists are never freed (leak, lists without memory later)",
  mistake="make_arena computes the end as (int*)base + total, adding the buffer's byte count to an int pointer",
  why="pointer arithmetic counts in the pointee's size: the end lies 4 total bytes past the base, not total, so in_arena claims memory three buffers past the arena",
  source="own",
  edits=[("    a->end = a->base + total;","    a->end = reinterpret_cast<char*>(reinterpret_cast<int*>(a->base) + total);")]),
 dict(slug="slice-start-from-the-unrounded-size",
  where="the program's own output: block b's slice starts at b * sliceBytes but is filled up to stride bytes, so neighbouring slices overlap (lists not holding what they should, rounds summed wrong) and, when sliceBytes is not a multiple of 16, lists off the boundary",
  mistake="take places the block's slice at base + blockIdx.x * sliceBytes (the size asked for, passed in) while the room test and the buffer use the rounded stride; the arena keeps both sizes",
  why="the slices are laid out at the rounded stride; starting them at the unrounded size moves each slice back by b times the rounding, so each block's last lists run into the next block's first ones",
  source="own",
  edits=[("    size_t stride = 0;      // each slice's bytes: sliceBytes rounded up to 1 KiB\n","    size_t stride = 0;      // each slice's bytes: sliceBytes rounded up to 1 KiB\n    size_t asked = 0;       // sliceBytes as asked\n"),
         ("    a->stride = stride;\n","    a->stride = stride;\n    a->asked = sliceBytes;\n"),
         ("return reinterpret_cast<int*>(a.base + (size_t)blockIdx.x * a.stride + cur);","return reinterpret_cast<int*>(a.base + (size_t)blockIdx.x * a.asked + cur);")]),
]
