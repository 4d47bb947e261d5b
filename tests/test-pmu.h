/*
 * tests/test-pmu.h: a hand-made catalogue for the unit tests: its kind, name
 * and architecture (NULL: none) and its counter masks, no events yet.
 * pmu_release() frees it, as any catalogue.
 */
#ifndef LAUKA_TEST_PMU_H
#define LAUKA_TEST_PMU_H

#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "catalog/pmu.h"

static inline void test_pmu(struct lk_pmu *p, const char *kind, const char *name, const char *arch,
			    uint64_t config_mask, uint64_t fixed_mask)
{
	memset(p, 0, sizeof(*p));
	p->kind = xstrdup(kind);
	p->name = xstrdup(name);
	p->arch = xstrdup(arch);
	p->config_mask = config_mask;
	p->fixed_mask = fixed_mask;
}

#endif
