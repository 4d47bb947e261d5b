/*
 * catalog/vendor-arm.c: Arm's PMU tables laid over libpfm4's Arm rows
 * (catalog/vendor-arm.h says what wins and why).
 */
#include "catalog/vendor-arm.h"
#include "catalog/vendor.h"
#include "catalog/pfm.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm-cortex-a53.json.inc"
#include "arm-cortex-a57.json.inc"
#include "arm-neoverse-n1.json.inc"
#include "arm-neoverse-n2.json.inc"
#include "arm-neoverse-v1.json.inc"
#include "arm-neoverse-v2.json.inc"
#include "arm-cortex-a35.json.inc"
#include "arm-cortex-a72.json.inc"
#include "arm-cortex-a76.json.inc"

/* PMUv3's CHAIN event: the driver's, for joining an odd counter to the even one below it. */
#define ARM_CHAIN 0x1e
#define PERF_TYPE_RAW_ 4

/*
 * Every shipped table: libpfm4's model name (NULL for the cores libpfm4 has no model for: Cortex-A35,
 * A72, A76) and its "cpuid" (MIDR_EL1's implementer and part number).
 */
static const struct {
	const char *model, *cpuid, *text;
	size_t len;
} arm_tables[] = {
#define T(model, cpuid, json) { model, cpuid, json, sizeof(json) - 1 }
	T("arm_ac53", "0x41d03", arm_cortex_a53_json),
	T(NULL, "0x41d04", arm_cortex_a35_json),
	T("arm_ac57", "0x41d07", arm_cortex_a57_json),
	T(NULL, "0x41d08", arm_cortex_a72_json),
	T(NULL, "0x41d0b", arm_cortex_a76_json),
	T("arm_n1", "0x41d0c", arm_neoverse_n1_json),
	T("arm_v1", "0x41d40", arm_neoverse_v1_json),
	T("arm_n2", "0x41d49", arm_neoverse_n2_json),
	T("arm_v2", "0x41d4f", arm_neoverse_v2_json),
#undef T
};

/* The table whose model (by_cpuid false) or cpuid is key, or NULL with *len 0. */
static const char *arm_table(const char *key, bool by_cpuid, size_t *len)
{
	for (size_t i = 0; key && i < ARRAY_SIZE(arm_tables); i++) {
		const char *k = by_cpuid ? arm_tables[i].cpuid : arm_tables[i].model;
		if (k && !strcmp(k, key)) {
			*len = arm_tables[i].len;
			return arm_tables[i].text;
		}
	}
	*len = 0;
	return NULL;
}

const char *vendor_arm_builtin(const char *model, size_t *len)
{
	return arm_table(model, false, len);
}

const char *vendor_arm_builtin_cpuid(const char *cpuid, size_t *len)
{
	/* for the cores libpfm4 has no model for, and for a libpfm4 without Arm tables */
	return arm_table(cpuid, true, len);
}

uint64_t vendor_arm_counters(unsigned code, uint64_t general, uint64_t cycle_counter)
{
	return general | (code == ARMPMU_CPU_CYCLES ? cycle_counter : 0);
}

static const uint64_t cycle_bit = UINT64_C(1) << PFMCAT_FIXED_BASE;

static uint64_t general_mask(unsigned n)
{
	return n >= 32 ? UINT64_C(0xffffffff) : (UINT64_C(1) << n) - 1;
}

static bool lists_code(const struct armpmu_table *t, unsigned code)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->events[i].code == code)
			return true;
	return false;
}

/* A raw PMUv3 row: its event number in the low 16 bits, nothing else. */
static bool raw_row(const struct lk_event *ev)
{
	return ev->perf_type == PERF_TYPE_RAW_ && !ev->config1 && !(ev->number >> 16);
}

