/*
 * chase, x86-64: void *probe_chase(void *p, uint64_t steps), steps >= 1.
 * Each step is one dependent load (the loaded value is the next address),
 * so no two loads overlap: three instructions, one load, one branch per step.
 * Returns where the walk ended, for the caller to print.
 */
#include "asm.h"

	.text
	.globl	SYM(probe_chase)
	TYPE_FUNCTION(probe_chase)
	.p2align 4
SYM(probe_chase):
	mov	%rdi, %rax
1:	mov	(%rax), %rax
	dec	%rsi
	jnz	1b
	ret
	SIZE(probe_chase)

NOTE_GNU_STACK
