/*
 * check_passes.c: planning a vendor catalogue into passes (sched_passes on
 * pfm-style masks) and splitting a pass the kernel refused (sched_split_pass).
 * Tables of catalogue shapes: general and fixed counter counts as libpfm4
 * reports them for Skylake (8+3), Ice Lake (16+4), Zen 4 (6+0), and
 * Skylake with SMT on (4+3).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "catalog/pfm.h"
#include "catalog/sched.h"

static const struct shape {
	const char *name;
	unsigned gp, fixed;
	size_t general;		/* plain events */
	size_t instr;		/* 0x00c0-encoded events (fixed 0 or general) */
	size_t refcyc;		/* 0x0300: fixed 2 only */
	size_t slots;		/* 0x0400: fixed 3 only */
} shapes[] = {
	{ "skl", 8, 3, 430, 3, 2, 0 },
	{ "skl-smt", 4, 3, 37, 2, 1, 0 },
	{ "icl", 16, 4, 500, 3, 2, 1 },
	{ "zen4", 6, 0, 303, 0, 0, 0 },
	{ "tiny", 2, 3, 1, 0, 3, 1 },
	{ "empty", 8, 3, 0, 0, 0, 0 },
};

static void build(const struct shape *s, struct lk_pmu *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = xstrdup("pfm");
	p->name = xstrdup(s->name);
	p->config_mask = (1ULL << s->gp) - 1;
	for (unsigned f = 0; f < s->fixed; f++)
		p->fixed_mask |= 1ULL << (PFMCAT_FIXED_BASE + f);
	struct { size_t n; uint64_t config; } kinds[] = {
		{ s->general, 0x08d1 }, { s->instr, 0x00c0 }, { s->refcyc, 0x0300 }, { s->slots, 0x0400 },
	};
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		for (size_t i = 0; i < kinds[k].n; i++) {
			char name[32];
			snprintf(name, sizeof(name), "E%zu_%04zu", k, i);
			struct lk_event e = { .name = name, .number = kinds[k].config, .perf_type = 4 };
			pfmcat_counters(true, e.number, s->gp, s->fixed, &e.counters_mask, &e.fixed_counter);
			pmu_add_event(p, &e);
		}
	pmu_sort(p);
}

START_TEST(test_plan)
{
	const struct shape *s = &shapes[_i];
	struct lk_pmu p;
	build(s, &p);
	size_t n = p.nevents;
	const struct lk_event **evs = xcalloc(n + 1, sizeof(*evs));
	size_t *pass_of = xcalloc(n + 1, sizeof(*pass_of));
	for (size_t i = 0; i < n; i++)
		evs[i] = &p.events[i];
	size_t np = sched_passes(&p, evs, n, pass_of);
	/* Bounds any plan must meet: fixed-only events of one counter need a pass each; the
	 * plain events need the general counters (instructions may also take fixed 0). */
	size_t fixed_need = s->refcyc > s->slots ? s->refcyc : s->slots;
	size_t lower = (s->general + s->instr + s->gp + (s->fixed > 0) - 1) / (s->gp + (s->fixed > 0));
	size_t upper = (s->general + s->instr + s->gp - 1) / s->gp;
	lower = lower > fixed_need ? lower : fixed_need;
	upper = upper > fixed_need ? upper : fixed_need;
	ck_assert_uint_ge(np, lower);
	ck_assert_uint_le(np, upper);
	size_t seen = 0;
	for (size_t q = 0; q < np; q++) {
		const struct lk_event *in[64];
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (pass_of[i] == q) {
				ck_assert_uint_lt(k, ARRAY_SIZE(in));
				in[k++] = evs[i];
			}
		seen += k;
		ck_assert_uint_ge(k, 1);			/* no empty pass */
		ck_assert_uint_le(k, s->gp + s->fixed);		/* no pass larger than the counters */
		int counter[64];
		ck_assert_int_eq(sched_assign(&p, in, k, counter, NULL), 0);
		size_t general = 0;
		for (size_t j = 0; j < k; j++) {
			if (in[j]->fixed_counter >= 0)		/* fixed events on their fixed counters */
				ck_assert_int_eq(counter[j], in[j]->fixed_counter);
			general += counter[j] < PFMCAT_FIXED_BASE;
			for (size_t m = 0; m < j; m++)
				ck_assert_int_ne(counter[j], counter[m]);
		}
		ck_assert_uint_le(general, s->gp);
	}
	for (size_t i = 0; i < n; i++)			/* every event exactly once */
		ck_assert_uint_lt(pass_of[i], np);
	ck_assert_uint_eq(seen, n);
	free(evs);
	free(pass_of);
	pmu_release(&p);
}
END_TEST

/* Splitting a refused pass: {plan before, pass refused, passes before} -> plan after. */
static const struct {
	size_t n;
	size_t before[8];
	size_t p, npasses;
	size_t after[8];
	size_t npasses_after;
} splits[] = {
	{ 4, { 0, 0, 0, 0 }, 0, 1, { 0, 0, 1, 1 }, 2 },
	{ 5, { 0, 0, 0, 0, 0 }, 0, 1, { 0, 0, 1, 1, 1 }, 2 },
	{ 6, { 0, 1, 0, 1, 0, 1 }, 1, 2, { 0, 1, 0, 2, 0, 2 }, 3 },
	{ 3, { 0, 1, 1 }, 0, 2, { 0, 1, 1 }, 2 },		/* one event refused alone: nothing to split */
	{ 2, { 0, 0 }, 0, 1, { 0, 1 }, 2 },
	{ 4, { 2, 0, 1, 2 }, 2, 3, { 2, 0, 1, 3 }, 4 },
};

START_TEST(test_split)
{
	size_t pass_of[8];
	memcpy(pass_of, splits[_i].before, sizeof(pass_of));
	size_t np = sched_split_pass(pass_of, splits[_i].n, splits[_i].p, splits[_i].npasses);
	ck_assert_uint_eq(np, splits[_i].npasses_after);
	for (size_t i = 0; i < splits[_i].n; i++)
		ck_assert_uint_eq(pass_of[i], splits[_i].after[i]);
}
END_TEST

/* Refused again and again, a pass ends as single events: every event still in exactly one pass. */
START_TEST(test_split_to_singles)
{
	size_t pass_of[13] = { 0 }, np = 1;
	for (size_t round = 0; round < 20; round++)
		for (size_t q = 0; q < np; q++)
			np = sched_split_pass(pass_of, 13, q, np);
	ck_assert_uint_eq(np, 13);
	for (size_t q = 0; q < np; q++)
		ck_assert_uint_eq(sched_pass_size(pass_of, 13, q), 1);
}
END_TEST

Suite *passes_suite(void)
{
	Suite *s = suite_create("passes");
	TCase *tc = tcase_create("passes");
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, test_plan, 0, (int)ARRAY_SIZE(shapes));
	tcase_add_loop_test(tc, test_split, 0, (int)ARRAY_SIZE(splits));
	tcase_add_test(tc, test_split_to_singles);
	suite_add_tcase(s, tc);
	return s;
}
