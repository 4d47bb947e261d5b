/*
 * catalog/vendor.c: Intel's perfmon tables laid over libpfm4's rows
 * (catalog/vendor.h says what wins and why).
 */
#include "catalog/vendor.h"
#include "catalog/pfm.h"
#include "catalog/sched.h"
#include "base/error.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intel-skl.json.inc"
#include "intel-icl.json.inc"
#include "intel-spr.json.inc"
#include "intel-icx.json.inc"
#include "intel-skx.json.inc"
#include "intel-clx.json.inc"
#include "intel-hsw.json.inc"
#include "intel-bdw.json.inc"
#include "intel-tgl.json.inc"
#include "intel-rkl.json.inc"

/* A vendor table embedded in lauka, for one libpfm4 model. */
struct vendor_text {
	const char *model, *text;
	size_t len;
};

/* The text of tables[0..n) for model, or NULL; *len its size. */
static const char *vendor_text_find(const struct vendor_text *tables, size_t n, const char *model, size_t *len)
{
	for (size_t i = 0; i < n; i++)
		if (model && !strcmp(model, tables[i].model)) {
			*len = tables[i].len;
			return tables[i].text;
		}
	*len = 0;
	return NULL;
}

const char *vendor_builtin(const char *model, size_t *len)
{
	static const struct vendor_text tables[] = {
		{ "skl", intel_skl_json, sizeof(intel_skl_json) - 1 },
		{ "icl", intel_icl_json, sizeof(intel_icl_json) - 1 },
		{ "spr", intel_spr_json, sizeof(intel_spr_json) - 1 },
		{ "icx", intel_icx_json, sizeof(intel_icx_json) - 1 },
		{ "skx", intel_skx_json, sizeof(intel_skx_json) - 1 },
		{ "clx", intel_clx_json, sizeof(intel_clx_json) - 1 },
		{ "hsw", intel_hsw_json, sizeof(intel_hsw_json) - 1 },
		{ "bdw", intel_bdw_json, sizeof(intel_bdw_json) - 1 },
		{ "tgl", intel_tgl_json, sizeof(intel_tgl_json) - 1 },
		{ "rkl", intel_rkl_json, sizeof(intel_rkl_json) - 1 },
	};
	return vendor_text_find(tables, ARRAY_SIZE(tables), model, len);
}

static uint64_t name_hash(const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ (uint64_t)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c)) * UINT64_C(0x100000001b3);
	return h;
}

static void names_put(struct vendor_names *s, const char *name)
{
	size_t i = (size_t)name_hash(name) & (s->cap - 1);
	while (s->slot[i]) {
		if (!lk_strcasecmp(s->slot[i], name))
			return;
		i = (i + 1) & (s->cap - 1);
	}
	s->slot[i] = name;
	s->n++;
}

void vendor_names_add(struct vendor_names *s, const char *name)
{
	if (!name)
		return;
	if ((s->n + 1) * 2 > s->cap) {
		struct vendor_names t = { xcalloc(s->cap * 2, sizeof(*t.slot)), s->cap * 2, 0 };
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				names_put(&t, s->slot[i]);
		free(s->slot);
		*s = t;
	}
	names_put(s, name);
}

void vendor_names_init(struct vendor_names *s, const struct lk_pmu *pmu)
{
	s->cap = 64;
	s->n = 0;
	s->slot = xcalloc(s->cap, sizeof(*s->slot));
	for (size_t i = 0; i < pmu->nevents; i++)
		vendor_names_add(s, pmu->events[i].name);
	for (size_t i = 0; i < pmu->naliases; i++)
		vendor_names_add(s, pmu->aliases[i].alias);
}

bool vendor_names_has(const struct vendor_names *s, const char *name)
{
	if (!name)
		return false;
	size_t i = (size_t)name_hash(name) & (s->cap - 1);
	for (; s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (!lk_strcasecmp(s->slot[i], name))
			return true;
	return false;
}

void vendor_names_release(struct vendor_names *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = s->n = 0;
}

const char *vendor_table_for(const char *model, unsigned family, unsigned cpu_model, unsigned stepping)
{
	/* Intel's mapfile.csv (intel/perfmon 6dadedf), its core rows for the tables lauka ships */
	static const struct { unsigned model; const char *table; } map[] = {
		{ 0x3c, "hsw" }, { 0x45, "hsw" }, { 0x46, "hsw" }, { 0x3d, "bdw" }, { 0x47, "bdw" },
		{ 0x4e, "skl" }, { 0x5e, "skl" }, { 0x8e, "skl" }, { 0x9e, "skl" }, { 0xa5, "skl" }, { 0xa6, "skl" },
		{ 0x7d, "icl" }, { 0x7e, "icl" }, { 0xa7, "rkl" }, { 0x8c, "tgl" }, { 0x8d, "tgl" },
		{ 0x6a, "icx" }, { 0x6c, "icx" }, { 0x8f, "spr" },
	};
	if (family != 6)
		return model;
	if (cpu_model == 0x55)	/* "GenuineIntel-6-55-[01234]" SKX, "-[56789ABCDEF]" CLX */
		return stepping <= 4 ? "skx" : "clx";
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i].model == cpu_model)
			return map[i].table;
	return model;
}

