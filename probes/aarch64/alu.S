/*
 * alu, aarch64: void probe_alu(uint64_t n), n >= 1.
 * Exactly two instructions per iteration (subs, b.ne): no memory access, one
 * branch that is taken n-1 times and falls through once.  The call adds a
 * constant 1 (ret).
 */
#include "asm.h"

	.text
	.globl	SYM(probe_alu)
	TYPE_FUNCTION(probe_alu)
	.p2align 4
SYM(probe_alu):
1:	subs	x0, x0, #1
	b.ne	1b
	ret
	SIZE(probe_alu)

NOTE_GNU_STACK
