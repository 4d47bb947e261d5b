/*
 * check_vendor.c: Intel perfmon tables (catalog/perfmon.c), laid over
 * libpfm4's rows (catalog/vendor.c), and the scheduler honouring per-event
 * counter masks, fixed counters and AMD's counter pairs (catalog/sched.c).
 *
 * References: the values are Intel's, read from its perfmon files at
 * github.com/intel/perfmon 6dadedf (SKL V59, ICL V1.24, SPR V1.39): the
 * event counts (564, 343, 411), Counter/CounterHTOff fields and encodings
 * quoted below; AMD's pair rule from Linux arch/x86/events/amd/core.c
 * (amd_is_pair_event_code: event 0x003; pair_constraint: even counters, the
 * odd one after it merged).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "test-pmu.h"
#include "catalog/perfmon.h"
#include "catalog/pfm.h"
#include "catalog/pmu.h"
#include "catalog/sched.h"
#include "catalog/vendor.h"

/* Counter fields as Intel writes them. */
static const struct {
	const char *s;
	int rc;
	uint64_t mask;
	int fixed;
} counter_fields[] = {
	{ "0,1,2,3", 0, 0xf, -1 },
	{ "0,1,2,3,4,5,6,7", 0, 0xff, -1 },
	{ "1,2,3,4,5,6,7", 0, 0xfe, -1 },	/* SPR, e.g. some PEBS events */
	{ "0,2,3", 0, 0xd, -1 },			/* SKL */
	{ "0", 0, 0x1, -1 },			/* SPR TOPDOWN.BAD_SPEC_SLOTS */
	{ "1", 0, 0x2, -1 },			/* SKL INST_RETIRED.PREC_DIST */
	{ "Fixed counter 0", 0, 1ULL << 32, 0 },
	{ "Fixed counter 3", 0, 1ULL << 35, 3 },
	{ "fixed counter 2", 0, 1ULL << 34, 2 },
	{ "32", -1, 0, -1 },
	{ "0,,1", -1, 0, -1 },
	{ "", -1, 0, -1 },
	{ "Fixed counter", -1, 0, -1 },
	{ "0,1 x", -1, 0, -1 },
};

START_TEST(test_counter_fields)
{
	uint64_t m;
	int f;
	ck_assert_int_eq(perfmon_counters(counter_fields[_i].s, &m, &f), counter_fields[_i].rc);
	if (counter_fields[_i].rc == 0) {
		ck_assert_uint_eq(m, counter_fields[_i].mask);
		ck_assert_int_eq(f, counter_fields[_i].fixed);
	}
}
END_TEST

#define LONG16 "ABCDEFGHIJKLMNOP"
#define LONG256 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16 LONG16