/*
 * The encoding Linux opens for an Intel event.  Intel writes the fixed
 * counters' events as pseudo-encodings, event 0x00 with umask n+1 for fixed
 * counter n (SDM 3B, "Fixed-function performance counters"; Linux
 * use_fixed_pseudo_encoding()).  Linux accepts 0x0100 and 0x0400 only on
 * newer models, and 0x0200 nowhere, but the architectural encodings on all:
 * instructions 0x00c0, core cycles 0x003c, reference cycles 0x0300 (Linux's
 * own pseudo-encoding, on every model since Nehalem), slots 0x0400.
 */
static uint64_t linux_config(const struct perfmon_event *e)
{
	static const uint64_t arch[] = { 0x00c0, 0x003c, 0x0300, 0x0400 };
	uint64_t c = perfmon_config(e);
	if (e->code == 0 && e->fixed >= 0 && (size_t)e->fixed < ARRAY_SIZE(arch))
		c = (c & ~UINT64_C(0xffff)) | arch[e->fixed];
	return c;
}

/* An event whose encoding alone says what it counts (no offcore or other MSR). */
static bool plain(const struct perfmon_event *e)
{
	return !e->offcore && !e->msr_index;
}

struct enc {
	uint64_t config;
	uint64_t counters;
	const struct perfmon_event *ev;
};

static int cmp_enc(const void *a, const void *b)
{
	const struct enc *x = a, *y = b;
	if (x->config != y->config)
		return x->config < y->config ? -1 : 1;
	return strcmp(x->ev->name, y->ev->name);
}

/*
 * The key an encoding's counters are looked up by: PERFEVTSEL's fields, with
 * the offcore response's second event (RSP_1: 0xbb, on Sapphire Rapids 0x2b)
 * folded onto its first (0xb7, 0x2a); Intel lists them as one event
 * ("0xB7, 0xBB") and the kernel moves an event between the two.
 */
static uint64_t enc_key(uint64_t config)
{
	config &= VENDOR_FIELDS;
	uint64_t code = config & 0xff;
	if (code == 0xbb)
		code = 0xb7;
	else if (code == 0x2b)
		code = 0x2a;
	return (config & ~UINT64_C(0xff)) | code;
}

/* The table's programmable events (MSR events too: their counters do not depend on the MSR's value), by encoding. */
static struct enc *by_encoding(const struct perfmon_table *t, bool smt_off, size_t *n)
{
	struct enc *v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct perfmon_event *e = &t->events[i];
		if (e->fixed >= 0)
			continue;
		v[*n].config = enc_key(perfmon_config(e));
		v[*n].counters = smt_off ? e->counters_htoff : e->counters;
		v[*n].ev = e;
		(*n)++;
	}
	qsort(v, *n, sizeof(*v), cmp_enc);
	return v;
}

/* The counters every table event of this encoding allows (0: none has it). */
static uint64_t counters_of_encoding(const struct enc *v, size_t n, uint64_t config)
{
	config = enc_key(config);
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].config < config)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t m = 0;
	bool any = false;
	for (size_t i = lo; i < n && v[i].config == config; i++) {
		m = any ? m & v[i].counters : v[i].counters;
		any = true;
	}
	return m;
}

static void perf_string(uint64_t config, char *buf, size_t len)
{
	pfmcat_perf_string(true, config, 0, buf, len);
	/* "cpu/event=..../" -> "event=...." for the errata text */
	size_t n = strlen(buf);
	if (n > 5 && !strncmp(buf, "cpu/", 4) && buf[n - 1] == '/') {
		memmove(buf, buf + 4, n - 5);
		buf[n - 5] = '\0';
	}
}

