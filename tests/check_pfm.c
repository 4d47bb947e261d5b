/*
 * check_pfm.c: libpfm4's tables as lauka's catalogues (catalog/pfm.c).
 *
 * References, none of them lauka's own output:
 * - per-model event counts: an enumeration written here against libpfm4's
 *   public API (one event per umask, one for an event without umasks), and
 *   the counts the issue states for Skylake (437) and Zen 4 (303);
 * - encodings: Intel's published event tables (tests/fixtures/intel-perfmon/events.tsv,
 *   EventCode/UMask/CounterMask/Invert/EdgeDetect/AnyThread copied from intel/perfmon);
 * - perf strings: written out by hand from the PERFEVTSEL layout of the SDM.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "test-pmu.h"
#include "catalog/calib.h"
#include "catalog/pfm.h"
#include "catalog/pmu.h"

/* Pure: config -> perf stat's spelling. */
static const struct {
	bool intel;
	uint64_t config, config1;
	const char *want;
} strings[] = {
	{ true, 0x08d1, 0, "cpu/event=0xd1,umask=0x8/" },
	{ true, 0x060006a3, 0, "cpu/event=0xa3,umask=0x6,cmask=6/" },
	{ true, 0x0180010e, 0, "cpu/event=0xe,umask=0x1,inv,cmask=1/" },
	{ true, 0x01200148, 0, "cpu/event=0x48,umask=0x1,any,cmask=1/" },
	{ true, 0x000401c4, 0, "cpu/event=0xc4,umask=0x1,edge/" },
	{ true, 0x01b7, 0x10001, "cpu/config=0x1b7,config1=0x10001/" },
	{ true, 0x400000c0, 0, "cpu/event=0xc0,umask=0x0,cmask=64/" },
	{ true, 0x1000000c0, 0, "cpu/config=0x1000000c0/" },
	{ false, 0x1000000c0, 0, "cpu/event=0x1c0,umask=0x0/" },
	{ false, 0x0200c3, 0, "cpu/config=0x200c3/" },	/* bit 21 is not AMD's "any" */
};

START_TEST(test_perf_string)
{
	char buf[128];
	pfmcat_perf_string(strings[_i].intel, strings[_i].config, strings[_i].config1, buf, sizeof(buf));
	ck_assert_str_eq(buf, strings[_i].want);
}
END_TEST

/* Pure: Arm encodings, written out from the Arm ARM's PMUv3 event numbers (0x08 INST_RETIRED). */
START_TEST(test_arm_perf_string)
{
	char buf[64];
	pfmcat_arm_perf_string("armv8_pmuv3_0", 0x08, buf, sizeof(buf));
	ck_assert_str_eq(buf, "armv8_pmuv3_0/event=0x8/");
	pfmcat_arm_perf_string(NULL, 0x11, buf, sizeof(buf));
	ck_assert_str_eq(buf, "r11");
	ck_assert(pfmcat_is_arm("arm_ac57"));
	ck_assert(!pfmcat_is_arm("amd64_fam19h_zen4") && !pfmcat_is_arm("skl"));
}
END_TEST

/* Pure: the counters an encoding may use (Intel SDM 3B fixed counters; Linux FIXED_EVENT_CONSTRAINT). */
static const struct {
	bool intel;
	uint64_t config;
	unsigned gp, fixed;
	uint64_t mask;
	int fixed_counter;
} counters[] = {
	{ true, 0x08d1, 8, 3, 0xff, -1 },
	{ true, 0x00c0, 8, 3, 0xff | (1ULL << 32), -1 },	/* instructions: fixed 0 or any */
	{ true, 0x003c, 4, 3, 0x0f | (1ULL << 33), -1 },	/* core cycles: fixed 1 or any */
	{ true, 0x0300, 8, 3, 1ULL << 34, 34 },			/* reference cycles: fixed 2 only */
	{ true, 0x0400, 16, 4, 1ULL << 35, 35 },		/* topdown slots: fixed 3 only */
	{ true, 0x0400, 8, 3, 0xff, -1 },			/* no fixed counter 3 on Skylake */
	{ true, 0x01c0, 8, 3, 0xff, -1 },			/* INST_RETIRED.ALL is not the fixed event */
	{ true, 0x10000c0, 8, 3, 0xff, -1 },			/* nor is it with a cmask */
	{ false, 0x00c0, 6, 0, 0x3f, -1 },			/* AMD: no fixed counters */
};

START_TEST(test_counters)
{
	uint64_t mask;
	int fixed;
	pfmcat_counters(counters[_i].intel, counters[_i].config, counters[_i].gp, counters[_i].fixed, &mask, &fixed);
	ck_assert_uint_eq(mask, counters[_i].mask);
	ck_assert_int_eq(fixed, counters[_i].fixed_counter);
}
END_TEST

