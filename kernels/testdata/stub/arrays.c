// Arrays, the runtime's and the driver's (kernels/fail_test.go): each
// counts in malloc_calls and malloc_bytes (its elements' bytes, every
// level's of a mipmapped one), each free or destruction in free_calls.
// The types are CUDA's layouts, declared here (no CUDA header needed).
#include <stddef.h>
#include <stdio.h>
struct desc { int x, y, z, w, f; };                                            /* cudaChannelFormatDesc */
struct extent { size_t w, h, d; };                                             /* cudaExtent */
struct ad { size_t Width, Height; int Format; unsigned NumChannels; };         /* CUDA_ARRAY_DESCRIPTOR */
struct ad3 { size_t Width, Height, Depth; int Format; unsigned NumChannels, Flags; };  /* CUDA_ARRAY3D_DESCRIPTOR */
int cudaMallocArray(void**, const struct desc*, size_t, size_t, unsigned);
int cudaMalloc3DArray(void**, const struct desc*, struct extent, unsigned);
int cudaMallocMipmappedArray(void**, const struct desc*, struct extent, unsigned, unsigned);
int cudaFreeArray(void*);
int cudaFreeMipmappedArray(void*);
int cuArrayCreate_v2(void**, const struct ad*);
int cuArray3DCreate_v2(void**, const struct ad3*);
int cuMipmappedArrayCreate(void**, const struct ad3*, unsigned);
int cuArrayDestroy(void*);
int cuMipmappedArrayDestroy(void*);
int main() {
  void *a, *b, *c, *d, *e, *f;
  struct desc fl = {32, 0, 0, 0, 2}, fl4 = {32, 32, 32, 32, 2}, uc = {8, 0, 0, 0, 1};
  int r = cudaMallocArray(&a, &fl, 256, 1024, 0);                                   /* 1 MiB */
  r |= cudaMalloc3DArray(&b, &fl4, (struct extent){64, 32, 8}, 0);                  /* 256 KiB */
  r |= cudaMallocMipmappedArray(&c, &uc, (struct extent){16, 16, 0}, 5, 0);         /* 256+64+16+4+1 */
  struct ad two = {100, 0, 0x20, 2};                                                /* 2 floats: 800 */
  struct ad3 half4 = {10, 10, 10, 0x10, 4, 0}, u8 = {8, 8, 0, 0x01, 1, 0};          /* 8000; 64+16+4+1 */
  r |= cuArrayCreate_v2(&d, &two);
  r |= cuArray3DCreate_v2(&e, &half4);
  r |= cuMipmappedArrayCreate(&f, &u8, 4);
  r |= cudaFreeArray(a) | cudaFreeArray(b) | cudaFreeMipmappedArray(c);
  r |= cuArrayDestroy(d) | cuArrayDestroy(e) | cuMipmappedArrayDestroy(f);
  printf("arrays %d\n", r);
  return 0;
}