/* One libpfm4 row against the table; true when its encoding was corrected. */
static bool apply_row(struct lk_event *ev, const struct perfmon_table *t, const struct enc *enc, size_t nenc,
		      const struct lk_pmu *pmu, const char *label, const char *libpfm, bool smt_off)
{
	uint64_t gp = pmu->config_mask;
	uint64_t rule;
	int fixed;
	pfmcat_counters(true, ev->number, (unsigned)__builtin_popcountll(gp),
			(unsigned)__builtin_popcountll(pmu->fixed_mask), &rule, &fixed);
	ev->counters_mask = rule;
	ev->fixed_counter = fixed;
	const struct perfmon_event *v = perfmon_find(t, ev->name);
	uint64_t allowed = 0;
	bool corrected = false;
	if (v && v->fixed >= 0) {
		/* Intel names its fixed counter only (ICL INST_RETIRED.PREC_DIST, SPR INST_RETIRED.ANY). */
		ev->counters_mask = UINT64_C(1) << (PERFMON_FIXED_BASE + v->fixed);
		ev->fixed_counter = PERFMON_FIXED_BASE + v->fixed;
		if (ev->config1)
			return false;
		/*
		 * Open what Linux puts on that fixed counter: libpfm4 gave Intel's pseudo-encoding (SPR
		 * cpu_clk_unhalted.thread 0x0200), or a programmable encoding the kernel's fixed constraint
		 * does not match (SPR inst_retired.any 0x01c0: Linux 6.x intel_spr_event_constraints has
		 * FIXED_EVENT_CONSTRAINT(0x00c0, 0) and (0x0100, 0) only, and 0x01c0 falls in
		 * INTEL_EVENT_CONSTRAINT_RANGE(0x90, 0xfe, 0xff), a general counter).
		 */
		uint64_t want = linux_config(v);
		if ((ev->number & VENDOR_FIELDS) == want)
			return false;
		char was[96], now[96];
		perf_string(ev->number & VENDOR_FIELDS, was, sizeof(was));
		perf_string(want, now, sizeof(now));
		free(ev->errata);
		if (ev->number & 0xff)
			ev->errata = xasprintf("%s encodes it %s, which Linux does not put on fixed counter %d, the only "
					       "counter %s names; lauka opens %s, the encoding Linux counts there",
					       libpfm, was, v->fixed, label, now);
		else
			ev->errata = xasprintf("%s encodes it %s, the pseudo-encoding %s gives for fixed counter %d, "
					       "which Linux does not open on every model; lauka opens the architectural %s",
					       libpfm, was, label, v->fixed, now);
		ev->number = (ev->number & ~VENDOR_FIELDS) | want;
		return true;
	}
	if (v && !plain(v) && !v->offcore && !ev->config1) {
		/* Intel's event needs an MSR besides PERFEVTSEL (SPR UOPS_RETIRED.MS: 0x04c2 with 0x3F7 = 0x8, perf's
		 * frontend= term; libpfm4 0x08c2 and none): lauka opens Intel's encoding and MSR value, as Linux's
		 * pmu-events do. */
		char was[96], now[96];
		perf_string(ev->number & VENDOR_FIELDS, was, sizeof(was));
		perf_string(perfmon_config(v), now, sizeof(now));
		free(ev->errata);
		ev->errata = xasprintf("%s encodes it %s without MSR 0x%" PRIx64 "; %s has %s with MSR 0x%" PRIx64
				       " = 0x%" PRIx64 ": lauka uses the vendor's", libpfm, was, v->msr_index, label, now,
				       v->msr_index, v->msr_value);
		ev->number = (ev->number & ~VENDOR_FIELDS) | perfmon_config(v);
		ev->config1 = v->msr_value;
		corrected = true;
		pfmcat_counters(true, ev->number, (unsigned)__builtin_popcountll(gp),
				(unsigned)__builtin_popcountll(pmu->fixed_mask), &rule, &fixed);
		ev->counters_mask = rule;
		ev->fixed_counter = fixed;
	}
	if (v && plain(v)) {
		uint64_t want = perfmon_config(v);
		/* a plain event has no extra MSR: libpfm4's config1 there (SPR EXE.AMX_BUSY, event 0xb7) is an error too */
		if ((ev->number & VENDOR_FIELDS) != want || ev->config1) {
			char was[96], now[96];
			perf_string(ev->number & VENDOR_FIELDS, was, sizeof(was));
			if (ev->config1) {
				size_t l = strlen(was);
				snprintf(was + l, sizeof(was) - l, ",config1=0x%" PRIx64, ev->config1);
			}
			perf_string(want, now, sizeof(now));
			free(ev->errata);
			ev->errata = xasprintf("%s encodes it %s; %s has %s: lauka uses the vendor's", libpfm, was, label,
					       now);
			ev->number = (ev->number & ~VENDOR_FIELDS) | want;
			ev->config1 = 0;
			corrected = true;
			pfmcat_counters(true, ev->number, (unsigned)__builtin_popcountll(gp),
					(unsigned)__builtin_popcountll(pmu->fixed_mask), &rule, &fixed);
			ev->counters_mask = rule;
			ev->fixed_counter = fixed;
		}
	}
	if (v)
		allowed = smt_off ? v->counters_htoff : v->counters;
	else
		allowed = counters_of_encoding(enc, nenc, ev->number & VENDOR_FIELDS);
	allowed &= gp;
	/* A fixed-only encoding keeps its fixed counter; otherwise the vendor's general counters narrow the rule's. */
	if (allowed && ev->fixed_counter < 0)
		ev->counters_mask = (ev->counters_mask & ~gp) | allowed;
	return corrected;
}