static void add_arm_names(struct lk_pmu *pmu, const struct armpmu_table *t, const char *label)
{
	size_t nrows = pmu->nevents;
	for (size_t i = 0; i < t->named; i++) {
		const struct armpmu_event *v = &t->events[i];
		if (v->for_driver || v->code == ARM_CHAIN)
			continue;
		const char *names[2] = { v->name, v->trm_name };
		const struct lk_event *row = NULL;
		for (size_t r = 0; r < nrows && !row; r++)
			if (raw_row(&pmu->events[r]) && pmu->events[r].number == v->code)
				row = &pmu->events[r];
		char *target = row ? xstrdup(row->name) : NULL;
		if (!row && !pmu_find(pmu, v->name)) {
			char *lower = xstrdup(v->name);
			for (char *c = lower; *c; c++)
				*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
			struct lk_event ev = { .fixed_counter = -1, .perf_type = PERF_TYPE_RAW_ };
			ev.name = lower;
			ev.number = v->code;
			ev.counters_mask = vendor_arm_counters(v->code, pmu->config_mask, pmu->fixed_mask & cycle_bit);
			ev.description = xasprintf("%s (from %s; libpfm4 has no event of this number)",
						   v->description ? v->description : v->name, label);
			pmu_add_event(pmu, &ev);
			free(ev.description);
			target = lower;
		}
		for (size_t k = 0; k < 2 && target; k++)
			if (names[k] && !pmu_find(pmu, names[k]))
				pmu_add_alias(pmu, names[k], target);
		free(target);
	}
}

/*
 * CHAIN (0x1e) links an odd counter to the even one below it into a 64-bit
 * counter; it counts nothing on its own, so it is never a row (libpfm4 lists
 * it on Neoverse N2, V1 and V2 as counter_overflow; catalog-audit-5 C12).
 * Its aliases go with it.
 */
static bool is_chain(const struct lk_event *e, size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	return raw_row(e) && e->number == ARM_CHAIN;
}

static void drop_chain(struct lk_pmu *pmu)
{
	pmu_remove_if(pmu, is_chain, NULL);
}

/*
 * Cortex-A53's IMPLEMENTATION DEFINED events 0xC0-0xE8: Arm's file leaves
 * them unnamed, the Linux kernel names them (tools/perf/pmu-events/arch/arm64/
 * arm/cortex-a53/{memory,cache,other,pipeline,branch}.json; the names and
 * numbers transcribed, catalog-audit-5 C12).  perf users type these names.
 */
static const struct { unsigned code; const char *name; } a53_kernel[] = {
	{ 0xc0, "EXT_MEM_REQ" }, { 0xc1, "EXT_MEM_REQ_NC" }, { 0xc2, "PREFETCH_LINEFILL" },
	{ 0xc3, "PREFETCH_LINEFILL_DROP" }, { 0xc4, "READ_ALLOC_ENTER" }, { 0xc5, "READ_ALLOC" },
	{ 0xc6, "PRE_DECODE_ERR" }, { 0xc7, "STALL_SB_FULL" }, { 0xc8, "EXT_SNOOP" }, { 0xc9, "BR_COND" },
	{ 0xca, "BR_INDIRECT_MISPRED" }, { 0xcb, "BR_INDIRECT_MISPRED_ADDR" }, { 0xcc, "BR_COND_MISPRED" },
	{ 0xd0, "L1I_CACHE_ERR" }, { 0xd1, "L1D_CACHE_ERR" }, { 0xd2, "TLB_ERR" },
	{ 0xe0, "OTHER_IQ_DEP_STALL" }, { 0xe1, "IC_DEP_STALL" }, { 0xe2, "IUTLB_DEP_STALL" },
	{ 0xe3, "DECODE_DEP_STALL" }, { 0xe4, "OTHER_INTERLOCK_STALL" }, { 0xe5, "AGU_DEP_STALL" },
	{ 0xe6, "SIMD_DEP_STALL" }, { 0xe7, "LD_DEP_STALL" }, { 0xe8, "ST_DEP_STALL" },
};

