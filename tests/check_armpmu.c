/*
 * check_armpmu.c: Arm's PMU event tables (catalog/armpmu.c) and how they are
 * laid over libpfm4's Arm rows or made into a catalogue (catalog/vendor-arm.c),
 * with the scheduler honouring PMUv3's cycle counter (catalog/sched.c).
 *
 * References: the values are Arm's, read from github.com/ARM-software/data
 * 6aeb4c8 (pmu/cortex-a57.json and the others shipped): event counts, the
 * events without a name (Cortex-A53's IMPLEMENTATION DEFINED 0xC0-0xE9),
 * "counters": 6, CPU_CYCLES = 17, CHAIN = 30 marked for_driver; the Arm
 * Architecture Reference Manual (D7: PMCCNTR_EL0 counts CPU_CYCLES only);
 * Linux drivers/perf/arm_pmuv3.c (armv8_pmuv3_perf_map for the generic names).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "catalog/armpmu.h"
#include "catalog/pfm.h"
#include "catalog/pmu.h"
#include "catalog/sched.h"
#include "catalog/vendor-arm.h"

#define CYCLE (1ULL << PFMCAT_FIXED_BASE)

/* The shipped tables against Arm's files (counted with python's json module from Arm's originals). */
static const struct {
	const char *model, *cpu;
	size_t events, named;
	unsigned counters;
} shipped[] = {
	{ "arm_ac53", "Cortex-A53", 59, 34, 6 },
	{ "arm_ac57", "Cortex-A57", 84, 84, 6 },
	{ "arm_n1", "Neoverse N1", 110, 110, 6 },
	{ "arm_n2", "Neoverse N2", 155, 155, 6 },
	{ "arm_v1", "Neoverse V1", 132, 132, 6 },
	{ "arm_v2", "Neoverse V2", 155, 155, 0 },	/* Arm's file has no "counters" */
};

START_TEST(test_shipped)
{
	size_t len;
	const char *text = vendor_arm_builtin(shipped[_i].model, &len);
	ck_assert_ptr_nonnull(text);
	struct armpmu_table t;
	char err[256] = "";
	ck_assert_msg(armpmu_parse(text, len, &t, err, sizeof(err)) == 0, "%s: %s", shipped[_i].model, err);
	ck_assert_str_eq(t.cpu, shipped[_i].cpu);
	ck_assert_uint_eq(t.n, shipped[_i].events);
	ck_assert_uint_eq(t.named, shipped[_i].named);
	ck_assert_uint_eq(t.counters, shipped[_i].counters);
	const struct armpmu_event *e = armpmu_find(&t, "cpu_cycles");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->code, 0x11);
	e = armpmu_find(&t, "INST_RETIRED");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->code, 0x08);
	e = armpmu_find(&t, "CHAIN");
	ck_assert_ptr_nonnull(e);
	ck_assert(e->for_driver);
	ck_assert_uint_eq(e->code, 0x1e);
	armpmu_release(&t);
}
END_TEST

/* Issue 36 P3: the tables by MIDR, for cores libpfm4 has no model for (A35, A72, A76) and the six. */
static const struct {
	const char *cpuid, *cpu;
	size_t events, named;
} by_midr[] = {
	{ "0x41d03", "Cortex-A53", 59, 34 }, { "0x41d04", "Cortex-A35", 63, 39 },
	{ "0x41d07", "Cortex-A57", 84, 84 }, { "0x41d08", "Cortex-A72", 84, 84 },
	{ "0x41d0b", "Cortex-A76", 107, 107 }, { "0x41d0c", "Neoverse N1", 110, 110 },
	{ "0x41d40", "Neoverse V1", 132, 132 }, { "0x41d49", "Neoverse N2", 155, 155 },
	{ "0x41d4f", "Neoverse V2", 155, 155 },
};