/* Intel names libpfm4 does not use: aliases of the row of their encoding, else rows of their own. */
static void add_vendor_names(struct lk_pmu *pmu, const struct perfmon_table *t, const char *label, bool smt_off)
{
	uint64_t gp = pmu->config_mask;
	size_t nrows = pmu->nevents;
	struct vendor_names names;
	vendor_names_init(&names, pmu);
	for (size_t i = 0; i < t->n; i++) {
		const struct perfmon_event *v = &t->events[i];
		if (vendor_names_has(&names, v->name))
			continue;
		if (!plain(v)) {
			/* an MSR event (offcore response, load latency, frontend): Intel's name is an alias of the row
			 * with its encoding and MSR value (ICL OCR.DEMAND_DATA_RD.L3_HIT.ANY, catalog-audit-5 C8) */
			uint64_t key = enc_key(linux_config(v));
			bool found = false;
			for (size_t r = 0; r < nrows && !found; r++)
				if (pmu->events[r].config1 == v->msr_value && enc_key(pmu->events[r].number) == key &&
				    pmu->events[r].perf_type == 4) {
					pmu_add_alias(pmu, v->name, pmu->events[r].name);
					vendor_names_add(&names, pmu->aliases[pmu->naliases - 1].alias);
					found = true;
				}
			/*
			 * A load-latency threshold or frontend value libpfm4 has no row for (Intel's
			 * MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 ... _1024, MSR 0x3F6; FRONTEND_RETIRED.LATENCY_GE_*, MSR
			 * 0x3F7; catalog-audit-5 C8): a row of its own, the MSR's value as config1 (perf's ldlat= and
			 * frontend= terms).  Offcore responses are not: the lean tables keep one per encoding.
			 */
			if (!found && !v->offcore && !v->deprecated && v->fixed < 0 &&
			    (v->msr_index == 0x3f6 || v->msr_index == 0x3f7)) {
				struct lk_event ev = { .fixed_counter = -1, .perf_type = 4 /* PERF_TYPE_RAW */ };
				ev.name = v->name;
				ev.number = linux_config(v);
				ev.config1 = v->msr_value;
				ev.description = xasprintf("(from %s; libpfm4 has no event of this encoding and MSR 0x%" PRIx64
							   " value)", label, v->msr_index);
				uint64_t a = (smt_off ? v->counters_htoff : v->counters) & gp;
				ev.counters_mask = a ? a : gp;
				pmu_add_event(pmu, &ev);
				vendor_names_add(&names, pmu->events[pmu->nevents - 1].name);
				free(ev.description);
			}
			continue;
		}
		uint64_t config = linux_config(v);
		const struct lk_event *row = NULL;
		for (size_t r = 0; r < nrows && !row; r++)
			if (!pmu->events[r].config1 && pmu->events[r].number == config)
				row = &pmu->events[r];
		if (row && (v->fixed < 0 || row->fixed_counter == PERFMON_FIXED_BASE + v->fixed ||
			    row->counters_mask >> (PERFMON_FIXED_BASE + v->fixed) & 1)) {
			pmu_add_alias(pmu, v->name, row->name);
			vendor_names_add(&names, pmu->aliases[pmu->naliases - 1].alias);
			continue;
		}
		if (v->deprecated)
			continue;
		struct lk_event ev = { .fixed_counter = -1, .perf_type = 4 /* PERF_TYPE_RAW */ };
		ev.name = v->name;
		ev.number = config;
		ev.description = xasprintf("(from %s; libpfm4 has no event of this encoding)", label);
		if (v->fixed >= 0) {
			ev.counters_mask = UINT64_C(1) << (PERFMON_FIXED_BASE + v->fixed);
			ev.fixed_counter = PERFMON_FIXED_BASE + v->fixed;
		} else {
			uint64_t a = (smt_off ? v->counters_htoff : v->counters) & gp;
			ev.counters_mask = a ? a : gp;
		}
		pmu_add_event(pmu, &ev);
		vendor_names_add(&names, pmu->events[pmu->nevents - 1].name);
		free(ev.description);
	}
	vendor_names_release(&names);
}

/*
 * Linux's counter constraints for Intel's general counters, transcribed (the
 * facts, not the code) from arch/x86/events/intel/core.c as of Linux 6.x
 * (intel_skl_event_constraints[], intel_icl_event_constraints[] with
 * 0x48-0x56 since v5.19, intel_spr_event_constraints[],
 * intel_hsw_event_constraints[], intel_bdw_event_constraints[]; which model
 * takes which table: intel_pmu_init()).  The kernel takes the first entry
 * that matches an event and allows only its counters; fixed-counter and
 * topdown-metric entries are left out (catalog/pfm.h's fixed rule has them).
 * Matching: KC_EVENT the event code alone, KC_UEVENT code and umask (never
 * cmask or inv: SKL's 0x01c0 rule holds for inst_retired.total_cycles too),
 * KC_RANGE a range of codes, KC_UBIT a code with that umask bit set.
 */
enum kc_kind { KC_END, KC_EVENT, KC_UEVENT, KC_RANGE, KC_UBIT };
struct kc {
	enum kc_kind kind;
	unsigned code, hi;	/* code (KC_UEVENT: umask << 8 | code), or the range's ends */
	uint64_t mask;
};