START_TEST(test_names)
{
	char *a = pfmcat_event_name("MEM_LOAD_RETIRED", "L1_MISS"), *b = pfmcat_event_name("UOPS_ISSUED", NULL);
	ck_assert_str_eq(a, "MEM_LOAD_RETIRED.L1_MISS");
	ck_assert_str_eq(b, "UOPS_ISSUED");
	free(a);
	free(b);
}
END_TEST


/*
 * perf's AMD names (issue 27): encodings as the Linux kernel's pmu-events tables give them
 * (tools/perf/pmu-events/arch/x86/amdzenN/FILE.json, fields EventCode and UMask, read for this
 * test), and the row libpfm4 4.13 has of that encoding.
 */
static const struct {
	const char *model, *name;
	unsigned code, umask;
	const char *row;	/* libpfm4's row of that encoding */
} perf_amd[] = {
	{ "amd64_fam17h_zen1", "ex_ret_instr", 0xc0, 0, "retired_instructions" },		/* amdzen1/core.json */
	{ "amd64_fam17h_zen1", "ex_tagged_ibs_ops.ibs_tagged_ops", 0x1cf, 0x1, "tagged_ibs_ops.ibs_tagged_ops" },
	{ "amd64_fam17h_zen1", "ls_not_halted_cyc", 0x76, 0, "cycles_not_in_halt" },		/* amdzen1/memory.json */
	{ "amd64_fam17h_zen1", "l2_cache_req_stat.ic_fill_miss", 0x64, 0x1,			/* amdzen1/cache.json */
	  "core_to_l2_cacheable_request_access_status.ic_fill_miss" },
	{ "amd64_fam17h_zen1", "fp_ret_sse_avx_ops.sp_add_sub_flops", 0x03, 0x1,		/* amdzen1/floating-point.json */
	  "retired_sse_avx_operations.sp_add_sub_flops" },
	{ "amd64_fam17h_zen2", "ex_ret_brn_misp", 0xc3, 0, "retired_branch_instructions_mispredicted" },	/* amdzen2/core.json */
	{ "amd64_fam17h_zen2", "ls_not_halted_cyc", 0x76, 0, "cycles_not_in_halt" },		/* amdzen2/memory.json */
	{ "amd64_fam17h_zen2", "ex_tagged_ibs_ops.ibs_tagged_ops", 0x1cf, 0x1, "tagged_ibs_ops.ibs_tagged_ops" },
	{ "amd64_fam19h_zen3", "ex_ret_brn_misp", 0xc3, 0, "retired_branch_instructions_mispredicted" },	/* amdzen3/core.json */
	{ "amd64_fam19h_zen3", "ls_not_halted_cyc", 0x76, 0, "cycles_not_in_halt" },		/* amdzen3/memory.json */
	{ "amd64_fam19h_zen3", "macro_ops_retired", 0xc1, 0, "retired_ops" },			/* amdzen3/recommended.json */
	{ "amd64_fam19h_zen3", "op_cache_hit_miss.op_cache_miss", 0x28f, 0x04, "op_cache_hit_miss.oc_miss" },	/* cache.json */
	{ "amd64_fam19h_zen4", "ex_ret_instr", 0xc0, 0, "retired_instructions" },		/* amdzen4/core.json */
	{ "amd64_fam19h_zen4", "ex_ret_brn_misp", 0xc3, 0, "retired_branch_instructions_mispredicted" },	/* branch.json */
	{ "amd64_fam19h_zen4", "ls_not_halted_p0_cyc.p0_freq_cyc", 0x120, 0x1,		/* amdzen4/core.json */
	  "p0_freq_cycles_not_in_halt.p0_freq_cycles" },
	{ "amd64_fam19h_zen4", "de_no_dispatch_per_slot.smt_contention", 0x1a0, 0x60,		/* amdzen4/other.json */
	  "dispatch_stalls_1.smt_contention" },
	{ "amd64_fam19h_zen4", "fp_ret_sse_avx_ops.all", 0x03, 0x1f, "retired_sse_avx_flops.any" },	/* floating-point.json */
	/* encodings libpfm4 4.13 has no row for: the names stay unknown, no row is invented */
	{ "amd64_fam19h_zen4", "l2_cache_req_stat.ic_dc_miss_in_l2", 0x64, 0x09, NULL },	/* amdzen4/cache.json */
	{ "amd64_fam17h_zen2", "fp_ret_sse_avx_ops.all", 0x03, 0xff, NULL },			/* amdzen2/floating-point.json */
};

/* The shipped table holds each name with the kernel's encoding. */
START_TEST(test_perf_amd_table)
{
	char *want = xasprintf("\n%s\t%s\t0x%03x\t0x%02x\n", perf_amd[_i].model, perf_amd[_i].name, perf_amd[_i].code,
			       perf_amd[_i].umask);
	ck_assert_msg(strstr(pfmcat_amd_perf_table(), want), "no line %s", want);
	free(want);
}
END_TEST