START_TEST(test_by_midr)
{
	size_t len;
	const char *text = vendor_arm_builtin_cpuid(by_midr[_i].cpuid, &len);
	ck_assert_ptr_nonnull(text);
	struct armpmu_table t;
	char err[256] = "";
	ck_assert_msg(armpmu_parse(text, len, &t, err, sizeof(err)) == 0, "%s: %s", by_midr[_i].cpuid, err);
	ck_assert_str_eq(t.cpu, by_midr[_i].cpu);
	ck_assert_str_eq(t.cpuid, by_midr[_i].cpuid);
	ck_assert_uint_eq(t.n, by_midr[_i].events);
	ck_assert_uint_eq(t.named, by_midr[_i].named);
	ck_assert_uint_eq(armpmu_find(&t, "CPU_CYCLES")->code, 0x11);
	ck_assert_uint_eq(armpmu_find(&t, "inst_retired")->code, 0x08);
	ck_assert_uint_eq(armpmu_find(&t, "br_mis_pred")->code, 0x10);
	/* the catalogue a perf catalogue gets from it: cycle counter for CPU_CYCLES alone */
	struct lk_pmu p;
	vendor_arm_catalog(&t, t.cpu, &p);
	ck_assert_uint_eq(pmu_find(&p, "cpu_cycles")->counters_mask, 0x3f | CYCLE);
	ck_assert_uint_eq(pmu_find(&p, "inst_retired")->counters_mask, 0x3f);
	pmu_release(&p);
	armpmu_release(&t);
	ck_assert_ptr_null(vendor_arm_builtin_cpuid("0x41d99", &len));
}
END_TEST

START_TEST(test_trm_name)
{
	size_t len;
	const char *text = vendor_arm_builtin("arm_ac57", &len);
	struct armpmu_table t;
	char err[256];
	ck_assert_int_eq(armpmu_parse(text, len, &t, err, sizeof(err)), 0);
	/* Cortex-A57's TRM says L1D_CACHE_LD for the architecture's L1D_CACHE_RD (0x40) */
	const struct armpmu_event *e = armpmu_find(&t, "l1d_cache_ld");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->name, "L1D_CACHE_RD");
	ck_assert_uint_eq(e->code, 0x40);
	ck_assert_ptr_null(armpmu_find(&t, "no_such_event"));
	ck_assert_ptr_null(vendor_arm_builtin("skl", &len));
	armpmu_release(&t);
}
END_TEST

/* Files as users may hand them over: Arm's own shape, and what must be refused. */
static const struct {
	const char *json;
	int rc;
	size_t n;
	const char *err;
} files[] = {
	{ "{\"cpu\": \"X\", \"counters\": 6, \"events\": []}", 0, 0, NULL },
	{ "{\"events\": [{\"code\": 17, \"name\": \"CPU_CYCLES\", \"refs\": [0, 2], \"x\": {\"y\": null}}]}", 0, 1, NULL },
	{ "{\"events\": [{\"code\": 192, \"description\": \"External memory request\"}]}", 0, 1, NULL },
	{ "{\"events\": [{\"code\": 65535, \"name\": \"TOP\"}]}", 0, 1, NULL },
	{ "{\"pmu_architecture\": \"pmuv3_p5\", \"events\": []}", 0, 0, NULL },
	{ "{\"events\": [{\"code\": 65536, \"name\": \"X\"}]}", -1, 0, "not an event number up to 65535" },
	{ "{\"events\": [{\"code\": -1, \"name\": \"X\"}]}", -1, 0, "not an event number" },
	{ "{\"events\": [{\"code\": 17.0, \"name\": \"X\"}]}", -1, 0, "not an event number" },
	{ "{\"events\": [{\"code\": \"0x11\", \"name\": \"X\"}]}", -1, 0, "not an event number" },
	{ "{\"events\": [{\"code\": 017, \"name\": \"X\"}]}", -1, 0, "not an event number" },
	{ "{\"events\": [{\"name\": \"X\"}]}", -1, 0, "has no code" },
	{ "{\"events\": [{\"code\": 1, \"name\": \"X\", \"architectural\": 1}]}", -1, 0, "not true or false" },
	{ "{\"events\": [{\"code\": 1, \"name\": \"X\"}, {\"code\": 2, \"name\": \"x\"}]}", -1, 0, "listed twice" },
	{ "{\"counters\": 0, \"events\": []}", -1, 0, "from 1 to 31" },
	{ "{\"counters\": 32, \"events\": []}", -1, 0, "from 1 to 31" },
	{ "{\"pmu_architecture\": \"pmuv2\", \"events\": []}", -1, 0, "PMUv3" },
	{ "{\"cpu\": \"X\"}", -1, 0, "no events array" },
	{ "{\"events\": {}}", -1, 0, "expected an array" },
	{ "{\"events\": [17]}", -1, 0, "not an object" },
	{ "{\"events\": [{\"code\": 1, \"name\": \"X\"}]", -1, 0, "expected ',' or '}'" },
	{ "{\"events\": []} x", -1, 0, "text after the end" },
	{ "{\"events\": [{\"code\": 1, \"name\": \"X\001\"}]}", -1, 0, "control character" },
	{ "", -1, 0, "expected an object" },
};

