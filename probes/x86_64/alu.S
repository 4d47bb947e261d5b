/*
 * alu, x86-64: void probe_alu(uint64_t n), n >= 1.
 * Exactly two instructions per iteration (dec, jnz): no memory access, one
 * branch that is taken n-1 times and falls through once, so a predictor gets
 * every iteration but the last right.  The call adds a constant 2 (mov, ret).
 */
#include "asm.h"

	.text
	.globl	SYM(probe_alu)
	TYPE_FUNCTION(probe_alu)
	.p2align 4
SYM(probe_alu):
	mov	%rdi, %rax
1:	dec	%rax
	jnz	1b
	ret
	SIZE(probe_alu)

NOTE_GNU_STACK