/* AMD's 12-bit event select: bits 0-7 and 32-35 of the raw config, the umask in 8-15. */
START_TEST(test_amd_config)
{
	ck_assert_uint_eq(pfmcat_amd_config(0xc0, 0), 0xc0);
	ck_assert_uint_eq(pfmcat_amd_config(0x64, 0x09), 0x964);
	ck_assert_uint_eq(pfmcat_amd_config(0x1a0, 0x60), 0x1000060a0ULL);
	ck_assert_uint_eq(pfmcat_amd_config(0x28f, 0x04), 0x20000048fULL);
}
END_TEST

/* The rules on a made-up catalogue: alias, already known, no row, name taken, other model, bad line. */
START_TEST(test_perf_names_rules)
{
	struct lk_pmu pmu = { .name = xstrdup("m") };
	static const struct { const char *name; unsigned code, umask; } rows[] = {
		{ "retired_instructions", 0xc0, 0 }, { "tagged.ops", 0x1cf, 1 }, { "cycles_not_in_halt", 0x76, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct lk_event ev = { .name = (char *)rows[i].name, .perf_type = 4, .fixed_counter = -1,
				       .number = pfmcat_amd_config(rows[i].code, rows[i].umask) };
		pmu_add_event(&pmu, &ev);
	}
	pmu_add_alias(&pmu, "taken_name", "cycles_not_in_halt");
	const char *table = "# comment\tm\tx\t0x0c0\t0x00\n"
			    "m\tex_ret_instr\t0x0c0\t0x00\n"
			    "m\tRETIRED_INSTRUCTIONS\t0x0c0\t0x00\n"
			    "m\tibs_ops\t0x1cf\t0x01\n"
			    "m\tnot_here\t0x0c1\t0x00\n"
			    "m\ttaken_name\t0x0c0\t0x00\n"
			    "other\tfoo\t0x076\t0x00\n"
			    "m\tbad\tzz\t0x00\n"
			    "m\tshort\t0x076\n";
	struct pfmcat_name_counts n;
	size_t rows_before = pmu.nevents;
	pfmcat_perf_names(&pmu, table, &n);
	ck_assert_uint_eq(n.added, 2);
	ck_assert_uint_eq(n.known, 1);
	ck_assert_uint_eq(n.no_row, 1);
	ck_assert_uint_eq(n.taken, 1);
	ck_assert_uint_eq(pmu.nevents, rows_before);	/* aliases add no rows */
	ck_assert_str_eq(pmu_find(&pmu, "EX_RET_INSTR")->name, "retired_instructions");
	ck_assert_str_eq(pmu_find(&pmu, "ibs_ops")->name, "tagged.ops");
	ck_assert_str_eq(pmu_find(&pmu, "taken_name")->name, "cycles_not_in_halt");
	ck_assert_ptr_null(pmu_find(&pmu, "not_here"));
	ck_assert_ptr_null(pmu_find(&pmu, "foo"));
	ck_assert_ptr_null(pmu_find(&pmu, "bad"));
	ck_assert_ptr_null(pmu_find(&pmu, "x"));
	pmu_release(&pmu);
}
END_TEST

#ifdef LAUKA_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>

/* The test's own count: libpfm4's public API, one event per umask attribute, one when there is none. */
static size_t count_model(const char *model)
{
	ck_assert_int_eq(pfm_initialize(), PFM_SUCCESS);
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi = { .size = sizeof(pi) };
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || strcmp(pi.name, model))
			continue;
		size_t total = 0;
		for (int e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
			pfm_event_info_t ei = { .size = sizeof(ei) };
			ck_assert_int_eq(pfm_get_event_info(e, PFM_OS_NONE, &ei), PFM_SUCCESS);
			size_t um = 0;
			for (int a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai = { .size = sizeof(ai) };
				ck_assert_int_eq(pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ai), PFM_SUCCESS);
				um += ai.type == PFM_ATTR_UMASK;
			}
			total += um ? um : 1;
		}
		return total;
	}
	ck_abort_msg("libpfm4 has no model %s", model);
	return 0;
}

struct enc { uint64_t config, config1; };

static int cmp_enc(const void *a, const void *b)
{
	const struct enc *x = a, *y = b;
	if (x->config != y->config)
		return x->config < y->config ? -1 : 1;
	return x->config1 < y->config1 ? -1 : x->config1 > y->config1;
}

/*
 * The test's own count of distinct encodings: every umask encoded through
 * libpfm4's API (as perf_event_open takes it), duplicates counted once.  Every
 * name must also lead to a row of lauka's catalogue.
 */
