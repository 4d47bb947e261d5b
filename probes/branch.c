/*
 * branch: one conditional branch per iteration on the top bit of a 32-bit
 * linear congruential generator (Numerical Recipes constants).  The top bit
 * of this LCG is evenly split and does not repeat within 2^32 iterations,
 * so a predictor can do no better than chance: about 0.5 mispredictions per
 * iteration.  The two arms hold different inline assembly; with identical
 * arms compilers tail-merge them into a branchless select and nothing
 * mispredicts (tests/cli/t-probe-branch.sh checks the disassembly).
 */
#include "probe.h"

__attribute__((noinline)) uint64_t probe_branch(uint64_t n, uint64_t *taken)
{
	uint32_t x = 1;
	uint64_t yes = 0, no = 0;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		if (x >> 31) {
			__asm__ volatile("nop" ::: "memory");
			yes++;
		} else {
			__asm__ volatile("nop\n\tnop" ::: "memory");
			no++;
		}
	}
	*taken = yes;
	return no;
}
