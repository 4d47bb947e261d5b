/* check_sched.c: counter assignment, conflicts, passes and incompat labels on M1-like and M4-like masks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "catalog/kpep.h"
#include "catalog/sched.h"
#include "base/util.h"
#include "test-pmu.h"

/* An M1-like catalogue (masks as in a14.plist, kpep.md 3.2), or M4-like when m4 is set. */
static void make_pmu(struct lk_pmu *p, bool m4)
{
	static const struct {
		const char *name;
		uint64_t mask;
	} evs[] = {
		{ "INST_ALL", 0x80 }, { "RETIRE_UOP", 0x80 }, { "INST_INT_ALU", 0x80 }, { "INST_LDST", 0x80 },
		{ "INST_BRANCH", 0xe0 }, { "INST_BRANCH_TAKEN", 0xe0 }, { "L1D_CACHE_MISS_LD_NONSPEC", 0xe0 },
		{ "BRANCH_MISPRED_NONSPEC", 0xe0 }, { "L1D_TLB_MISS_NONSPEC", 0xe0 },
		{ "CORE_ACTIVE_CYCLE", 0x3fc }, { "L1D_CACHE_MISS_LD", 0x3fc }, { "MAP_STALL", 0x3fc },
		{ "L1I_TLB_FILL", 0x3fc }, { "L2_TLB_MISS_DATA", 0x3fc }, { "INST_INT_LD", 0x3fc },
		{ "SCHEDULE_UOP", 0x3fc }, { "FETCH_RESTART", 0x3fc }, { "L1D_TLB_ACCESS", 0x3fc },
	};
	memset(p, 0, sizeof(*p));
	p->kind = xstrdup("kpep");
	p->name = xstrdup(m4 ? "m4like" : "m1like");
	p->marketing_name = xstrdup("Test M1");
	p->fixed_mask = 0x3;
	p->config_mask = 0x3fc;
	p->power_mask = 0xe0;
	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		struct lk_event e = { .name = (char *)evs[i].name, .number = i + 1, .counters_mask = evs[i].mask,
				      .fixed_counter = -1 };
		if (m4 && (!strcmp(e.name, "INST_ALL") || !strcmp(e.name, "RETIRE_UOP") || e.counters_mask == 0xe0))
			e.counters_mask = 0xfc;
		pmu_add_event(p, &e);
	}
	struct lk_event fc = { .name = "FIXED_CYCLES", .counters_mask = 0x1, .fixed_counter = 0 };
	struct lk_event fi = { .name = "FIXED_INSTRUCTIONS", .counters_mask = 0x2, .fixed_counter = 1,
			       .fallback = "INST_ALL" };
	pmu_add_event(p, &fc);
	pmu_add_event(p, &fi);
	pmu_add_alias(p, "Cycles", "FIXED_CYCLES");
	pmu_add_alias(p, "Instructions", "FIXED_INSTRUCTIONS");
}

static size_t pick(const struct lk_pmu *p, const char *const *names, const struct lk_event **out)
{
	size_t n = 0;
	for (; names[n]; n++) {
		out[n] = pmu_find(p, names[n]);
		ck_assert_msg(out[n] != NULL, "no %s", names[n]);
	}
	return n;
}

static int counter_of(const struct lk_event *const *evs, const int *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(evs[i]->name, name))
			return c[i];
	return -2;
}

/* Every permutation (rotations and reversals) gives the same event -> counter map and conflict set. */
static void check_order_independent(const struct lk_pmu *p, const struct lk_event **evs, size_t n, int want_rc)
{
	int base[32], c[32];
	struct sched_conflict bc, cc;
	ck_assert_int_eq(sched_assign(p, evs, n, base, &bc), want_rc);
	const struct lk_event *perm[32];
	for (size_t rot = 0; rot < 2 * n; rot++) {
		for (size_t i = 0; i < n; i++)
			perm[i] = evs[(rot < n ? i + rot : n - 1 - i + rot) % n];
		ck_assert_int_eq(sched_assign(p, perm, n, c, &cc), want_rc);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(counter_of(perm, c, n, perm[i]->name), counter_of(evs, base, n, perm[i]->name));
		ck_assert_uint_eq(cc.n, bc.n);
		for (size_t i = 0; i < cc.n; i++) {
			bool found = false;
			for (size_t j = 0; j < bc.n; j++)
				found |= perm[cc.idx[i]] == evs[bc.idx[j]];
			ck_assert(found);
		}
	}
}