static size_t distinct_encodings(const char *model, const struct lk_pmu *pmu)
{
	ck_assert_int_eq(pfm_initialize(), PFM_SUCCESS);
	struct enc *v = NULL;
	size_t n = 0;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi = { .size = sizeof(pi) };
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || strcmp(pi.name, model))
			continue;
		for (int e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
			pfm_event_info_t ei = { .size = sizeof(ei) };
			ck_assert_int_eq(pfm_get_event_info(e, PFM_OS_NONE, &ei), PFM_SUCCESS);
			size_t um = 0;
			for (int a = 0; a <= ei.nattrs; a++) {
				char spec[256];
				if (a < ei.nattrs) {
					pfm_event_attr_info_t ai = { .size = sizeof(ai) };
					ck_assert_int_eq(pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ai), PFM_SUCCESS);
					if (ai.type != PFM_ATTR_UMASK)
						continue;
					um++;
					snprintf(spec, sizeof(spec), "%s::%s:%s", model, ei.name, ai.name);
				} else if (!um) {
					snprintf(spec, sizeof(spec), "%s::%s", model, ei.name);
				} else {
					continue;
				}
				struct perf_event_attr attr = { 0 };
				pfm_perf_encode_arg_t arg = { .size = sizeof(arg), .attr = &attr };
				ck_assert_int_eq(pfm_get_os_event_encoding(spec, PFM_PLM3, PFM_OS_PERF_EVENT, &arg), PFM_SUCCESS);
				/* event 0x00 beyond the fixed counters' pseudo-encodings (umask 1-4) is no event: left out,
				 * unless Intel's table corrected its encoding (ICX topdown.backend_bound_slots 0x0200 -> 0x02a4) */
				unsigned um8 = (unsigned)(attr.config >> 8 & 0xff);
				if (!(attr.config & 0xff) && !attr.config1 && (um8 < 1 || um8 > 4))
					continue;
				ck_assert_msg(pmu_find(pmu, spec) != NULL, "%s does not resolve", spec);
				v = xrealloc(v, (n + 1) * sizeof(*v));
				/* an offcore response's RSP_1 code (0xbb, 0x2b) with a value counts what 0xb7 / 0x2a does:
				 * one encoding (Intel lists both codes as one event; the kernel moves it between them) */
				uint64_t code = attr.config & 0xff;
				if (attr.config1 && (code == 0xbb || code == 0x2b))
					attr.config = (attr.config & ~0xffULL) | (code == 0xbb ? 0xb7 : 0x2a);
				v[n].config = attr.config;
				v[n++].config1 = attr.config1;
			}
		}
	}
	qsort(v, n, sizeof(*v), cmp_enc);
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += !i || cmp_enc(&v[i - 1], &v[i]);
	free(v);
	return d;
}

static const struct {
	const char *model;
	size_t stated;		/* the count the issue states, 0 = none stated */
	unsigned gp, fixed;
} models[] = {
	/* Intel's general counters per thread with Hyper-Threading on (catalog/intel-*.json), not libpfm4's 8/16/16 */
	{ "skl", 437, 4, 3 },
	{ "icl", 0, 8, 4 },
	{ "spr", 0, 8, 4 },
	{ "icx", 0, 8, 4 },	/* libpfm4: 16 */
	{ "skx", 0, 4, 3 },	/* libpfm4: 8 */
	{ "hsw", 0, 4, 3 },
	{ "amd64_fam19h_zen4", 303, 6, 0 },
	{ "amd64_fam17h_zen2", 0, 6, 0 },
};

START_TEST(test_model_counts)
{
	struct lk_pmu pmu;
	char err[256] = "";
	ck_assert_msg(pfmcat_catalog(models[_i].model, &pmu, err, sizeof(err)) == 0, "%s", err);
	size_t want = count_model(models[_i].model), vendor_only = 0, corrected = 0;
	if (models[_i].stated)
		ck_assert_uint_eq(want, models[_i].stated);
	/* One row per distinct encoding (libpfm4's umask aliases merged), plus Intel's events libpfm4 has
	 * no encoding for; each encoding Intel's table corrected may merge or part one more pair. */
	for (size_t i = 0; i < pmu.nevents; i++) {
		vendor_only += pmu.events[i].description && !strncmp(pmu.events[i].description, "(from Intel's table", 19);
		corrected += pmu.events[i].errata != NULL;
	}
	size_t distinct = distinct_encodings(models[_i].model, &pmu), rows = pmu.nevents - vendor_only;
	ck_assert_msg(rows + corrected >= distinct && rows <= distinct + corrected, "%s: %zu rows, %zu encodings, %zu corrected",
		      models[_i].model, rows, distinct, corrected);
	ck_assert_uint_le(rows, want);
	for (size_t i = 1; i < pmu.nevents; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(pmu.events[i].number != pmu.events[j].number ||
				      pmu.events[i].config1 != pmu.events[j].config1, "%s and %s share an encoding",
				      pmu.events[i].name, pmu.events[j].name);
	ck_assert_str_eq(pmu.kind, "pfm");
	ck_assert_str_eq(pmu.name, models[_i].model);
	ck_assert_uint_eq(pmu.config_mask, (1ULL << models[_i].gp) - 1);
	ck_assert_uint_eq(pmu.fixed_mask >> PFMCAT_FIXED_BASE, (1ULL << models[_i].fixed) - 1);
	char why[256];
	ck_assert_msg(pmu_validate(&pmu, why, sizeof(why)) == 0, "%s", why);
	for (size_t i = 0; i < pmu.nevents; i++)
		ck_assert_msg(pmu.events[i].perf_type == 4, "%s: type %u", pmu.events[i].name,
			      pmu.events[i].perf_type);	/* PERF_TYPE_RAW: every umask encodes */
	pmu_release(&pmu);
}
END_TEST

/* This Debian build of libpfm4 is x86 only: no ARM core model to count (reference/linux.md 2). */
START_TEST(test_no_arm_tables)
{
	ck_assert_int_eq(pfm_initialize(), PFM_SUCCESS);
	pfm_pmu_t p;
	size_t arm = 0;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi = { .size = sizeof(pi) };
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && !strncmp(pi.name, "arm_", 4))
			arm++;
	}
	ck_assert_uint_eq(arm, 0);
	char err[256], hex[65];
	ck_assert_int_eq(pfmcat_fingerprint("arm_n1", hex, err, sizeof(err)), -LK_ENOENT);
}
END_TEST