START_TEST(test_files)
{
	struct armpmu_table t;
	char err[256] = "";
	int rc = armpmu_parse(files[_i].json, strlen(files[_i].json), &t, err, sizeof(err));
	ck_assert_msg(rc == files[_i].rc, "%s: rc %d (%s)", files[_i].json, rc, err);
	if (rc == 0) {
		ck_assert_uint_eq(t.n, files[_i].n);
		armpmu_release(&t);
	} else {
		ck_assert_msg(strstr(err, files[_i].err), "%s: error '%s'", files[_i].json, err);
	}
}
END_TEST

static const char table[] =
	"{\"cpu\": \"Test-A1\", \"counters\": 4, \"events\": ["
	"{\"code\": 3, \"name\": \"L1D_CACHE_REFILL\"},"
	"{\"code\": 8, \"name\": \"INST_RETIRED\", \"architectural\": true},"
	"{\"code\": 16, \"name\": \"BR_MIS_PRED\", \"description\": \"Mispredicted branch\"},"
	"{\"code\": 17, \"name\": \"CPU_CYCLES\"},"
	"{\"code\": 30, \"name\": \"CHAIN\", \"for_driver\": true},"
	"{\"code\": 43, \"name\": \"L3D_CACHE\", \"description\": \"L3 access\"},"
	"{\"code\": 64, \"name\": \"L1D_CACHE_RD\", \"trm_name\": \"L1D_CACHE_LD\"},"
	"{\"code\": 192, \"description\": \"unnamed\"}]}";

/* A catalogue shaped as libpfm4 gives an Arm model (its own names, raw numbers, 6 counters). */
static void libpfm_like(struct lk_pmu *p)
{
	static const struct { const char *name; uint64_t number; } rows[] = {
		{ "inst_retired", 0x08 }, { "cpu_cycles", 0x11 }, { "branch_mispred", 0x10 },
		{ "l1d_cache_refill", 0x05 },	/* a wrong number under Arm's name */
		{ "ldst_spec", 0x72 },		/* a number Arm's table does not list */
		{ "l1d_read_access", 0x40 },
		{ "counter_overflow", 0x1e },	/* CHAIN under libpfm4's N2/V1/V2 name: never a row */
	};
	memset(p, 0, sizeof(*p));
	p->kind = xstrdup("pfm");
	p->name = xstrdup("arm_test");
	p->arch = xstrdup("arm64");
	p->source = xstrdup("libpfm4 4.13.0");
	p->config_mask = 0x3f;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct lk_event e = { .fixed_counter = -1, .perf_type = 4 };
		e.name = (char *)rows[i].name;
		e.number = rows[i].number;
		e.counters_mask = 0x3f;
		pmu_add_event(p, &e);
	}
	pmu_sort(p);
}