START_TEST(test_three_e0_plus_inst_all)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	const char *names[] = { "inst_branch", "core_active_cycle", "l1d_cache_miss_ld_nonspec", "Cycles",
				"INST_ALL", "branch_mispred_nonspec", NULL };
	const struct lk_event *evs[8];
	size_t n = pick(&p, names, evs);
	int c[8];
	struct sched_conflict conf;
	ck_assert_int_eq(sched_assign(&p, evs, n, c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 4);	/* the three 0xE0 events and INST_ALL, not the bystanders */
	ck_assert_uint_eq(conf.idx[0], 0);
	ck_assert_uint_eq(conf.idx[1], 2);
	ck_assert_uint_eq(conf.idx[2], 4);
	ck_assert_uint_eq(conf.idx[3], 5);
	check_order_independent(&p, evs, n, -LK_ESCHED);

	/* Without INST_ALL the three fit on PMC5-7. */
	const char *fit[] = { "inst_branch", "l1d_cache_miss_ld_nonspec", "branch_mispred_nonspec", NULL };
	n = pick(&p, fit, evs);
	ck_assert_int_eq(sched_assign(&p, evs, n, c, NULL), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert(c[i] >= 5 && c[i] <= 7);
	pmu_release(&p);
}
END_TEST

START_TEST(test_pair_conflict)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	const char *names[] = { "core_active_cycle", "retire_uop", "map_stall", "inst_all", NULL };
	const struct lk_event *evs[8];
	size_t n = pick(&p, names, evs);
	int c[8];
	struct sched_conflict conf;
	ck_assert_int_eq(sched_assign(&p, evs, n, c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 2);
	ck_assert_uint_eq(conf.idx[0], 1);
	ck_assert_uint_eq(conf.idx[1], 3);
	check_order_independent(&p, evs, n, -LK_ESCHED);
	pmu_release(&p);
}
END_TEST

START_TEST(test_ten_fit)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	/* 8 default-mask events plus the 2 fixed ones: all ten counters. */
	const char *names[] = { "core_active_cycle", "l1d_cache_miss_ld", "map_stall", "l1i_tlb_fill",
				"l2_tlb_miss_data", "inst_int_ld", "schedule_uop", "fetch_restart",
				"fixed_cycles", "fixed_instructions", NULL };
	const struct lk_event *evs[12];
	size_t n = pick(&p, names, evs);
	int c[12];
	ck_assert_int_eq(sched_assign(&p, evs, n, c, NULL), 0);
	uint64_t used = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert(c[i] >= 0 && c[i] < 10);
		ck_assert(!(used >> c[i] & 1));
		used |= UINT64_C(1) << c[i];
	}
	ck_assert_int_eq(c[8], 0);
	ck_assert_int_eq(c[9], 1);
	check_order_independent(&p, evs, n, 0);

	/* An eleventh does not fit: the nine default-mask events conflict. */
	evs[n] = pmu_find(&p, "l1d_tlb_access");
	struct sched_conflict conf;
	ck_assert_int_eq(sched_assign(&p, evs, n + 1, c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 9);
	pmu_release(&p);
}
END_TEST