static const struct kc kc_skl[] = {
	{ KC_UEVENT, 0x01c0, 0, 0x2 },	/* INST_RETIRED.PREC_DIST (any cmask/inv) */
	{ KC_EVENT, 0xd0, 0, 0xf }, { KC_EVENT, 0xd1, 0, 0xf }, { KC_EVENT, 0xd2, 0, 0xf },
	{ KC_EVENT, 0xcd, 0, 0xf }, { KC_EVENT, 0xc6, 0, 0xf },
	{ KC_END, 0, 0, 0 },
};
static const struct kc kc_icl[] = {
	{ KC_RANGE, 0x03, 0x0a, 0xf }, { KC_RANGE, 0x1f, 0x28, 0xf }, { KC_EVENT, 0x32, 0, 0xf },
	{ KC_RANGE, 0x48, 0x56, 0xf }, { KC_RANGE, 0x60, 0x8b, 0xf },
	{ KC_UEVENT, 0x04a3, 0, 0xff }, { KC_UEVENT, 0x10a3, 0, 0xff }, { KC_UEVENT, 0x14a3, 0, 0xff },
	{ KC_EVENT, 0xa3, 0, 0xf }, { KC_RANGE, 0xa8, 0xb0, 0xf }, { KC_RANGE, 0xb7, 0xbd, 0xf },
	{ KC_RANGE, 0xd0, 0xe6, 0xf }, { KC_EVENT, 0xef, 0, 0xf }, { KC_RANGE, 0xf0, 0xf4, 0xf },
	{ KC_END, 0, 0, 0 },
};
static const struct kc kc_spr[] = {
	{ KC_EVENT, 0x2e, 0, 0xff }, { KC_EVENT, 0x3c, 0, 0xff }, { KC_RANGE, 0x01, 0x8f, 0xf },
	{ KC_UEVENT, 0x01a3, 0, 0xf }, { KC_UEVENT, 0x02a3, 0, 0xf }, { KC_UEVENT, 0x08a3, 0, 0xf },
	{ KC_UEVENT, 0x04a4, 0, 0x1 }, { KC_UEVENT, 0x08a4, 0, 0x1 }, { KC_UEVENT, 0x02cd, 0, 0x1 },
	{ KC_EVENT, 0xce, 0, 0x1 },	/* AMX_OPS_RETIRED.* */
	{ KC_RANGE, 0xd0, 0xdf, 0xf }, { KC_RANGE, 0x90, 0xfe, 0xff },
	{ KC_END, 0, 0, 0 },
};
static const struct kc kc_hsw[] = {
	{ KC_UEVENT, 0x0148, 0, 0x4 }, { KC_UEVENT, 0x01c0, 0, 0x2 }, { KC_EVENT, 0xcd, 0, 0x8 },
	{ KC_UEVENT, 0x08a3, 0, 0x4 }, { KC_UEVENT, 0x0ca3, 0, 0x4 }, { KC_UEVENT, 0x04a3, 0, 0xf },
	{ KC_EVENT, 0xd0, 0, 0xf }, { KC_EVENT, 0xd1, 0, 0xf }, { KC_EVENT, 0xd2, 0, 0xf }, { KC_EVENT, 0xd3, 0, 0xf },
	{ KC_END, 0, 0, 0 },
};
static const struct kc kc_bdw[] = {
	{ KC_UEVENT, 0x0148, 0, 0x4 }, { KC_UBIT, 0x08a3, 0, 0x4 },
	{ KC_EVENT, 0xd0, 0, 0xf }, { KC_EVENT, 0xd1, 0, 0xf }, { KC_EVENT, 0xd2, 0, 0xf }, { KC_EVENT, 0xcd, 0, 0xf },
	{ KC_END, 0, 0, 0 },
};

static int popcount64(uint64_t m)
{
	return __builtin_popcountll(m);
}

/* The kernel's table for a libpfm4 model (intel_pmu_init(): SKX and CLX take Skylake's, ICX, TGL and RKL Ice Lake's). */
static const struct kc *kernel_constraints(const char *model)
{
	static const struct { const char *model; const struct kc *kc; } by[] = {
		{ "skl", kc_skl }, { "skx", kc_skl }, { "clx", kc_skl }, { "icl", kc_icl }, { "icx", kc_icl },
		{ "spr", kc_spr }, { "hsw", kc_hsw }, { "hsw_ep", kc_hsw }, { "bdw", kc_bdw }, { "bdw_ep", kc_bdw },
	};
	for (size_t i = 0; model && i < ARRAY_SIZE(by); i++)
		if (!strcmp(model, by[i].model))
			return by[i].kc;
	return NULL;
}

/* The general counters the kernel allows an encoding (0: no entry, every counter). */
static uint64_t kernel_mask(const struct kc *kc, uint64_t config)
{
	unsigned code = (unsigned)(config & 0xff), umask = (unsigned)(config >> 8 & 0xff);
	for (; kc && kc->kind != KC_END; kc++) {
		bool hit = false;
		switch (kc->kind) {
		case KC_EVENT: hit = code == kc->code; break;
		case KC_UEVENT: hit = (umask << 8 | code) == kc->code; break;
		case KC_RANGE: hit = code >= kc->code && code <= kc->hi; break;
		case KC_UBIT: hit = code == (kc->code & 0xff) && (umask & (kc->code >> 8)); break;
		case KC_END: break;
		}
		if (hit)
			return kc->mask;
	}
	return 0;
}

uint64_t vendor_kernel_mask(const char *model, uint64_t config)
{
	return kernel_mask(kernel_constraints(model), config);
}

/*
 * Each general-counter row narrowed to the kernel's counters (catalog-audit-5
 * C6: SPR amx_ops_retired.* on counter 0, SKL inst_retired.total_cycles on
 * counter 1, ICL's 0x02b0, 0x01d3 and 0x60 rows on 0-3).  Where the kernel
 * and the vendor share no counter (SKL inst_retired.total_cycles: Intel 0,2,3,
 * Linux 1), the kernel's wins, as it decides, and the row's errata say so.
 */