static unsigned long field(const char *s)
{
	return strtoul(s, NULL, 0);
}

/* Intel's published EventCode/UMask/CounterMask/Invert/EdgeDetect/AnyThread against what lauka opens. */
START_TEST(test_intel_tables)
{
	FILE *f = fopen(LAUKA_SRCDIR "/tests/fixtures/intel-perfmon/events.tsv", "r");
	ck_assert_ptr_nonnull(f);
	char line[512], err[256];
	struct lk_pmu skl, icl;
	ck_assert(pfmcat_catalog("skl", &skl, err, sizeof(err)) == 0);
	ck_assert(pfmcat_catalog("icl", &icl, err, sizeof(err)) == 0);
	size_t rows = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *col[8], *save = NULL;
		size_t n = 0;
		for (char *t = strtok_r(line, "\t\n", &save); t && n < 8; t = strtok_r(NULL, "\t\n", &save))
			col[n++] = t;
		ck_assert_uint_eq(n, 8);
		const struct lk_pmu *p = !strcmp(col[0], "skl") ? &skl : &icl;
		const struct lk_event *ev = pmu_find(p, col[1]);
		ck_assert_msg(ev != NULL, "%s: no event %s", col[0], col[1]);
		uint64_t c = ev->number;
		ck_assert_msg((c & 0xff) == field(col[2]), "%s EventCode", col[1]);
		ck_assert_msg(((c >> 8) & 0xff) == field(col[3]), "%s UMask", col[1]);
		ck_assert_msg(((c >> 24) & 0xff) == field(col[4]), "%s CounterMask", col[1]);
		ck_assert_msg(((c >> 23) & 1) == field(col[5]), "%s Invert", col[1]);
		ck_assert_msg(((c >> 18) & 1) == field(col[6]), "%s EdgeDetect", col[1]);
		ck_assert_msg(((c >> 21) & 1) == field(col[7]), "%s AnyThread", col[1]);
		ck_assert_uint_eq(ev->config1, 0);
		rows++;
	}
	fclose(f);
	ck_assert_uint_ge(rows, 15);
	/* Intel: TOPDOWN.SLOTS is "Fixed counter 3" only. */
	const struct lk_event *slots = pmu_find(&icl, "topdown.slots");
	ck_assert_int_eq(slots->fixed_counter, PFMCAT_FIXED_BASE + 3);
	pmu_release(&skl);
	pmu_release(&icl);
}
END_TEST

/* libpfm4's own spellings reach the same event; names are case-insensitive. */
START_TEST(test_aliases)
{
	struct lk_pmu skl;
	char err[256];
	ck_assert(pfmcat_catalog("skl", &skl, err, sizeof(err)) == 0);
	const struct lk_event *a = pmu_find(&skl, "mem_load_retired.l1_miss");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(pmu_find(&skl, "MEM_LOAD_RETIRED:L1_MISS"), a);
	ck_assert_ptr_eq(pmu_find(&skl, "skl::mem_load_retired:l1_miss"), a);
	ck_assert_ptr_null(pmu_find(&skl, "icl::MEM_LOAD_RETIRED:L1_MISS"));
	pmu_release(&skl);
}
END_TEST