START_TEST(test_fixed_fallback)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	const struct lk_event *evs[4];
	int c[4];
	struct sched_conflict conf;
	/* With PMC1 unavailable, FIXED_INSTRUCTIONS is counted as INST_ALL on PMC7 ... */
	p.fixed_mask = 0x1;
	evs[0] = pmu_find(&p, "instructions");
	ck_assert_str_eq(evs[0]->name, "FIXED_INSTRUCTIONS");
	ck_assert_int_eq(sched_assign(&p, evs, 1, c, NULL), 0);
	ck_assert_int_eq(c[0], 7);
	/* ... so it then conflicts with INST_ALL itself. */
	evs[1] = pmu_find(&p, "inst_all");
	ck_assert_int_eq(sched_assign(&p, evs, 2, c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 2);
	/* FIXED_CYCLES has no fallback: without PMC0 it cannot be counted at all. */
	p.fixed_mask = 0x2;
	evs[0] = pmu_find(&p, "fixed_cycles");
	ck_assert_int_eq(sched_assign(&p, evs, 1, c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 1);
	/* With the fixed counters there, both use them and INST_ALL keeps PMC7. */
	p.fixed_mask = 0x3;
	evs[0] = pmu_find(&p, "fixed_instructions");
	evs[2] = pmu_find(&p, "fixed_cycles");
	ck_assert_int_eq(sched_assign(&p, evs, 3, c, NULL), 0);
	ck_assert_int_eq(c[0], 1);
	ck_assert_int_eq(c[1], 7);
	ck_assert_int_eq(c[2], 0);
	pmu_release(&p);
}
END_TEST

/*
 * A fixed event with a general counters_mask and no fallback (a hand-made
 * catalogue; catalog/kpep.c now refuses such a plist).  It used to be placed on a
 * general counter, which `counters --check` read as "its fallback" and
 * dereferenced a NULL fallback.  Now it takes its own counter or none.
 */
START_TEST(test_fixed_without_fallback)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	struct lk_event odd = { .name = "FIXED_ODD", .counters_mask = 0x3fc, .fixed_counter = 0 };
	pmu_add_event(&p, &odd);
	const struct lk_event *evs[2] = { pmu_find(&p, "fixed_odd"), NULL };
	int c[2];
	struct sched_conflict conf;
	ck_assert_int_eq(sched_assign(&p, evs, 1, c, NULL), 0);
	ck_assert_int_eq(c[0], 0);
	p.fixed_mask = 0x2;	/* counter 0 gone: nowhere to count it */
	ck_assert_int_eq(sched_assign(&p, evs, 1, c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 1);
	/* A fallback that is itself fixed adds nothing either. */
	p.fixed_mask = 0x3;
	struct lk_event odd2 = { .name = "FIXED_ODD2", .counters_mask = 0x2, .fixed_counter = 1, .fallback = "FIXED_CYCLES" };
	pmu_add_event(&p, &odd2);
	evs[0] = pmu_find(&p, "fixed_odd2");
	evs[1] = pmu_find(&p, "fixed_instructions");
	ck_assert_int_eq(sched_assign(&p, evs, 2, c, &conf), 0);
	ck_assert(c[0] == 1 || c[1] == 1);
	ck_assert(c[0] != 0 && c[1] != 0);	/* neither takes FIXED_CYCLES' counter */
	pmu_release(&p);
}
END_TEST

/* The definition in catalog/sched.h, directly: O(n^2) per event, for comparison only. */
static void naive_incompat(const struct lk_pmu *p, const struct lk_event *ev, char *buf, size_t len)
{
	int full = __builtin_popcountll(p->config_mask);
	int sizes[65] = { 0 };
	for (size_t i = 0; ev->counters_mask && full && i < p->nevents; i++) {
		uint64_t g = p->events[i].counters_mask;
		int size = __builtin_popcountll(g);
		if (!g || size >= full || (ev->counters_mask & ~g))
			continue;
		size_t inside = 0;
		for (size_t j = 0; j < p->nevents; j++)
			inside += p->events[j].counters_mask && !(p->events[j].counters_mask & ~g);
		if (inside > (size_t)size)
			sizes[size] = 1;
	}
	buf[0] = '\0';
	for (int k = 1; k <= 64; k++) {
		if (!sizes[k])
			continue;
		char one[16];
		if (k <= 3)
			snprintf(one, sizeof(one), "%s", k == 1 ? "pair" : k == 2 ? "triple" : "quad");
		else
			snprintf(one, sizeof(one), "group%d", k);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", one);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* The linear labelling agrees with the definition on random catalogues: few counters (sum over subsets) and many (pairwise). */
START_TEST(test_incompat_linear_matches)
{
	uint32_t x = 42;
	for (int round = 0; round < 40; round++) {
		struct lk_pmu p = { 0 };
		p.kind = xstrdup("kpep");
		p.name = xstrdup("rand");
		int bits = round % 2 ? 40 : 10;
		p.config_mask = (bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1) & ~UINT64_C(3);
		p.fixed_mask = 0x3;
		size_t n = 30 + (size_t)round * 5;
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			uint64_t m = 0;
			int k = 1 + (int)(x >> 28) % 4;
			for (int b = 0; b < k; b++) {
				x = x * 1103515245u + 12345u;
				m |= UINT64_C(1) << (2 + (x >> 16) % (unsigned)(bits - 2));
			}
			if (i % 7 == 0)
				m = p.config_mask;
			char name[32];
			snprintf(name, sizeof(name), "E%zu", i);
			struct lk_event e = { .name = name, .counters_mask = m, .fixed_counter = -1 };
			pmu_add_event(&p, &e);
		}
		struct sched_groups g;
		sched_groups_init(&p, &g);
		for (size_t i = 0; i < p.nevents; i++) {
			char a[64], b[64];
			sched_incompat_in(&g, &p.events[i], a, sizeof(a));
			naive_incompat(&p, &p.events[i], b, sizeof(b));
			ck_assert_msg(!strcmp(a, b), "round %d event %zu mask 0x%llx: %s, by definition %s", round, i,
				      (unsigned long long)p.events[i].counters_mask, a, b);
		}
		sched_groups_release(&g);
		pmu_release(&p);
	}
}
END_TEST

/* Aliases resolve in one step: a cycle of aliases (a hand-altered database) is "no such event", not a stack overflow. */
START_TEST(test_alias_cycle)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	pmu_add_alias(&p, "loop_a", "loop_b");
	pmu_add_alias(&p, "loop_b", "LOOP_A");
	ck_assert_ptr_null(pmu_find(&p, "loop_a"));
	ck_assert_ptr_null(pmu_find(&p, "LOOP_B"));
	pmu_sort(&p);
	char why[256];
	ck_assert_int_eq(pmu_validate(&p, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "alias 'loop_a' names 'loop_b', which is not an event") != NULL, "%s", why);
	ck_assert_str_eq(pmu_find(&p, "cycles")->name, "FIXED_CYCLES");
	ck_assert_ptr_eq(pmu_find_exact(&p, "INST_ALL"), pmu_find(&p, "inst_all"));
	pmu_release(&p);
}
END_TEST

START_TEST(test_unconstrained)
{
	struct lk_pmu p = { 0 };
	for (int i = 0; i < 40; i++) {
		char name[16];
		snprintf(name, sizeof(name), "sw%d", i);
		struct lk_event e = { .name = name, .fixed_counter = -1 };
		pmu_add_event(&p, &e);
	}
	const struct lk_event *evs[40];
	int c[40];
	for (int i = 0; i < 40; i++)
		evs[i] = &p.events[i];
	ck_assert_int_eq(sched_assign(&p, evs, 40, c, NULL), 0);
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(c[i], -1);
	size_t pass[40];
	ck_assert_uint_eq(sched_passes(&p, evs, 40, pass), 1);
	char buf[32];
	ck_assert_str_eq(sched_incompat(&p, evs[0], buf, sizeof(buf)), "none");
	pmu_release(&p);
}
END_TEST

START_TEST(test_passes)
{
	struct lk_pmu p;
	make_pmu(&p, false);
	const char *names[] = { "inst_all", "retire_uop", "inst_ldst", "inst_branch", "inst_branch_taken",
				"l1d_cache_miss_ld_nonspec", "core_active_cycle", NULL };
	const struct lk_event *evs[8];
	size_t n = pick(&p, names, evs), pass[8];
	size_t np = sched_passes(&p, evs, n, pass);
	ck_assert_uint_eq(np, 3);	/* three PMC7-only events need three passes */
	for (size_t k = 0; k < np; k++) {
		const struct lk_event *sub[8];
		size_t ns = 0;
		for (size_t i = 0; i < n; i++)
			if (pass[i] == k)
				sub[ns++] = evs[i];
		int c[8];
		ck_assert_uint_gt(ns, 0);
		ck_assert_int_eq(sched_assign(&p, sub, ns, c, NULL), 0);
	}
	pmu_release(&p);
}
END_TEST

static const struct {
	bool m4;
	const char *event, *label;
} labels[] = {
	{ false, "INST_ALL", "pair,quad" },
	{ false, "RETIRE_UOP", "pair,quad" },
	{ false, "L1D_CACHE_MISS_LD_NONSPEC", "quad" },
	{ false, "CORE_ACTIVE_CYCLE", "none" },
	{ false, "FIXED_CYCLES", "none" },
	{ false, "FIXED_INSTRUCTIONS", "none" },
	{ true, "INST_INT_ALU", "pair,group6" },
	{ true, "INST_ALL", "group6" },
	{ true, "L1D_CACHE_MISS_LD_NONSPEC", "group6" },
	{ true, "CORE_ACTIVE_CYCLE", "none" },
};

START_TEST(test_incompat)
{
	struct lk_pmu p;
	make_pmu(&p, labels[_i].m4);
	char buf[64];
	ck_assert_str_eq(sched_incompat(&p, pmu_find_exact(&p, labels[_i].event), buf, sizeof(buf)), labels[_i].label);
	pmu_release(&p);
}
END_TEST

/* The real M1 catalogue (tests/fixtures/kpep-data). */
/*
 * Intel's shared extra registers (Linux's extra_regs, arch/x86/events/intel/core.c): per pass at most two
 * distinct offcore response values (0xb7/0xbb), one frontend value (0xc6), one load latency (0xcd).
 */
START_TEST(test_shared_registers)
{
	struct lk_pmu p;
	test_pmu(&p, "pfm", "icl", "x86_64", 0xff, 0);
	static const struct { const char *name; uint64_t config, config1; } rows[] = {
		{ "OCR.A", 0x1b7, 0x10001 }, { "OCR.B", 0x1b7, 0x10002 }, { "OCR.C", 0x1b7, 0x10004 },
		{ "OCR1.A", 0x1bb, 0x10001 }, { "FE.DSB", 0x1c6, 0x11 }, { "FE.L1I", 0x1c6, 0x12 },
		{ "LAT.4", 0x1cd, 4 }, { "LAT.8", 0x1cd, 8 }, { "PLAIN", 0x1d1, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct lk_event e = { .name = (char *)rows[i].name, .number = rows[i].config, .config1 = rows[i].config1,
				      .counters_mask = 0xf, .fixed_counter = -1, .perf_type = 4 };
		pmu_add_event(&p, &e);
	}
	const struct lk_event *evs[9];
	int c[9];
	struct sched_conflict conf;
	static const char *const two[] = { "OCR.A", "OCR.B", "OCR1.A", "FE.DSB", NULL };
	ck_assert_int_eq(sched_assign(&p, evs, pick(&p, two, evs), c, &conf), 0);
	static const char *const three[] = { "OCR.A", "OCR.B", "OCR.C", NULL };
	ck_assert_int_eq(sched_assign(&p, evs, pick(&p, three, evs), c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 3);
	static const char *const fe[] = { "FE.DSB", "FE.L1I", NULL };
	ck_assert_int_eq(sched_assign(&p, evs, pick(&p, fe, evs), c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 2);
	static const char *const lat[] = { "LAT.4", "LAT.8", "PLAIN", NULL };
	ck_assert_int_eq(sched_assign(&p, evs, pick(&p, lat, evs), c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 2);
	/* the plan: no pass holds more than the registers allow (OCR.C and one FE and one LAT move on) */
	static const char *const all[] = { "OCR.A", "OCR.B", "OCR.C", "OCR1.A", "FE.DSB", "FE.L1I", "LAT.4",
					   "LAT.8", "PLAIN", NULL };
	size_t n = pick(&p, all, evs), pass_of[9];
	size_t np = sched_passes(&p, evs, n, pass_of);
	ck_assert_uint_eq(np, 3);
	for (size_t q = 0; q < np; q++) {
		const struct lk_event *in[9];
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (pass_of[i] == q)
				in[k++] = evs[i];
		ck_assert_int_eq(sched_assign(&p, in, k, c, NULL), 0);
	}
	pmu_release(&p);
}
END_TEST

/*
 * Intel's TakenAlone (intel/perfmon README: "can only be sampled or counted by itself"): no other event of its
 * shared register in the pass, even of the same value; events of other registers and plain ones may join it.
 */
START_TEST(test_taken_alone)
{
	struct lk_pmu p;
	test_pmu(&p, "pfm", "skl", "x86_64", 0xf, 0);
	static const struct { const char *name; uint64_t config, config1; unsigned flags; } rows[] = {
		{ "FE.DSB", 0x1c6, 0x11, LK_EVF_TAKEN_ALONE }, { "FE.DSB2", 0x1c6, 0x11, LK_EVF_TAKEN_ALONE },
		{ "FE.SAME", 0x1c6, 0x11, 0 }, { "LAT.4", 0x1cd, 4, LK_EVF_TAKEN_ALONE }, { "PLAIN", 0x1d1, 0, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct lk_event e = { .name = (char *)rows[i].name, .number = rows[i].config, .config1 = rows[i].config1,
				      .counters_mask = 0xf, .fixed_counter = -1, .perf_type = 4, .flags = rows[i].flags };
		pmu_add_event(&p, &e);
	}
	const struct lk_event *evs[5];
	int c[5];
	struct sched_conflict conf;
	static const char *const mixed[] = { "FE.DSB", "LAT.4", "PLAIN", NULL };
	ck_assert_int_eq(sched_assign(&p, evs, pick(&p, mixed, evs), c, &conf), 0);
	static const char *const same[] = { "FE.DSB", "FE.SAME", "PLAIN", NULL };
	ck_assert_int_eq(sched_assign(&p, evs, pick(&p, same, evs), c, &conf), -LK_ESCHED);
	ck_assert_uint_eq(conf.n, 2);
	ck_assert(evs[conf.idx[0]]->config1 == 0x11 && evs[conf.idx[1]]->config1 == 0x11);
	static const char *const all[] = { "FE.DSB", "FE.DSB2", "FE.SAME", "LAT.4", "PLAIN", NULL };
	size_t n = pick(&p, all, evs), pass_of[5];
	ck_assert_uint_eq(sched_passes(&p, evs, n, pass_of), 3);	/* three frontend events, one a pass */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if ((evs[i]->number & 0xff) == 0xc6 && (evs[j]->number & 0xff) == 0xc6)
				ck_assert_uint_ne(pass_of[i], pass_of[j]);
	pmu_release(&p);
}
END_TEST

/* Planning is near-linear (adversarial-audit-5 D-16: 20,000 four-counter events took 25.6 s): 5,000 full passes. */
START_TEST(test_passes_large)
{
	struct lk_pmu p;
	test_pmu(&p, "perfmon", "big", NULL, 0xf, 0);
	enum { N = 20000 };
	for (size_t i = 0; i < N; i++) {
		char name[32];
		snprintf(name, sizeof(name), "E%zu", i);
		struct lk_event e = { .name = name, .number = i + 1, .counters_mask = 0xf, .fixed_counter = -1, .perf_type = 4 };
		pmu_add_event(&p, &e);
	}
	const struct lk_event **evs = xcalloc(N, sizeof(*evs));
	size_t *pass_of = xcalloc(N, sizeof(*pass_of));
	for (size_t i = 0; i < N; i++)
		evs[i] = &p.events[i];
	ck_assert_uint_eq(sched_passes(&p, evs, N, pass_of), N / 4);
	size_t *size = xcalloc(N / 4, sizeof(*size));
	for (size_t i = 0; i < N; i++)
		size[pass_of[i]]++;
	for (size_t q = 0; q < N / 4; q++)
		ck_assert_uint_eq(size[q], 4);
	free(size);
	free(pass_of);
	free(evs);
	pmu_release(&p);
}
END_TEST

START_TEST(test_a14_flags)
{
	const char *path = LAUKA_SRCDIR "/tests/fixtures/kpep-data/a14.plist";
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "skip: %s absent\n", path);
		return;
	}
	struct lk_pmu p;
	char err[256], buf[64];
	ck_assert_int_eq(kpep_parse_file(path, &p, err, sizeof(err)), 0);
	ck_assert_str_eq(sched_incompat(&p, pmu_find(&p, "inst_all"), buf, sizeof(buf)), "pair,quad");
	ck_assert_str_eq(sched_incompat(&p, pmu_find(&p, "l1d_cache_miss_ld_nonspec"), buf, sizeof(buf)), "quad");
	ck_assert_str_eq(sched_incompat(&p, pmu_find(&p, "core_active_cycle"), buf, sizeof(buf)), "none");
	size_t pair = 0, quad = 0;
	for (size_t i = 0; i < p.nevents; i++) {
		const char *l = sched_incompat(&p, &p.events[i], buf, sizeof(buf));
		pair += strstr(l, "pair") != NULL;
		quad += strstr(l, "quad") != NULL;
	}
	ck_assert_uint_eq(pair, 6);
	ck_assert_uint_eq(quad, 25);
	pmu_release(&p);
}
END_TEST

extern Suite *sched_suite(void);
Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("assign");
	tcase_add_test(tc, test_three_e0_plus_inst_all);
	tcase_add_test(tc, test_pair_conflict);
	tcase_add_test(tc, test_ten_fit);
	tcase_add_test(tc, test_fixed_fallback);
	tcase_add_test(tc, test_unconstrained);
	tcase_add_test(tc, test_passes);
	tcase_add_loop_test(tc, test_incompat, 0, (int)ARRAY_SIZE(labels));
	tcase_add_test(tc, test_a14_flags);
	tcase_add_test(tc, test_shared_registers);
	tcase_add_test(tc, test_taken_alone);
	tcase_add_test(tc, test_passes_large);
	tcase_add_test(tc, test_fixed_without_fallback);
	tcase_add_test(tc, test_incompat_linear_matches);
	tcase_add_test(tc, test_alias_cycle);
	suite_add_tcase(s, tc);
	return s;
}