static void apply_kernel(struct lk_pmu *pmu)
{
	const struct kc *kc = kernel_constraints(pmu->name);
	if (!kc)
		return;
	for (size_t i = 0; i < pmu->nevents; i++) {
		struct lk_event *ev = &pmu->events[i];
		if (ev->fixed_counter >= 0 || ev->perf_type != 4)
			continue;
		uint64_t k = kernel_mask(kc, ev->number) & pmu->config_mask;
		uint64_t gp = ev->counters_mask & pmu->config_mask;
		if (!k || !gp || (gp & k) == gp)
			continue;
		if (!(gp & k) && !ev->errata)	/* the kernel schedules it there whatever the vendor says */
			ev->errata = xasprintf("Linux puts this encoding on counter%s 0x%" PRIx64 " only (arch/x86/events/intel/"
					       "core.c), none of the counters the vendor's table names: lauka plans "
					       "what the kernel will do", popcount64(k) > 1 ? "s" : "", k);
		ev->counters_mask = (ev->counters_mask & ~pmu->config_mask) | ((gp & k) ? gp & k : k);
	}
}

/*
 * Event 0x00 is no event: only its umasks 1-4 mean something, the
 * pseudo-encodings of fixed counters 0-3 (Linux: 0x0300 and 0x0400; 0x0100 on
 * newer models).  A libpfm4 row with another (ICL topdown.br_mispredict_slots
 * 0x0800, C10) or on general counters is left out: the kernel would count
 * nothing meaningful there.
 */
static bool event_zero(const struct lk_event *e, size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	unsigned umask = (unsigned)(e->number >> 8 & 0xff);
	return e->perf_type == 4 && (e->number & 0xff) == 0 && !e->config1 &&
	       (umask < 1 || umask > 4 || e->fixed_counter < 0);
}

/* Those rows and their aliases gone; returns how many rows went. */
static size_t drop_event_zero(struct lk_pmu *pmu)
{
	return pmu_remove_if(pmu, event_zero, NULL);
}

/*
 * Intel's flags of a row, by its encoding (and MSR value: an Intel event of the
 * encoding with the row's config1 decides, else every event of the encoding):
 * TakenAlone when an event of the encoding has it (Intel marks whole encodings:
 * every FRONTEND_RETIRED.* and MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* on SKL), and
 * needs sampling when every one deciding is PEBS=2 (SKL
 * FRONTEND_RETIRED.LATENCY_GE_1, not its other values).
 */
static unsigned row_flags(const struct perfmon_table *t, const struct lk_event *ev)
{
	if (ev->perf_type != 4)
		return 0;
	uint64_t key = enc_key(ev->number);
	unsigned flags = 0, n_val = 0, pebs2_val = 0, n_enc = 0, pebs2_enc = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct perfmon_event *e = &t->events[i];
		if (e->fixed >= 0 || e->deprecated || enc_key(linux_config(e)) != key)
			continue;
		if (e->taken_alone)
			flags |= LK_EVF_TAKEN_ALONE;
		n_enc++;
		pebs2_enc += e->pebs == 2;
		if ((e->msr_index ? e->msr_value : 0) == ev->config1) {
			n_val++;
			pebs2_val += e->pebs == 2;
		}
	}
	if (n_val ? pebs2_val == n_val : n_enc && pebs2_enc == n_enc)
		flags |= LK_EVF_NEEDS_SAMPLING;
	return flags;
}

static void set_flags(struct lk_pmu *pmu, const struct perfmon_table *t)
{
	for (size_t i = 0; i < pmu->nevents; i++)
		pmu->events[i].flags = row_flags(t, &pmu->events[i]);
}

void vendor_flags_builtin(struct lk_pmu *pmu, const char *model)
{
	size_t len;
	const char *text = model ? vendor_builtin(model, &len) : NULL;
	struct perfmon_table t;
	char err[256];
	if (!text || perfmon_parse(text, len, &t, err, sizeof(err)) < 0)
		return;
	set_flags(pmu, &t);
	perfmon_release(&t);
}

size_t vendor_apply(struct lk_pmu *pmu, const struct perfmon_table *t, const char *label, bool smt_off)
{
	unsigned gp = smt_off ? t->gp_htoff : t->gp;
	if (gp && gp < 32)
		pmu->config_mask = (UINT64_C(1) << gp) - 1;
	if (t->nfixed && t->nfixed < 32)
		pmu->fixed_mask = ((UINT64_C(1) << t->nfixed) - 1) << PERFMON_FIXED_BASE;
	size_t nenc;
	struct enc *enc = by_encoding(t, smt_off, &nenc);
	const char *libpfm = pmu->source && *pmu->source ? pmu->source : "libpfm4";
	size_t corrected = 0;
	for (size_t i = 0; i < pmu->nevents; i++)
		corrected += apply_row(&pmu->events[i], t, enc, nenc, pmu, label, libpfm, smt_off);
	free(enc);
	add_vendor_names(pmu, t, label, smt_off);
	apply_kernel(pmu);
	drop_event_zero(pmu);
	set_flags(pmu, t);
	pmu_sort(pmu);
	return corrected;
}