START_TEST(test_apply)
{
	struct armpmu_table t;
	char err[256];
	ck_assert_int_eq(armpmu_parse(table, strlen(table), &t, err, sizeof(err)), 0);
	struct lk_pmu p;
	libpfm_like(&p);
	ck_assert_uint_eq(vendor_arm_apply(&p, &t, "Arm's table (Test-A1)"), 1);
	ck_assert_uint_eq(p.config_mask, 0xf);	/* the table's 4 counters, not libpfm4's 6 */
	ck_assert_uint_eq(p.fixed_mask, CYCLE);
	const struct lk_event *e = pmu_find(&p, "l1d_cache_refill");
	ck_assert_uint_eq(e->number, 0x03);
	ck_assert_ptr_nonnull(strstr(e->errata, "numbers it 0x5; Arm's table (Test-A1) has 0x3"));
	e = pmu_find(&p, "ldst_spec");
	ck_assert_uint_eq(e->number, 0x72);
	ck_assert_ptr_nonnull(strstr(e->errata, "lists no event 0x72"));
	/* CPU_CYCLES may take the cycle counter; nothing else may */
	ck_assert_uint_eq(pmu_find(&p, "cpu_cycles")->counters_mask, 0xf | CYCLE);
	ck_assert_uint_eq(pmu_find(&p, "inst_retired")->counters_mask, 0xf);
	/* Arm's names: aliases of libpfm4's row of the same number; new rows for numbers libpfm4 lacks */
	ck_assert_str_eq(pmu_find(&p, "BR_MIS_PRED")->name, "branch_mispred");
	ck_assert_str_eq(pmu_find(&p, "L1D_CACHE_LD")->name, "l1d_read_access");
	ck_assert_str_eq(pmu_find(&p, "L1D_CACHE_RD")->name, "l1d_read_access");
	e = pmu_find(&p, "l3d_cache");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->number, 43);
	ck_assert_ptr_nonnull(strstr(e->description, "L3 access (from Arm's table (Test-A1)"));
	ck_assert_ptr_null(pmu_find(&p, "chain"));
	ck_assert_ptr_null(pmu_find(&p, "counter_overflow"));
	ck_assert_uint_eq(p.nevents, 7);
	pmu_release(&p);
	armpmu_release(&t);
}
END_TEST

/* Cortex-A53's IMPDEF events carry the names Linux's pmu-events give them (catalog-audit-5 C12). */
START_TEST(test_a53_kernel_names)
{
	struct armpmu_table t;
	char err[256];
	ck_assert_int_eq(armpmu_parse(table, strlen(table), &t, err, sizeof(err)), 0);
	struct lk_pmu p;
	libpfm_like(&p);
	free(p.name);
	p.name = xstrdup("arm_ac53");
	struct lk_event e = { .fixed_counter = -1, .perf_type = 4, .name = (char *)"impdef_c0", .number = 0xc0,
			      .counters_mask = 0x3f };
	pmu_add_event(&p, &e);
	pmu_sort(&p);
	vendor_arm_apply(&p, &t, "Arm's table (Test-A1)");
	ck_assert_str_eq(pmu_find(&p, "EXT_MEM_REQ")->name, "impdef_c0");	/* an alias of libpfm4's row */
	const struct lk_event *m = pmu_find(&p, "br_cond_mispred");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->number, 0xcc);
	ck_assert_uint_eq(pmu_find(&p, "st_dep_stall")->number, 0xe8);
	char why[256];
	ck_assert_msg(pmu_validate(&p, why, sizeof(why)) == 0, "%s", why);
	pmu_release(&p);
	armpmu_release(&t);
}
END_TEST

