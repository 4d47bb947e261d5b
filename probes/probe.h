/*
 * probe.h: the probe kernels.  alu and chase are assembly, one file per
 * architecture (probes/<arch>/NAME.S), so their instruction counts are fixed by
 * the source rather than by a compiler; branch and store are C with inline
 * assembly where the compiler must be kept from rewriting the loop.
 *
 * What each kernel should count per unit of work (per iteration or step) is
 * declared once, as data, in catalog/expectations.tsv; lauka calibrate reads
 * it from there.  The comments in the kernels explain the numbers.
 */
#ifndef LAUKA_PROBE_H
#define LAUKA_PROBE_H

#include <stdint.h>

/* Chase and store walk slots this large: one slot per cache line even on
 * cores with 128-byte lines (Apple M-series L2), so every step is a new line. */
#define PROBE_SLOT 128

void probe_alu(uint64_t n);
void *probe_chase(void *start, uint64_t steps);
uint64_t probe_branch(uint64_t n, uint64_t *taken);
uint64_t probe_store(char *buf, uint64_t nslots, uint64_t stride, uint64_t steps);

#endif
