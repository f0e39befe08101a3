/* A library whose wit_alloc has two versions at two addresses (as a
   library keeps an old entry point beside the new one) and whose
   wit_free has an alias: a count by one symbol's address alone misses
   the calls of the other. */
int wit_alloc_old(int x) { return x + 2; }
int wit_alloc_new(int x) { return x + 1; }
__asm__(".symver wit_alloc_old, wit_alloc@WIT_1");
__asm__(".symver wit_alloc_new, wit_alloc@@WIT_2");
int wit_free(int x) { return x - 1; }
int wit_release(int x) __attribute__((alias("wit_free")));