START_TEST(test_catalog)
{
	struct armpmu_table t;
	char err[256];
	ck_assert_int_eq(armpmu_parse(table, strlen(table), &t, err, sizeof(err)), 0);
	struct lk_pmu p;
	vendor_arm_catalog(&t, "test-a1", &p);
	ck_assert_str_eq(p.arch, "arm64");
	ck_assert_str_eq(p.marketing_name, "Test-A1");
	ck_assert_uint_eq(p.nevents, 6);	/* not CHAIN, not the unnamed one */
	ck_assert_ptr_null(pmu_find(&p, "CHAIN"));
	/* perf's generic names, as Linux's PMUv3 driver maps them */
	static const struct { const char *alias, *event; } generic[] = {
		{ "cycles", "CPU_CYCLES" }, { "instructions", "INST_RETIRED" },
		{ "branch-misses", "BR_MIS_PRED" }, { "cache-misses", "L1D_CACHE_REFILL" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(generic); i++)
		ck_assert_str_eq(pmu_find(&p, generic[i].alias)->name, generic[i].event);
	ck_assert_ptr_null(pmu_find(&p, "cache-references"));	/* no L1D_CACHE row */
	ck_assert_str_eq(pmu_find(&p, "L1D_CACHE_LD")->name, "L1D_CACHE_RD");

	/* 4 general counters + the cycle counter: cycles and four others fit, a fifth other does not */
	const char *fits[] = { "cycles", "instructions", "branch-misses", "cache-misses", "L3D_CACHE" };
	const char *over[] = { "instructions", "branch-misses", "cache-misses", "L3D_CACHE", "L1D_CACHE_RD" };
	const struct lk_event *evs[5];
	int counter[5];
	for (size_t i = 0; i < 5; i++)
		evs[i] = pmu_find(&p, fits[i]);
	ck_assert_int_eq(sched_assign(&p, evs, 5, counter, NULL), 0);
	ck_assert_int_eq(counter[0], PFMCAT_FIXED_BASE);
	for (size_t i = 0; i < 5; i++)
		evs[i] = pmu_find(&p, over[i]);
	ck_assert_int_lt(sched_assign(&p, evs, 5, counter, NULL), 0);
	pmu_release(&p);
	armpmu_release(&t);
}
END_TEST

/* Arm or Intel: a top-level "events" key only (audit 5): not the word in a description or a nested object. */
START_TEST(test_sniff)
{
	static const char *const arm[] = {
		"{\"cpu\":\"x\",\"events\":[]}", " {\"counters\":6, \"events\" : [{\"code\":17}]}",
	};
	static const char *const intel[] = {
		"{\"Events\":[{\"EventName\":\"A\",\"BriefDescription\":\"counts \\\"events\\\"\"}]}",
		"{\"Header\":{\"events\":1},\"Events\":[]}", "[{\"EventName\":\"events\"}]", "\"events\"",
	};
	for (size_t i = 0; i < ARRAY_SIZE(arm); i++)
		ck_assert_msg(armpmu_sniff(arm[i], strlen(arm[i])), "%s: not taken for Arm", arm[i]);
	for (size_t i = 0; i < ARRAY_SIZE(intel); i++)
		ck_assert_msg(!armpmu_sniff(intel[i], strlen(intel[i])), "%s: taken for Arm", intel[i]);
}
END_TEST

Suite *armpmu_suite(void)
{
	Suite *s = suite_create("armpmu");
	TCase *tc = tcase_create("armpmu");
	tcase_add_loop_test(tc, test_shipped, 0, (int)ARRAY_SIZE(shipped));
	tcase_add_test(tc, test_trm_name);
	tcase_add_loop_test(tc, test_by_midr, 0, (int)ARRAY_SIZE(by_midr));
	tcase_add_loop_test(tc, test_files, 0, (int)ARRAY_SIZE(files));
	tcase_add_test(tc, test_apply);
	tcase_add_test(tc, test_a53_kernel_names);
	tcase_add_test(tc, test_catalog);
	tcase_add_test(tc, test_sniff);
	suite_add_tcase(s, tc);
	return s;
}