/* Which names are libpfm4 events (for the error on a machine without the PMU), and of which model. */
static const struct {
	const char *name;
	const char *model;	/* NULL: not an event; "" any model */
} known[] = {
	{ "skl::MEM_LOAD_RETIRED:L1_MISS", "skl" },
	{ "SKL::mem_load_retired:l1_miss", "skl" },
	{ "icl::mem_load_retired.l3_miss", "icl" },
	{ "amd64_fam19h_zen4::retired_instructions", "amd64_fam19h_zen4" },
	{ "mem_load_retired.l1_miss", "" },
	{ "MEM_LOAD_RETIRED:L1_MISS", "" },
	{ "skl::RETIRED_INSTRUCTIONS", NULL },	/* Zen's name, not Skylake's */
	{ "MEM_LOAD_RETIRED", NULL },		/* needs a umask */
	{ "nosuch.thing", NULL },
	{ "cycles", NULL },			/* the generic perf table is not a core model */
	{ "EX_RET_INSTR", "" },			/* perf's AMD name (Linux amdzenN/core.json), an alias in each Zen model */
	{ "de_no_dispatch_per_slot.smt_contention", "amd64_fam19h_zen4" },	/* amdzen4/other.json only */
	{ "l2_cache_req_stat.ic_dc_miss_in_l2", NULL },	/* perf's, but libpfm4 has no row of its encoding */
	{ "", NULL },
};

START_TEST(test_known)
{
	char model[64] = "";
	bool k = pfmcat_known(known[_i].name, model, sizeof(model));
	ck_assert_msg(k == (known[_i].model != NULL), "%s: %d", known[_i].name, k);
	if (k && *known[_i].model)
		ck_assert_str_eq(model, known[_i].model);
}
END_TEST

/* Every vendor row of catalog/expectations.tsv names an event of some model (no dead rows). */
START_TEST(test_expectations_resolve)
{
	struct calib_expectations exp = { 0 };
	char err[256];
	ck_assert_int_eq(calib_expect_builtin(&exp, err, sizeof(err)), 0);
	static const char *const names[] = { "skl", "amd64_fam19h_zen4" };
	struct lk_pmu pmu[2];
	for (size_t m = 0; m < 2; m++)
		ck_assert(pfmcat_catalog(names[m], &pmu[m], err, sizeof(err)) == 0);
	size_t vendor = 0;
	for (size_t i = 0; i < exp.n; i++) {
		const char *ev = exp.rows[i].event;
		bool caps = true;
		for (const char *c = ev; *c; c++)
			caps &= !(*c >= 'a' && *c <= 'z');
		if (strcmp(exp.rows[i].kind, "any") || !caps)
			continue;
		vendor++;
		const struct lk_event *e0 = pmu_find(&pmu[0], ev), *e1 = pmu_find(&pmu[1], ev);
		ck_assert_msg(e0 || e1, "expectations.tsv: '%s' is in neither skl nor zen4", ev);
		const struct calib_expect *checks[16];
		ck_assert_uint_ge(calib_expect_for(&exp, e0 ? &pmu[0] : &pmu[1], e0 ? e0 : e1, checks, 16), 1);
	}
	ck_assert_uint_ge(vendor, 8);
	pmu_release(&pmu[0]);
	pmu_release(&pmu[1]);
	calib_expect_release(&exp);
}
END_TEST

/* LIBPFM_ENCODE_INACTIVE is set only while libpfm4 initialises. */
/* In libpfm4's AMD catalogues perf's names resolve to the row of the kernel's encoding, or stay unknown. */
START_TEST(test_perf_amd_resolve)
{
	struct lk_pmu pmu;
	char err[256] = "";
	ck_assert_msg(pfmcat_catalog(perf_amd[_i].model, &pmu, err, sizeof(err)) == 0, "%s", err);
	const struct lk_event *e = pmu_find(&pmu, perf_amd[_i].name);
	if (!perf_amd[_i].row) {
		ck_assert_msg(!e, "%s resolves to %s", perf_amd[_i].name, e ? e->name : "");
	} else {
		ck_assert_msg(e, "%s: %s unknown", perf_amd[_i].model, perf_amd[_i].name);
		ck_assert_msg(!lk_strcasecmp(e->name, perf_amd[_i].row), "%s is %s", perf_amd[_i].name, e->name);
		ck_assert_uint_eq(e->number, pfmcat_amd_config(perf_amd[_i].code, perf_amd[_i].umask));
		ck_assert_uint_eq(e->config1, 0);
	}
	/* every name of the table for this model: an alias of its encoding's row, or no such row */
	struct pfmcat_name_counts n;
	size_t rows = pmu.nevents;
	pfmcat_perf_names(&pmu, pfmcat_amd_perf_table(), &n);
	ck_assert_uint_eq(pmu.nevents, rows);
	ck_assert_uint_eq(n.added, 0);	/* all added already when the catalogue was built */
	ck_assert_uint_eq(n.taken, 0);	/* no perf name means another row in libpfm4 */
	ck_assert_uint_gt(n.known, 100);
	pmu_release(&pmu);
}
END_TEST

