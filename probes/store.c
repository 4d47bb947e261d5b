/*
 * store: one store per step around the same single cycle as chase (odd
 * stride over a power-of-two number of slots), so every store lands on a
 * line not touched for a whole cycle: with a buffer far larger than the
 * last-level cache, about one write miss per step at every level.  The
 * addresses do not depend on loaded data, so unlike chase the stores may
 * overlap; this probe measures write traffic, not latency.
 */
#include "probe.h"

__attribute__((noinline)) uint64_t probe_store(char *buf, uint64_t nslots, uint64_t stride, uint64_t steps)
{
	uint64_t idx = 0, mask = nslots - 1;
	for (uint64_t i = 0; i < steps; i++) {
		*(volatile uint64_t *)(buf + idx * PROBE_SLOT) = i;
		idx = (idx + stride) & mask;
	}
	return idx;
}