/* The kernel's names of a model's IMPDEF events: aliases of the row of their number, else rows of their own. */
static void add_kernel_names(struct lk_pmu *pmu)
{
	if (!pmu->name || strcmp(pmu->name, "arm_ac53"))
		return;
	size_t nrows = pmu->nevents;
	for (size_t i = 0; i < ARRAY_SIZE(a53_kernel); i++) {
		if (pmu_find(pmu, a53_kernel[i].name))
			continue;
		const struct lk_event *row = NULL;
		for (size_t r = 0; r < nrows && !row; r++)
			if (raw_row(&pmu->events[r]) && pmu->events[r].number == a53_kernel[i].code)
				row = &pmu->events[r];
		if (row) {
			pmu_add_alias(pmu, a53_kernel[i].name, row->name);
			continue;
		}
		char *lower = xstrdup(a53_kernel[i].name);
		for (char *c = lower; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		struct lk_event ev = { .fixed_counter = -1, .perf_type = PERF_TYPE_RAW_ };
		ev.name = lower;
		ev.number = a53_kernel[i].code;
		ev.counters_mask = vendor_arm_counters(ev.number, pmu->config_mask, pmu->fixed_mask & cycle_bit);
		ev.description = (char *)"(named by Linux's pmu-events for Cortex-A53; Arm's table leaves it unnamed)";
		pmu_add_event(pmu, &ev);
		free(lower);
	}
}

size_t vendor_arm_apply(struct lk_pmu *pmu, const struct armpmu_table *t, const char *label)
{
	if (t->counters)
		pmu->config_mask = general_mask(t->counters);
	pmu->fixed_mask = cycle_bit;
	const char *libpfm = pmu->source && *pmu->source ? pmu->source : "libpfm4";
	size_t corrected = 0;
	for (size_t i = 0; i < pmu->nevents; i++) {
		struct lk_event *ev = &pmu->events[i];
		if (!raw_row(ev))
			continue;
		unsigned code = (unsigned)ev->number;
		const struct armpmu_event *v = armpmu_find(t, ev->name);
		if (v && v->code != code) {
			free(ev->errata);
			ev->errata = xasprintf("%s numbers it 0x%x; %s has 0x%x (%s): lauka uses the vendor's", libpfm,
					       code, label, v->code, v->name);
			ev->number = code = v->code;
			corrected++;
		} else if (!v && t->n && !lists_code(t, code) && !ev->errata) {
			ev->errata = xasprintf("%s lists no event 0x%x, which %s has: the core may not count it", label,
					       code, libpfm);
		}
		ev->counters_mask = vendor_arm_counters(code, pmu->config_mask, cycle_bit);
		ev->fixed_counter = -1;
		if (v && !ev->description && v->description)
			ev->description = xstrdup(v->description);
	}
	add_arm_names(pmu, t, label);
	add_kernel_names(pmu);
	drop_chain(pmu);
	pmu_sort(pmu);
	return corrected;
}

void vendor_arm_catalog(const struct armpmu_table *t, const char *name, struct lk_pmu *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = xstrdup("perfmon");
	out->name = xstrdup(name);
	out->marketing_name = xstrdup(t->cpu ? t->cpu : name);
	out->arch = xstrdup("arm64");
	/* Arm's PMUv3 cores have 6 general counters when the table does not say (Neoverse V2's) */
	out->config_mask = general_mask(t->counters ? t->counters : 6);
	out->fixed_mask = cycle_bit;
	for (size_t i = 0; i < t->named; i++) {
		const struct armpmu_event *v = &t->events[i];
		if (v->for_driver || v->code == ARM_CHAIN)
			continue;
		struct lk_event ev = { .fixed_counter = -1, .perf_type = PERF_TYPE_RAW_ };
		ev.name = v->name;
		ev.description = v->description;
		ev.number = v->code;
		ev.counters_mask = vendor_arm_counters(v->code, out->config_mask, cycle_bit);
		pmu_add_event(out, &ev);
	}
	pmu_sort(out);
	/* Arm's TRM names as aliases: a hash set of the names, not pmu_find() per event (quadratic) */
	struct vendor_names names;
	vendor_names_init(&names, out);
	for (size_t i = 0; i < t->named; i++)
		if (t->events[i].trm_name && vendor_names_has(&names, t->events[i].name) &&
		    !vendor_names_has(&names, t->events[i].trm_name)) {
			pmu_add_alias(out, t->events[i].trm_name, t->events[i].name);
			vendor_names_add(&names, out->aliases[out->naliases - 1].alias);
		}
	vendor_names_release(&names);
	vendor_arm_generic_aliases(out);
}

void vendor_arm_generic_aliases(struct lk_pmu *out)
{
	/* perf's generic names on Arm (Linux armv8_pmuv3_perf_map), to the row of the event's number */
	static const struct { const char *alias; unsigned code; } generic[] = {
		{ "cycles", 0x11 }, { "instructions", 0x08 }, { "branch-misses", 0x10 },
		{ "cache-misses", 0x03 }, { "cache-references", 0x04 }, { "bus-cycles", 0x1d },
		{ "stalled-cycles-frontend", 0x23 }, { "stalled-cycles-backend", 0x24 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(generic); i++) {
		if (pmu_find(out, generic[i].alias))
			continue;
		for (size_t r = 0; r < out->nevents; r++)
			if (raw_row(&out->events[r]) && out->events[r].number == generic[i].code) {
				pmu_add_alias(out, generic[i].alias, out->events[r].name);
				break;
			}
	}
	pmu_sort(out);
}