START_TEST(test_env_restored)
{
	unsetenv("LIBPFM_ENCODE_INACTIVE");
	char **names;
	size_t n;
	char err[256];
	ck_assert_int_eq(pfmcat_present(&names, &n, err, sizeof(err)), 0);
	pfmcat_names_free(names, n);
	ck_assert_ptr_null(getenv("LIBPFM_ENCODE_INACTIVE"));
	ck_assert(pfmcat_available());
	ck_assert_str_ne(pfmcat_version(), "");
}
END_TEST
#endif

/* Names bounded before libpfm4 (issue 31 D-2: its 65th modifier crashed it). */
START_TEST(test_name_bounds)
{
	ck_assert(pfmcat_name_ok("MEM_LOAD_RETIRED:L1_MISS"));
	ck_assert(pfmcat_name_ok("skl::INST_RETIRED:ANY:u=1:k=0:c=1:i=0:e=0"));
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "skl::INST_RETIRED");
	for (int k = 0; k < PFMCAT_MODIFIERS_MAX; k++)
		strbuf_addf(&sb, ":e");
	ck_assert(pfmcat_name_ok(strbuf_str(&sb)));
	strbuf_addf(&sb, ":e");
	ck_assert(!pfmcat_name_ok(strbuf_str(&sb)));
	strbuf_release(&sb);
	char longname[PFMCAT_NAME_MAX + 2];
	memset(longname, 'A', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert(!pfmcat_name_ok(longname));
	longname[PFMCAT_NAME_MAX - 1] = '\0';
	ck_assert(pfmcat_name_ok(longname));
	char model[64];
	ck_assert(!pfmcat_known("INST_RETIRED:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY:ANY",
				model, sizeof(model)));
}
END_TEST

/*
 * Raw x86 encodings no row has (catalog-audit-5 C13): an ad-hoc row under the model's default rule and the
 * kernel's constraint; what is not a PERFEVTSEL encoding is refused.  Pure: a hand-made catalogue.
 */
START_TEST(test_adhoc)
{
	static const struct { const char *model, *name; bool ok; uint64_t config, config1, mask; } c[] = {
		{ "icl", "cpu/event=0x9a,umask=0xff/", true, 0xff9a, 0, 0xff },
		{ "icl", "r0ff9a", true, 0xff9a, 0, 0xff },
		{ "icl", "cpu/event=0x9a,umask=0x1,cmask=1,inv,edge/", true, 0x18401 << 8 | 0x9a, 0, 0xff },
		{ "icl", "cpu/event=0xd1,umask=0x1,cmask=1/", true, 0x10001d1, 0, 0xf },	/* Linux: 0xd0-0xe6 on 0-3 */
		{ "icl", "r00c0", true, 0xc0, 0, 0xff | 1ULL << 32 },	/* instructions: fixed 0 too */
		{ "icl", "cpu/event=0xcd,umask=0x1,config1=0x4/", true, 0x1cd, 4, 0xff },
		{ "icl", "cpu/event=0x9a,umask=0x1,config1=0x4/", false, 0, 0, 0 },	/* no shared register */
		{ "icl", "r1099a", false, 0, 0, 0 },	/* usr (bit 16) is lauka's */
		{ "icl", "r1234567d1", false, 0, 0, 0 },	/* beyond 32 bits */
		{ "icl", "cpu/event=0x0,umask=0x5/", false, 0, 0, 0 },
		{ "icl", "mem_load_retired.l1_hit", false, 0, 0, 0 },
		{ "amd64_fam19h_zen4", "cpu/event=0x44,umask=0xff/", true, 0xff44, 0, 0x3f },
		{ "amd64_fam19h_zen4", "cpu/event=0x3,umask=0x1/", true, 0x103, 0, 0x15 | 1ULL << 63 },	/* a pair */
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct lk_pmu p;
		bool intel = strncmp(c[i].model, "amd", 3) != 0;
		test_pmu(&p, "pfm", c[i].model, "x86_64", intel ? 0xff : 0x3f, intel ? 0xfULL << 32 : 0);
		struct lk_event e;
		bool ok = pfmcat_adhoc(&p, c[i].name, &e);
		ck_assert_msg(ok == c[i].ok, "%s: %d", c[i].name, ok);
		if (ok) {
			ck_assert_str_eq(e.name, c[i].name);
			ck_assert_msg(e.number == c[i].config && e.config1 == c[i].config1 && e.counters_mask == c[i].mask,
				      "%s: config 0x%llx config1 0x%llx mask 0x%llx", c[i].name, (unsigned long long)e.number,
				      (unsigned long long)e.config1, (unsigned long long)e.counters_mask);
			ck_assert_int_eq((int)e.perf_type, 4);
			free(e.name);
			free(e.description);
		}
		pmu_release(&p);
	}
	struct lk_pmu arm;
	test_pmu(&arm, NULL, "arm_n1", "arm64", 0x3f, 0);
	struct lk_event e;
	ck_assert(!pfmcat_adhoc(&arm, "r23", &e));	/* Arm's raw events: pfmcat_arm_adhoc */
	pmu_release(&arm);
}
END_TEST