/* Whole files: what parses, what is refused (and where). */
static const struct {
	const char *json;
	int rc;
	size_t n;
	const char *err;	/* substring of the error */
} files[] = {
	{ "{\"Header\":{\"Info\":\"x - V1\",\"Version\":\"1\"},\"Events\":[]}", 0, 0, NULL },
	{ "{\"Events\":[{\"EventName\":\"A.B\",\"EventCode\":\"0xD1\",\"UMask\":\"0x01\",\"Counter\":\"0,1,2,3\"}]}", 0, 1, NULL },
	/* Intel's older files are a bare array; unknown fields of any type are skipped */
	{ "[{\"EventName\":\"A\",\"EventCode\":\"0x3C\",\"Counter\":\"Fixed counter 1\",\"X\":[1,{\"y\":null}],\"Z\":true}]", 0, 1, NULL },
	{ "{\"Events\":[{\"EventName\":\"A\",\"EventCode\":\"0xB7, 0xBB\",\"UMask\":\"0x01\",\"Counter\":\"0\"}]}", 0, 1, NULL },
	{ "{\"Events\":[{\"EventName\":\"A\\u00e9\",\"Counter\":\"0\"}]}", 0, 1, NULL },
	/* untrusted text (audit 5, D-5): control characters (C0, DEL, C1), NUL and invalid UTF-8 are refused */
	{ "{\"Events\":[{\"EventName\":\"A\\u00e9\\n\",\"Counter\":\"0\"}]}", -1, 0, "control character U+000A" },
	{ "{\"Header\":{\"Info\":\"x\\u001b]0;pwned\\u0007\"},\"Events\":[]}", -1, 0, "control character U+001B" },
	{ "{\"Events\":[{\"EventName\":\"EV\\u001b[31mRED.X\",\"Counter\":\"0\"}]}", -1, 0, "control character U+001B" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"0\",\"BriefDescription\":\"\\r\"}]}", -1, 0, "U+000D" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"0\",\"EventCode\":\"0x\\nfix: sudo rm -rf ~\"}]}", -1, 0, "U+000A" },
	{ "{\"Events\":[{\"EventName\":\"A\\u0085\",\"Counter\":\"0\"}]}", -1, 0, "control character U+0085" },
	{ "{\"Events\":[{\"EventName\":\"A\xc2\x9b\",\"Counter\":\"0\"}]}", -1, 0, "control character U+009B" },
	{ "{\"Events\":[{\"EventName\":\"A\x7f\",\"Counter\":\"0\"}]}", -1, 0, "control character U+007F" },
	{ "{\"Events\":[{\"EventName\":\"A\\u0000\",\"Counter\":\"0\"}]}", -1, 0, "NUL (U+0000)" },
	{ "{\"Events\":[{\"EventName\":\"A\t\",\"Counter\":\"0\"}]}", -1, 0, "U+0009" },
	{ "{\"Events\":[{\"EventName\":\"A\xff\",\"Counter\":\"0\"}]}", -1, 0, "not valid UTF-8" },
	{ "{\"Events\":[{\"EventName\":\"A\xc0\xaf\",\"Counter\":\"0\"}]}", -1, 0, "not valid UTF-8" },
	{ "{\"Events\":[{\"EventName\":\"A\xed\xa0\x80\",\"Counter\":\"0\"}]}", -1, 0, "not valid UTF-8" },
	{ "{\"Events\":[{\"EventName\":\"A\xe2\x82\",\"Counter\":\"0\"}]}", -1, 0, "not valid UTF-8" },
	{ "{\"Events\":[{\"EventName\":\"\xe2\x82\xac\xf0\x9f\x98\x80\",\"Counter\":\"0\"}]}", 0, 1, NULL },
	{ "{\"Events\":[{\"EventName\":\"" LONG256 "\",\"Counter\":\"0\"}]}", -1, 0, "at most 255 are allowed" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"0\"}", -1, 0, "expected ',' or ']'" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"0\"}]} x", -1, 0, "text after the end" },
	{ "{\"Header\":{}}", -1, 0, "no Events array" },
	{ "{\"Events\":[{\"EventName\":\"A\"}]}", -1, 0, "has no Counter" },
	{ "{\"Events\":[{\"Counter\":\"0\"}]}", -1, 0, "without EventName" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"9,99\"}]}", -1, 0, "not a list of counters" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"0\",\"UMask\":\"0x100\"}]}", -1, 0, "not a number" },
	{ "{\"Events\":[{\"EventName\":\"A\",\"Counter\":\"0\"},{\"EventName\":\"a\",\"Counter\":\"1\"}]}", -1, 0, "listed twice" },
	{ "{\"Events\":[{\"EventName\":\"A\\q\",\"Counter\":\"0\"}]}", -1, 0, "bad escape" },
	{ "{\"Events\":[{\"EventName\":\"\\ud800\",\"Counter\":\"0\"}]}", -1, 0, "surrogate" },
	{ "{\"Events\":\n[\n{\"EventName\":\"A\",\"Counter\":\"0\",}]}", -1, 0, "line 3" },
	{ "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", -1, 0, NULL },
	{ "", -1, 0, NULL },
};

START_TEST(test_files)
{
	struct perfmon_table t;
	char err[256] = "";
	int rc = perfmon_parse(files[_i].json, strlen(files[_i].json), &t, err, sizeof(err));
	ck_assert_msg(rc == files[_i].rc, "%s: rc %d (%s)", files[_i].json, rc, err);
	if (rc == 0) {
		ck_assert_uint_eq(t.n, files[_i].n);
		perfmon_release(&t);
	} else if (files[_i].err) {
		ck_assert_msg(strstr(err, files[_i].err), "%s: error '%s'", files[_i].json, err);
	}
}
END_TEST