struct dup {
	size_t idx;
	const struct lk_event *ev;
	int rank;	/* 0: Intel names it, 1: not */
};

/*
 * An offcore response event's second encoding (RSP_1: 0xbb, 0x2b on Sapphire
 * Rapids) with the same response value counts what the first (0xb7, 0x2a)
 * does: Intel lists both codes as one event and the kernel moves an event to
 * the other register when its own is taken (intel_alt_er()).  So they are
 * one row, kept under the first code.  Only rows with a response value
 * (config1): AMD's events have none.
 */
static uint64_t dup_number(const struct lk_event *e)
{
	if (!e->config1 || e->perf_type != 4)
		return e->number;
	uint64_t code = e->number & 0xff;
	if (code == 0xbb || code == 0x2b)
		return (e->number & ~UINT64_C(0xff)) | (code == 0xbb ? 0xb7 : 0x2a);
	return e->number;
}

static int cmp_dup(const void *a, const void *b)
{
	const struct dup *x = a, *y = b;
	const struct lk_event *e = x->ev, *f = y->ev;
	if (e->perf_type != f->perf_type)
		return e->perf_type < f->perf_type ? -1 : 1;
	if (dup_number(e) != dup_number(f))
		return dup_number(e) < dup_number(f) ? -1 : 1;
	if (e->config1 != f->config1)
		return e->config1 < f->config1 ? -1 : 1;
	if (e->number != f->number)	/* the first code (0xb7) is kept */
		return e->number < f->number ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	/* a fixed-only row first, then the shorter name, then by name */
	size_t lx = strlen(e->name), ly = strlen(f->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(e->name, f->name);
}

static bool same_encoding(const struct lk_event *a, const struct lk_event *b)
{
	return a->perf_type == b->perf_type && dup_number(a) == dup_number(b) && a->config1 == b->config1;
}

/* A row merged into another: into[i] is the row it merges into (vendor_merge_duplicates). */
static bool merged_away(const struct lk_event *e, size_t i, void *ctx)
{
	(void)e;
	const size_t *into = ctx;
	return into[i] != i;
}

size_t vendor_merge_duplicates(struct lk_pmu *pmu, const struct perfmon_table *t)
{
	size_t n = pmu->nevents;
	struct dup *d = xcalloc(n ? n : 1, sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i].idx = i;
		d[i].ev = &pmu->events[i];
		d[i].rank = t && perfmon_find(t, pmu->events[i].name) ? 0 : 1;
	}
	qsort(d, n, sizeof(*d), cmp_dup);
	/* keep[i]: the index of the row event i merges into (itself when kept) */
	size_t *into = xcalloc(n ? n : 1, sizeof(*into));
	size_t merged = 0;
	/* each group's head in one walk (walking back from every row was quadratic in a group's size) */
	size_t head = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || !same_encoding(d[i - 1].ev, d[i].ev) || d[i].ev->perf_type == UINT32_MAX)
			head = i;
		into[d[i].idx] = d[head].idx;
	}
	/*
	 * The kept row's counters, whatever the order of the names (catalog-audit-5 C11): the general counters
	 * every name allows (Intel may restrict one name more), plus the fixed counter of any name on one (SKL
	 * CPU_CLK_UNHALTED.THREAD_ANY on fixed 1 and .THREAD_P_ANY on general ones: the encoding may go to
	 * either; Gracemont's cycles keeps fixed counter 1).
	 */
	uint64_t *gen = xcalloc(n ? n : 1, sizeof(*gen)), *fix = xcalloc(n ? n : 1, sizeof(*fix));
	bool *has_gen = xcalloc(n ? n : 1, sizeof(*has_gen));
	uint64_t fixed_bits = ~((UINT64_C(1) << PERFMON_FIXED_BASE) - 1) & ~SCHED_PAIR;
	for (size_t i = 0; i < n; i++) {
		const struct lk_event *e = &pmu->events[i];
		size_t h = into[i];
		uint64_t m = e->counters_mask & ~SCHED_PAIR;
		uint64_t g = e->fixed_counter >= 0 ? 0 : m & ~fixed_bits;	/* a fixed row's mask is its counter */
		fix[h] |= m & fixed_bits;
		if (g) {
			gen[h] = has_gen[h] ? gen[h] & g : g;
			has_gen[h] = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (into[i] == i)
			continue;
		merged++;
	}
	for (size_t h = 0; h < n; h++) {
		if (into[h] != h)
			continue;
		struct lk_event *keep = &pmu->events[h];
		uint64_t pair = keep->counters_mask & SCHED_PAIR;
		uint64_t g = has_gen[h] ? gen[h] : 0;
		if (has_gen[h] && !g)	/* names with disjoint lists: keep the kept row's own */
			g = keep->counters_mask & ~fixed_bits & ~SCHED_PAIR;
		uint64_t m = g | fix[h];
		if (!m)
			continue;
		if (g && fix[h] && keep->fixed_counter >= 0)
			keep->fixed_counter = -1;
		else if (!g && fix[h] && keep->fixed_counter < 0 && __builtin_popcountll(fix[h]) == 1)
			keep->fixed_counter = __builtin_ctzll(fix[h]);
		keep->counters_mask = m | pair;
	}
	for (size_t i = 0; i < n; i++) {
		if (into[i] == i)
			continue;
		struct lk_event *keep = &pmu->events[into[i]], *gone = &pmu->events[i];
		if (!keep->errata && gone->errata) {
			keep->errata = gone->errata;
			gone->errata = NULL;
		}
	}
	free(gen);
	free(fix);
	free(has_gen);
	if (!merged) {
		free(d);
		free(into);
		return 0;
	}
	/* aliases of a merged row lead to the kept one; the merged name becomes an alias */
	for (size_t a = 0; a < pmu->naliases; a++) {
		const struct lk_event *target = pmu_find_exact(pmu, pmu->aliases[a].target);
		if (!target)
			continue;
		size_t ti = (size_t)(target - pmu->events);
		if (into[ti] != ti) {
			free(pmu->aliases[a].target);
			pmu->aliases[a].target = xstrdup(pmu->events[into[ti]].name);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (into[i] != i)
			pmu_add_alias(pmu, pmu->events[i].name, pmu->events[into[i]].name);
	/* the merged rows go (no alias leads to one any more) */
	pmu_remove_if(pmu, merged_away, into);
	free(d);
	free(into);
	pmu_sort(pmu);
	return merged;
}

struct enc_names {
	uint64_t config, config1, counters;
	const char *name;
};

static int cmp_enc_names(const void *a, const void *b)
{
	const struct enc_names *x = a, *y = b;
	if (x->config != y->config)
		return x->config < y->config ? -1 : 1;
	if (x->config1 != y->config1)
		return x->config1 < y->config1 ? -1 : 1;
	return strcmp(x->name, y->name);
}

int vendor_check(const struct perfmon_table *t, char *err, size_t len)
{
	/* counters lauka's masks hold: general 0-30 (catalog/pmu.h), fixed ones from PERFMON_FIXED_BASE */
	for (size_t i = 0; i < t->n; i++) {
		const struct perfmon_event *v = &t->events[i];
		if (v->fixed < 0 && (v->counters >> 31)) {
			lk_errbuf(err, len, "event '%s' names counter %d, beyond the 31 general counters lauka models",
				  v->name, 63 - __builtin_clzll(v->counters));
			return -LK_EINVAL;
		}
	}
	/* the names of one encoding must share a general counter: they are one event (adversarial-audit-5 D-13) */
	struct enc_names *v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct perfmon_event *e = &t->events[i];
		if (e->deprecated || e->fixed >= 0 || !e->counters)
			continue;
		v[n].config = linux_config(e);
		v[n].config1 = e->msr_index ? e->msr_value : 0;
		v[n].counters = e->counters;
		v[n++].name = e->name;
	}
	qsort(v, n, sizeof(*v), cmp_enc_names);
	int r = 0;
	for (size_t i = 0, head = 0; i < n && !r; i++) {
		if (i && (v[i].config != v[i - 1].config || v[i].config1 != v[i - 1].config1))
			head = i;
		uint64_t both = v[head].counters;
		for (size_t j = head + 1; j <= i; j++)
			both &= v[j].counters;
		if (!both) {
			lk_errbuf(err, len, "events '%s' and '%s' have one encoding but no counter in common", v[head].name,
				  v[i].name);
			r = -LK_EINVAL;
		}
	}
	free(v);
	return r;
}

void vendor_catalog(const struct perfmon_table *t, const char *name, struct lk_pmu *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = xstrdup("perfmon");
	out->name = xstrdup(name);
	out->marketing_name = xstrdup(t->info ? t->info : name);
	out->arch = xstrdup("x86_64");
	unsigned gp = t->gp ? t->gp : 4;
	out->config_mask = (UINT64_C(1) << (gp < 32 ? gp : 31)) - 1;
	if (t->nfixed && t->nfixed < 32)
		out->fixed_mask = ((UINT64_C(1) << t->nfixed) - 1) << PERFMON_FIXED_BASE;
	for (size_t i = 0; i < t->n; i++) {
		const struct perfmon_event *v = &t->events[i];
		if (v->deprecated)
			continue;
		struct lk_event ev = { .fixed_counter = -1, .perf_type = 4 /* PERF_TYPE_RAW */ };
		ev.name = v->name;
		ev.description = v->brief;
		ev.number = linux_config(v);
		/* the extra MSR's value (offcore response, load latency, frontend) is perf's config1 */
		ev.config1 = v->msr_index ? v->msr_value : 0;
		if (v->fixed >= 0) {
			ev.counters_mask = UINT64_C(1) << (PERFMON_FIXED_BASE + v->fixed);
			ev.fixed_counter = PERFMON_FIXED_BASE + v->fixed;
		} else {
			uint64_t a = v->counters & out->config_mask;
			ev.counters_mask = a ? a : out->config_mask;
		}
		pmu_add_event(out, &ev);
	}
	pmu_sort(out);
	vendor_merge_duplicates(out, t);
	pfmcat_generic_aliases(out, true);
	set_flags(out, t);
	pmu_sort(out);
}
