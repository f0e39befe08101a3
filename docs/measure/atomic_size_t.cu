// Does atomicAdd take a size_t counter (Day 87)? Build it:
//   nvcc -c atomic_size_t.cu    (it must fail: no overload for size_t)
#include <cstddef>
__global__ void bump(size_t* offset, size_t bytes) { atomicAdd(offset, bytes); }
