/* A library whose tramp_alloc is a dispatch trampoline, as each function
   the CUDA driver exports is: a check that the library is not torn down,
   then a jump through a slot of its data to the function that does the
   work (hidden: no symbol names it). */
__attribute__((visibility("hidden"))) int tramp_alloc_work(int x) { return x + 1; }
__attribute__((visibility("hidden"))) int tramp_torn_down;
__attribute__((visibility("hidden"))) int (*tramp_slot)(int) = tramp_alloc_work;
__asm__(".text\n"
        ".globl tramp_alloc\n"
        ".type tramp_alloc, @function\n"
        "tramp_alloc:\n"
        "  cmpl $0x321cba00, tramp_torn_down(%rip)\n"
        "  je 1f\n"
        "  jmp *tramp_slot(%rip)\n"
        "1:\n"
        "  movl $4, %eax\n"
        "  ret\n"
        ".size tramp_alloc, .-tramp_alloc\n");