/* The shipped tables: every event of Intel's files, and the counters Intel gives per thread. */
static const struct {
	const char *model;
	size_t events;
	unsigned gp, gp_htoff, nfixed;
	const char *version;
} shipped[] = {
	{ "skl", 564, 4, 8, 3, "59" },	/* Counter "0,1,2,3" (HT on), CounterHTOff up to 7 */
	{ "icl", 343, 8, 8, 4, "1.24" },
	{ "spr", 411, 8, 8, 4, "1.39" },
	/* --lean tables (scripts/perfmon-compact.py): no deprecated events, one offcore event per encoding */
	{ "icx", 271, 8, 8, 4, "1.30" },
	{ "skx", 325, 4, 8, 3, "1.37" },
	{ "clx", 328, 4, 8, 3, "1.25" },
	{ "hsw", 336, 4, 8, 3, "36" },
	{ "bdw", 342, 4, 8, 3, "30" },
	{ "tgl", 262, 8, 8, 4, "1.19" },
	{ "rkl", 273, 8, 8, 4, "1.04" },
};

START_TEST(test_shipped)
{
	size_t len;
	const char *text = vendor_builtin(shipped[_i].model, &len);
	ck_assert_ptr_nonnull(text);
	struct perfmon_table t;
	char err[256] = "";
	ck_assert_msg(perfmon_parse(text, len, &t, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(t.n, shipped[_i].events);
	ck_assert_uint_eq(t.gp, shipped[_i].gp);
	ck_assert_uint_eq(t.gp_htoff, shipped[_i].gp_htoff);
	ck_assert_uint_eq(t.nfixed, shipped[_i].nfixed);
	ck_assert_str_eq(t.version, shipped[_i].version);
	perfmon_release(&t);
	ck_assert_ptr_null(vendor_builtin("amd64_fam19h_zen4", &len));
}
END_TEST

/* Events as Intel's files give them. */
static const struct {
	const char *model, *name;
	uint64_t config, counters, htoff;
	int fixed;
} intel_rows[] = {
	{ "skl", "MEM_LOAD_RETIRED.L1_HIT", 0x01d1, 0xf, 0xf, -1 },
	{ "skl", "UOPS_RETIRED.TOTAL_CYCLES", 0x100002c2 | 1 << 23, 0xf, 0xff, -1 },	/* umask 2, cmask 16, inv */
	{ "skl", "INST_RETIRED.PREC_DIST", 0x01c0, 0x2, 0x2, -1 },
	{ "skl", "INST_RETIRED.ANY", 0x0100, 1ULL << 32, 1ULL << 32, 0 },
	{ "icl", "MEM_LOAD_MISC_RETIRED.UC", 0x04d4, 0xf, 0xf, -1 },
	{ "spr", "TOPDOWN.BAD_SPEC_SLOTS", 0x04a4, 0x1, 0x1, -1 },
	{ "spr", "TOPDOWN.SLOTS", 0x0400, 1ULL << 35, 1ULL << 35, 3 },
};

START_TEST(test_intel_rows)
{
	size_t len;
	const char *text = vendor_builtin(intel_rows[_i].model, &len);
	struct perfmon_table t;
	char err[256];
	ck_assert(perfmon_parse(text, len, &t, err, sizeof(err)) == 0);
	const struct perfmon_event *e = perfmon_find(&t, intel_rows[_i].name);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_eq(perfmon_find(&t, "mem_load_retired.l1_hit") ? e : e, e);	/* any case finds it */
	ck_assert_uint_eq(perfmon_config(e), intel_rows[_i].config);
	ck_assert_uint_eq(e->counters, intel_rows[_i].counters);
	ck_assert_uint_eq(e->counters_htoff, intel_rows[_i].htoff);
	ck_assert_int_eq(e->fixed, intel_rows[_i].fixed);
	perfmon_release(&t);
}
END_TEST

/* Intel's TakenAlone and PEBS fields survive the compaction (scripts/perfmon-compact.py) and are read. */
START_TEST(test_intel_flags)
{
	static const struct { const char *model, *name; bool alone; unsigned pebs; } f[] = {
		{ "skl", "FRONTEND_RETIRED.DSB_MISS", true, 1 }, { "skl", "FRONTEND_RETIRED.LATENCY_GE_1", true, 2 },
		{ "skl", "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", true, 2 }, { "skl", "INST_RETIRED.PREC_DIST", false, 2 },
		{ "skl", "MEM_LOAD_RETIRED.L1_HIT", false, 1 }, { "skl", "CPU_CLK_UNHALTED.THREAD_P", false, 0 },
		{ "spr", "UOPS_RETIRED.MS", true, 0 }, { "hsw", "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", true, 2 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		size_t len;
		const char *text = vendor_builtin(f[i].model, &len);
		struct perfmon_table t;
		char err[256];
		ck_assert(perfmon_parse(text, len, &t, err, sizeof(err)) == 0);
		const struct perfmon_event *e = perfmon_find(&t, f[i].name);
		ck_assert_msg(e != NULL, "%s", f[i].name);
		ck_assert_msg(e->taken_alone == f[i].alone && e->pebs == f[i].pebs, "%s %s: %d %u", f[i].model, f[i].name,
			      e->taken_alone, e->pebs);
		perfmon_release(&t);
	}
}
END_TEST

/* A libpfm4-like catalogue with its known faults, and a table that says otherwise. */
static void make_libpfm(struct lk_pmu *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = xstrdup("pfm");
	p->name = xstrdup("icl");
	p->source = xstrdup("libpfm4 4.13.0");
	p->config_mask = 0xffff;	/* libpfm4's 16 */
	p->fixed_mask = 0xfULL << 32;
	static const struct { const char *name; uint64_t config; } rows[] = {
		{ "MEM_LOAD_RETIRED.L1_HIT", 0x01d1 },
		{ "MEM_LOAD_MISC_RETIRED.UC", 0x04c4 },	/* libpfm4 4.13: event 0xc4, Intel 0xd4 */
		{ "INST_RETIRED.ANY", 0x00c0 },
		{ "INST_RETIRED.PREC_DIST", 0x01c0 },
		{ "UNHALTED_CORE_CYCLES", 0x003c },
		{ "BR_INST_RETIRED.COND", 0x11c4 },	/* a name Intel does not use, its encoding one Intel has */
		{ "ODD.THING", 0x99 },
		{ "KERNEL.RANGE", 0x77 },	/* Linux ICL: INTEL_EVENT_CONSTRAINT_RANGE(0x60, 0x8b, 0xf) */
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct lk_event e = { .name = (char *)rows[i].name, .number = rows[i].config, .perf_type = 4 };
		pfmcat_counters(true, e.number, 16, 4, &e.counters_mask, &e.fixed_counter);
		pmu_add_event(p, &e);
	}
	pmu_sort(p);
}

static const char table[] =
	"{\"Header\":{\"Version\":\"1.24\"},\"Events\":[\n"
	"{\"EventName\":\"INST_RETIRED.ANY\",\"EventCode\":\"0x00\",\"UMask\":\"0x01\",\"Counter\":\"Fixed counter 0\"},\n"
	"{\"EventName\":\"INST_RETIRED.PREC_DIST\",\"EventCode\":\"0x00\",\"UMask\":\"0x01\",\"Counter\":\"Fixed counter 0\"},\n"
	"{\"EventName\":\"CPU_CLK_UNHALTED.THREAD\",\"EventCode\":\"0x00\",\"UMask\":\"0x02\",\"Counter\":\"Fixed counter 1\"},\n"
	"{\"EventName\":\"TOPDOWN.SLOTS\",\"EventCode\":\"0x00\",\"UMask\":\"0x04\",\"Counter\":\"Fixed counter 3\"},\n"
	"{\"EventName\":\"MEM_LOAD_RETIRED.L1_HIT\",\"EventCode\":\"0xd1\",\"UMask\":\"0x01\",\"Counter\":\"0,1,2,3\"},\n"
	"{\"EventName\":\"MEM_LOAD_MISC_RETIRED.UC\",\"EventCode\":\"0xd4\",\"UMask\":\"0x04\",\"Counter\":\"0,1,2,3\"},\n"
	"{\"EventName\":\"BR_INST_RETIRED.COND_TAKEN\",\"EventCode\":\"0xc4\",\"UMask\":\"0x11\",\"Counter\":\"0,1,2,3,4,5,6,7\"},\n"
	"{\"EventName\":\"ARITH.DIVIDER_ACTIVE\",\"EventCode\":\"0x14\",\"UMask\":\"0x09\",\"CounterMask\":\"1\",\"Counter\":\"0,1,2,3,4,5,6,7\"}\n"
	"]}";

START_TEST(test_apply)
{
	struct lk_pmu p;
	make_libpfm(&p);
	struct perfmon_table t;
	char err[256];
	ck_assert(perfmon_parse(table, sizeof(table) - 1, &t, err, sizeof(err)) == 0);
	/* two corrected: mem_load_misc_retired.uc's event, and inst_retired.prec_dist opened as Linux's 0x00c0 */
	ck_assert_uint_eq(vendor_apply(&p, &t, "Intel's table (ICL V1.24)", false), 2);
	ck_assert_uint_eq(p.config_mask, 0xff);	/* Intel's 8, not libpfm4's 16 */
	const struct lk_event *e = pmu_find(&p, "mem_load_retired.l1_hit");
	ck_assert_uint_eq(e->counters_mask, 0xf);
	e = pmu_find(&p, "mem_load_misc_retired.uc");
	ck_assert_uint_eq(e->number, 0x04d4);
	ck_assert_ptr_nonnull(e->errata);
	ck_assert_msg(strstr(e->errata, "event=0xc4,umask=0x4") && strstr(e->errata, "event=0xd4,umask=0x4") &&
		      strstr(e->errata, "ICL V1.24"), "%s", e->errata);
	/* Intel's fixed counter 0 only, for both (libpfm4: 0x00c0 may use any general counter) */
	e = pmu_find(&p, "inst_retired.any");
	ck_assert_uint_eq(e->counters_mask, 1ULL << 32);
	ck_assert_int_eq(e->fixed_counter, 32);
	e = pmu_find(&p, "inst_retired.prec_dist");
	ck_assert_uint_eq(e->counters_mask, 1ULL << 32);
	/* libpfm4's 0x01c0 is no fixed counter's encoding for the kernel (a general counter): Linux's 0x00c0 */
	ck_assert_uint_eq(e->number, 0x00c0);
	ck_assert_ptr_nonnull(e->errata);
	/* a name by encoding: Intel's name is an alias of libpfm4's row */
	ck_assert_ptr_eq(pmu_find(&p, "br_inst_retired.cond_taken"), pmu_find(&p, "br_inst_retired.cond"));
	ck_assert_uint_eq(pmu_find(&p, "br_inst_retired.cond")->counters_mask, 0xff);
	ck_assert_ptr_eq(pmu_find(&p, "cpu_clk_unhalted.thread"), pmu_find(&p, "unhalted_core_cycles"));
	/* Intel's event libpfm4 lacks: a row of its own, described as such */
	e = pmu_find(&p, "arith.divider_active");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->number, 0x01000914);
	ck_assert_uint_eq(e->perf_type, 4);
	ck_assert_ptr_nonnull(strstr(e->description, "ICL V1.24"));
	/* Intel's pseudo-encoding of the slots counter is opened as Linux's 0x0400 */
	e = pmu_find(&p, "topdown.slots");
	ck_assert_uint_eq(e->number, 0x0400);
	ck_assert_int_eq(e->fixed_counter, 35);
	/* unknown to Intel: every general counter of Intel's figure */
	ck_assert_uint_eq(pmu_find(&p, "odd.thing")->counters_mask, 0xff);
	/* ... narrowed by the kernel's constraint table where it has an entry */
	ck_assert_uint_eq(pmu_find(&p, "kernel.range")->counters_mask, 0xf);
	char why[256];
	ck_assert_msg(pmu_validate(&p, why, sizeof(why)) == 0, "%s", why);
	perfmon_release(&t);
	pmu_release(&p);
}
END_TEST

/* Rows of one encoding are one row: the name Intel uses stays, the others are its aliases. */
/* Merging is linear in a group's size (adversarial-audit-5 D-6: 160,000 rows of one encoding took 24 s). */
/* Intel's mapfile.csv: the table by family-model(-stepping), not by libpfm4's model name. */
START_TEST(test_table_for)
{
	ck_assert_str_eq(vendor_table_for("icl", 6, 0x7e, 5), "icl");
	ck_assert_str_eq(vendor_table_for("icl", 6, 0x8c, 1), "tgl");	/* Tiger Lake: libpfm4 says icl */
	ck_assert_str_eq(vendor_table_for("icl", 6, 0x8d, 1), "tgl");
	ck_assert_str_eq(vendor_table_for("icl", 6, 0xa7, 1), "rkl");	/* Rocket Lake */
	ck_assert_str_eq(vendor_table_for("icl", 6, 0x6c, 1), "icx");	/* Ice Lake-D */
	ck_assert_str_eq(vendor_table_for("skx", 6, 0x55, 4), "skx");
	ck_assert_str_eq(vendor_table_for("skx", 6, 0x55, 7), "clx");	/* "GenuineIntel-6-55-[56789ABCDEF]" */
	ck_assert_str_eq(vendor_table_for("hsw", 6, 0x46, 1), "hsw");
	ck_assert_str_eq(vendor_table_for("bdw", 6, 0x47, 1), "bdw");
	ck_assert_str_eq(vendor_table_for("snb", 6, 0x2a, 7), "snb");	/* none: libpfm4's name */
	ck_assert_str_eq(vendor_table_for("amd64_fam19h_zen4", 0x19, 0x61, 2), "amd64_fam19h_zen4");
	size_t len;
	ck_assert_ptr_nonnull(vendor_builtin("tgl", &len));
	ck_assert_ptr_nonnull(vendor_builtin("rkl", &len));
}
END_TEST

START_TEST(test_merge_large)
{
	struct lk_pmu p;
	test_pmu(&p, "perfmon", "big", NULL, 0xf, 0);
	enum { N = 100000 };
	for (size_t i = 0; i < N; i++) {
		char name[32];
		snprintf(name, sizeof(name), "E%06zu", i);
		struct lk_event e = { .name = name, .number = 0xc0, .counters_mask = 0xf, .fixed_counter = -1, .perf_type = 4 };
		pmu_add_event(&p, &e);
	}
	pmu_sort(&p);
	ck_assert_uint_eq(vendor_merge_duplicates(&p, NULL), N - 1);
	ck_assert_uint_eq(p.nevents, 1);
	ck_assert_uint_eq(p.naliases, N - 1);
	pmu_release(&p);
}
END_TEST

START_TEST(test_merge)
{
	struct lk_pmu p;
	test_pmu(&p, "pfm", "skl", NULL, 0xf, 0);
	static const struct { const char *name; uint64_t config, mask; } rows[] = {
		{ "ARITH.FPU_DIV_ACTIVE", 0x01000114, 0xf }, { "ARITH.DIVIDER_ACTIVE", 0x01000114, 0x3 },
		{ "BR_INST_RETIRED.CONDITIONAL", 0x01c4, 0xf }, { "BR_INST_RETIRED.COND", 0x01c4, 0xf },
		{ "MEM_LOAD_RETIRED.L1_HIT", 0x01d1, 0xf },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct lk_event e = { .name = (char *)rows[i].name, .number = rows[i].config, .perf_type = 4,
				      .counters_mask = rows[i].mask, .fixed_counter = -1 };
		pmu_add_event(&p, &e);
		char *colon = xstrdup(rows[i].name);
		*strchr(colon, '.') = ':';
		pmu_add_alias(&p, colon, rows[i].name);
		free(colon);
	}
	pmu_sort(&p);
	static const char t_json[] = "{\"Events\":[{\"EventName\":\"ARITH.DIVIDER_ACTIVE\",\"EventCode\":\"0x14\","
				     "\"UMask\":\"0x01\",\"CounterMask\":\"1\",\"Counter\":\"0,1,2,3\"}]}";
	struct perfmon_table t;
	char err[256];
	ck_assert(perfmon_parse(t_json, sizeof(t_json) - 1, &t, err, sizeof(err)) == 0);
	ck_assert_uint_eq(vendor_merge_duplicates(&p, &t), 2);
	ck_assert_uint_eq(p.nevents, 3);
	const struct lk_event *d = pmu_find(&p, "arith.divider_active");
	ck_assert_str_eq(d->name, "ARITH.DIVIDER_ACTIVE");	/* Intel's name stays, though longer */
	ck_assert_ptr_eq(pmu_find(&p, "arith.fpu_div_active"), d);
	ck_assert_ptr_eq(pmu_find(&p, "ARITH:FPU_DIV_ACTIVE"), d);	/* its aliases follow */
	ck_assert_uint_eq(d->counters_mask, 0x3);	/* what both names allow */
	ck_assert_str_eq(pmu_find(&p, "br_inst_retired.conditional")->name, "BR_INST_RETIRED.COND");	/* shorter */
	char why[256];
	ck_assert_msg(pmu_validate(&p, why, sizeof(why)) == 0, "%s", why);
	ck_assert_uint_eq(vendor_merge_duplicates(&p, &t), 0);
	perfmon_release(&t);
	pmu_release(&p);
}
END_TEST

/* The catalogues lauka builds: --check's five mem_load_retired events on Skylake, and the rest of the audit. */
#ifdef LAUKA_HAVE_LIBPFM
static int check_set(const char *model, const char *const *names)
{
	struct lk_pmu p;
	char err[256];
	ck_assert_msg(pfmcat_catalog(model, &p, err, sizeof(err)) == 0, "%s", err);
	const struct lk_event *evs[16];
	size_t n = 0;
	for (; names[n]; n++) {
		evs[n] = pmu_find(&p, names[n]);
		ck_assert_msg(evs[n] != NULL, "%s: no %s", model, names[n]);
	}
	int counter[16];
	struct sched_conflict c;
	int rc = sched_assign(&p, evs, n, counter, &c);
	/* every assignment respects each event's mask, pairs take two counters */
	uint64_t used = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		ck_assert(evs[i]->counters_mask >> counter[i] & 1);
		uint64_t take = (evs[i]->counters_mask & SCHED_PAIR ? 3ULL : 1ULL) << counter[i];
		ck_assert_msg(!(used & take), "%s: counter %d twice", names[i], counter[i]);
		used |= take;
	}
	pmu_release(&p);
	return rc;
}

#define SET(...) ((const char *const[]){ __VA_ARGS__, NULL })
static const struct {
	const char *model;
	const char *const *names;
	int rc;
} sets[] = {
	/* Intel: Counter "0,1,2,3" for all five */
	{ "skl", SET("mem_load_retired.l1_hit", "mem_load_retired.l1_miss", "mem_load_retired.l2_hit",
		     "mem_load_retired.l2_miss", "mem_load_retired.l3_hit"), -LK_ESCHED },
	{ "skl", SET("mem_load_retired.l1_hit", "mem_load_retired.l1_miss", "mem_load_retired.l2_hit",
		     "mem_load_retired.l2_miss"), 0 },
	/* four general counters per thread with Hyper-Threading on, plus the fixed ones */
	{ "skl", SET("br_inst_retired.all_branches", "br_misp_retired.all_branches", "uops_issued.any",
		     "uops_retired.retire_slots", "inst_retired.any", "cpu_clk_unhalted.thread"), 0 },
	{ "skl", SET("br_inst_retired.all_branches", "br_misp_retired.all_branches", "uops_issued.any",
		     "uops_retired.retire_slots", "uops_executed.thread"), -LK_ESCHED },
	/* Intel's names resolve (libpfm4 spells them unhalted_core_cycles, instruction_retired) */
	{ "skl", SET("cpu_clk_unhalted.thread", "inst_retired.any", "cpu_clk_unhalted.ref_tsc"), 0 },
	/* SKL: INST_RETIRED.PREC_DIST on counter 1 only (Intel's Counter "1"), .any_p elsewhere */
	{ "skl", SET("inst_retired.prec_dist", "inst_retired.any_p"), 0 },
	/* ICL: eight general counters, not libpfm4's sixteen */
	{ "icl", SET("br_inst_retired.all_branches", "br_misp_retired.all_branches", "uops_issued.any",
		     "uops_retired.slots", "uops_executed.thread", "uops_dispatched.port_0", "uops_dispatched.port_1",
		     "uops_dispatched.port_5"), 0 },
	{ "icl", SET("br_inst_retired.all_branches", "br_misp_retired.all_branches", "uops_issued.any",
		     "uops_retired.slots", "uops_executed.thread", "uops_dispatched.port_0", "uops_dispatched.port_1",
		     "uops_dispatched.port_5", "uops_dispatched.port_6"), -LK_ESCHED },
	/* SPR: TOPDOWN.BAD_SPEC_SLOTS and TOPDOWN.BR_MISPREDICT_SLOTS, counter 0 only */
	{ "spr", SET("topdown.bad_spec_slots", "topdown.br_mispredict_slots"), -LK_ESCHED },
	{ "spr", SET("topdown.bad_spec_slots", "topdown.slots", "cpu_clk_unhalted.thread"), 0 },
	/* Zen 4: event 0x003 takes a pair; six counters hold three */
	{ "amd64_fam19h_zen4", SET("retired_sse_avx_flops.any", "retired_sse_avx_flops.mult_flops",
				   "retired_sse_avx_flops.div_flops", "retired_sse_avx_flops.mac_flops"), -LK_ESCHED },
	{ "amd64_fam19h_zen4", SET("retired_sse_avx_flops.any", "retired_sse_avx_flops.mult_flops",
				   "retired_sse_avx_flops.div_flops"), 0 },
	{ "amd64_fam19h_zen4", SET("retired_sse_avx_flops.any", "retired_sse_avx_flops.mult_flops",
				   "retired_sse_avx_flops.div_flops", "retired_instructions"), -LK_ESCHED },
	{ "amd64_fam19h_zen4", SET("retired_sse_avx_flops.any", "retired_sse_avx_flops.mult_flops",
				   "retired_instructions", "cycles_not_in_halt"), 0 },
	{ "amd64_fam19h_zen3", SET("retired_sse_avx_flops.any", "retired_sse_avx_flops.mult_flops",
				   "retired_instructions", "cycles_not_in_halt", "retired_branch_instructions"), -LK_ESCHED },
};
#undef SET

START_TEST(test_sets)
{
	int rc = check_set(sets[_i].model, sets[_i].names);
	ck_assert_msg(rc == sets[_i].rc, "%s set %d: rc %d", sets[_i].model, _i, rc);
}
END_TEST

/* Every pass of a whole-catalogue plan fits (masks, fixed counters, pairs), every event once. */
START_TEST(test_plans)
{
	static const char *const models[] = { "skl", "icl", "spr", "icx", "skx", "clx", "hsw", "bdw", "amd64_fam19h_zen4" };
	struct lk_pmu p;
	char err[256];
	ck_assert(pfmcat_catalog(models[_i], &p, err, sizeof(err)) == 0);
	const struct lk_event **evs = xcalloc(p.nevents, sizeof(*evs));
	size_t *pass_of = xcalloc(p.nevents, sizeof(*pass_of));
	for (size_t i = 0; i < p.nevents; i++)
		evs[i] = &p.events[i];
	size_t np = sched_passes(&p, evs, p.nevents, pass_of);
	const struct lk_event **sub = xcalloc(p.nevents, sizeof(*sub));
	int *counter = xcalloc(p.nevents, sizeof(*counter));
	for (size_t pass = 0; pass < np; pass++) {
		size_t k = 0;
		for (size_t i = 0; i < p.nevents; i++)
			if (pass_of[i] == pass)
				sub[k++] = evs[i];
		ck_assert_msg(sched_assign(&p, sub, k, counter, NULL) == 0, "%s pass %zu does not fit", models[_i], pass);
	}
	free(sub);
	free(counter);
	free(evs);
	free(pass_of);
	pmu_release(&p);
}
END_TEST
#endif

Suite *vendor_suite(void)
{
	Suite *s = suite_create("vendor");
	TCase *tc = tcase_create("vendor");
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, test_counter_fields, 0, (int)ARRAY_SIZE(counter_fields));
	tcase_add_loop_test(tc, test_files, 0, (int)ARRAY_SIZE(files));
	tcase_add_loop_test(tc, test_shipped, 0, (int)ARRAY_SIZE(shipped));
	tcase_add_test(tc, test_intel_flags);
	tcase_add_loop_test(tc, test_intel_rows, 0, (int)ARRAY_SIZE(intel_rows));
	tcase_add_test(tc, test_apply);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_merge_large);
	tcase_add_test(tc, test_table_for);
#ifdef LAUKA_HAVE_LIBPFM
	tcase_add_loop_test(tc, test_sets, 0, (int)ARRAY_SIZE(sets));
	tcase_add_loop_test(tc, test_plans, 0, 9);
#endif
	suite_add_tcase(s, tc);
	return s;
}
