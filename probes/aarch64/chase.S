/*
 * chase, aarch64: void *probe_chase(void *p, uint64_t steps), steps >= 1.
 * Each step is one dependent load (the loaded value is the next address):
 * three instructions, one load, one branch per step.
 */
#include "asm.h"

	.text
	.globl	SYM(probe_chase)
	TYPE_FUNCTION(probe_chase)
	.p2align 4
SYM(probe_chase):
1:	ldr	x0, [x0]
	subs	x1, x1, #1
	b.ne	1b
	ret
	SIZE(probe_chase)

NOTE_GNU_STACK