/*
 * perf's raw PMUv3 spellings on an Arm catalogue (`counters --check`, issue 36 P8): 16-bit event numbers
 * (PMEVTYPER<n>_EL0.evtCount), the general counters, CPU_CYCLES (0x11) also the cycle counter
 * (Linux arm_pmuv3.c armv8pmu_get_event_idx); anything else, and any x86 or kpep catalogue, refused.
 */
START_TEST(test_arm_adhoc)
{
	static const struct { const char *name; bool ok; uint64_t config, mask; } c[] = {
		{ "r23", true, 0x23, 0x3f },
		{ "r0", true, 0, 0x3f },			/* SW_INCR */
		{ "r023", true, 0x23, 0x3f },			/* named r23, as perf prints it */
		{ "rffff", true, 0xffff, 0x3f },
		{ "r10000", false, 0, 0 },			/* beyond 16 bits */
		{ "r11", true, 0x11, 0x3f | 1ULL << 32 },	/* CPU_CYCLES */
		{ "armv8_pmuv3/event=0x23/", true, 0x23, 0x3f },
		{ "armv8_cortex_a72/event=17/", true, 0x11, 0x3f | 1ULL << 32 },
		{ "armv8_pmuv3/event=0x10000/", false, 0, 0 },
		{ "armv8_pmuv3/event=0x23,foo=1/", false, 0, 0 },
		{ "armv8_pmuv3/event=/", false, 0, 0 },
		{ "armv8_pmuv3/event=-1/", false, 0, 0 },
		{ "armv8_pmuv3/event=0x23", false, 0, 0 },
		{ "/event=0x23/", false, 0, 0 },
		{ "ARMV8/event=1/", false, 0, 0 },
		{ "inst_retired", false, 0, 0 },
		{ "r23x", false, 0, 0 },
	};
	struct lk_pmu arm, x86, apple;
	test_pmu(&arm, "perfmon", "cortex-a72", "arm64", 0x3f, 1ULL << 32);
	test_pmu(&x86, "perfmon", "cortex-a72", "x86_64", 0x3f, 1ULL << 32);
	test_pmu(&apple, "kpep", "cortex-a72", "arm64", 0x3f, 1ULL << 32);	/* Apple's counters are not PMUv3's */
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct lk_event e;
		bool ok = pfmcat_arm_adhoc(&arm, c[i].name, &e);
		ck_assert_msg(ok == c[i].ok, "%s: %d", c[i].name, ok);
		if (ok) {
			ck_assert_str_eq(e.name, strcmp(c[i].name, "r023") ? c[i].name : "r23");
			ck_assert_msg(e.number == c[i].config && e.counters_mask == c[i].mask && e.fixed_counter == -1,
				      "%s: config 0x%llx mask 0x%llx", c[i].name, (unsigned long long)e.number,
				      (unsigned long long)e.counters_mask);
			ck_assert_int_eq((int)e.perf_type, 4);
			free(e.name);
			free(e.description);
		}
		ck_assert(!pfmcat_arm_adhoc(&x86, c[i].name, &e));
		ck_assert(!pfmcat_arm_adhoc(&apple, c[i].name, &e));
	}
	pmu_release(&arm);
	pmu_release(&x86);
	pmu_release(&apple);
}
END_TEST

Suite *pfm_suite(void)
{
	Suite *s = suite_create("pfm");
	TCase *tc = tcase_create("pfm");
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, test_perf_string, 0, (int)ARRAY_SIZE(strings));
	tcase_add_loop_test(tc, test_counters, 0, (int)ARRAY_SIZE(counters));
	tcase_add_test(tc, test_arm_perf_string);
	tcase_add_test(tc, test_adhoc);
	tcase_add_test(tc, test_arm_adhoc);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_name_bounds);
	tcase_add_loop_test(tc, test_perf_amd_table, 0, (int)ARRAY_SIZE(perf_amd));
	tcase_add_test(tc, test_amd_config);
	tcase_add_test(tc, test_perf_names_rules);
#ifdef LAUKA_HAVE_LIBPFM
	tcase_add_loop_test(tc, test_model_counts, 0, (int)ARRAY_SIZE(models));
	tcase_add_test(tc, test_no_arm_tables);
	tcase_add_test(tc, test_intel_tables);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_env_restored);
	tcase_add_loop_test(tc, test_perf_amd_resolve, 0, (int)ARRAY_SIZE(perf_amd));
	tcase_add_loop_test(tc, test_known, 0, (int)ARRAY_SIZE(known));
	tcase_add_test(tc, test_expectations_resolve);
#endif
	suite_add_tcase(s, tc);
	return s;
}
