/* A library with both shapes of the CUDA driver's exported functions,
   each reaching its work through a slot of the library's data (hidden:
   no exported symbol names the work):
   - shape535 is driver 535's dispatch trampoline: a check that the
     library is not torn down, then `jmp *slot(%rip)`;
   - shape580 is driver 580's small function: a frame, the same check,
     `call *slot(%rip)`, the answer checked, `leave; ret`.
   Each work function starts with `push %rbp`, as the drivers' do. */
__attribute__((noinline, visibility("hidden"))) int shape535_work(int x) {
    volatile int y = x;
    return y + 1;
}
__attribute__((noinline, visibility("hidden"))) int shape580_work(int x) {
    volatile int y = x;
    return y + 2;
}
__attribute__((visibility("hidden"))) int shape_torn_down;
__attribute__((visibility("hidden"))) int (*shape535_slot)(int) = shape535_work;
__attribute__((visibility("hidden"))) int (*shape580_slot)(int) = shape580_work;
__asm__(".text\n"
        ".globl shape535\n"
        ".type shape535, @function\n"
        "shape535:\n"
        "  cmpl $0x321cba00, shape_torn_down(%rip)\n"
        "  je 1f\n"
        "  jmp *shape535_slot(%rip)\n"
        "1:\n"
        "  movl $4, %eax\n"
        "  ret\n"
        ".size shape535, .-shape535\n"
        ".globl shape580\n"
        ".type shape580, @function\n"
        "shape580:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  push %r12\n"
        "  sub $8, %rsp\n"
        "  cmpl $0x321cba00, shape_torn_down(%rip)\n"
        "  je 2f\n"
        "  call *shape580_slot(%rip)\n"
        "  mov %eax, %r12d\n"
        "  test %eax, %eax\n"
        "  je 3f\n"
        "  cmp $600, %eax\n"
        "  je 3f\n"
        "  mov %r12d, %eax\n"
        "3:\n"
        "  mov %r12d, %eax\n"
        "  mov -8(%rbp), %r12\n"
        "  leave\n"
        "  ret\n"
        "2:\n"
        "  mov $4, %eax\n"
        "  mov -8(%rbp), %r12\n"
        "  leave\n"
        "  ret\n"
        ".size shape580, .-shape580\n");
