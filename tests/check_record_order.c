/* check_record_order.c: sequential and interleaved run orders, checked by their defining properties. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "record/order.h"

static const struct {
	size_t n;
	unsigned long warm[4], runs[4];
} cases[] = {
	{ 2, { 0, 0 }, { 3, 3 } },
	{ 3, { 1, 1, 1 }, { 5, 5, 5 } },
	{ 2, { 2, 0 }, { 10, 3 } },	/* a command with fewer runs */
	{ 4, { 0, 0, 0, 0 }, { 7, 1, 4, 7 } },
	{ 1, { 1 }, { 3 } },
};

/* Every warm-up and run exactly once, each command's warm-ups before its runs, both in order. */
static void check_complete(const struct order_slot *s, size_t len, size_t n, const unsigned long *warm,
			   const unsigned long *runs, bool all_warmups_first)
{
	size_t total = 0;
	for (size_t c = 0; c < n; c++)
		total += warm[c] + runs[c];
	ck_assert_uint_eq(len, total);
	unsigned long seen_w[4] = { 0 }, seen_r[4] = { 0 };
	bool measured = false, cmd_measured[4] = { false };
	for (size_t i = 0; i < len; i++) {
		ck_assert_uint_lt(s[i].cmd, n);
		if (s[i].warmup) {
			ck_assert_msg(!cmd_measured[s[i].cmd], "a warm-up after one of its command's runs");
			ck_assert_msg(!all_warmups_first || !measured, "a warm-up round after a measured round");
			ck_assert_uint_eq(s[i].k, seen_w[s[i].cmd]++);
		} else {
			measured = cmd_measured[s[i].cmd] = true;
			ck_assert_uint_eq(s[i].k, seen_r[s[i].cmd]++);
		}
	}
	for (size_t c = 0; c < n; c++) {
		ck_assert_uint_eq(seen_w[c], warm[c]);
		ck_assert_uint_eq(seen_r[c], runs[c]);
	}
}

START_TEST(test_sequential)
{
	struct order_slot *s;
	size_t len = order_plan(cases[_i].warm, cases[_i].runs, cases[_i].n, false, 1, &s);
	check_complete(s, len, cases[_i].n, cases[_i].warm, cases[_i].runs, false);
	/* Sequential: each command in one stretch (its warm-ups, then its runs), commands in order. */
	for (size_t i = 1; i < len; i++)
		ck_assert_uint_ge(s[i].cmd, s[i - 1].cmd);
	free(s);
}
END_TEST

/* Interleaved: split into rounds of distinct commands; each command in evenly spaced rounds. */
START_TEST(test_interleaved_rounds)
{
	size_t n = cases[_i].n;
	const unsigned long *runs = cases[_i].runs;
	struct order_slot *s;
	size_t len = order_plan(cases[_i].warm, runs, n, true, 12345, &s);
	check_complete(s, len, n, cases[_i].warm, runs, true);
	unsigned long rounds = 0;
	for (size_t c = 0; c < n; c++)
		rounds = runs[c] > rounds ? runs[c] : rounds;
	/* Recover each measured slot's round by counting: a round is the set of commands due in it. */
	size_t i = 0;
	while (i < len && s[i].warmup)
		i++;
	for (unsigned long r = 0; r < rounds; r++) {
		bool in[4] = { false };
		size_t due = 0;
		for (size_t c = 0; c < n; c++)
			for (unsigned long j = 0; j < runs[c]; j++)
				if (order_round_of(j, runs[c], rounds) == r)
					due++, in[c] = true;
		for (size_t k = 0; k < due; k++, i++) {
			ck_assert_uint_lt(i, len);
			ck_assert_msg(in[s[i].cmd], "command %zu ran in round %lu, not one of its rounds", s[i].cmd, r);
			in[s[i].cmd] = false;	/* at most once per round */
		}
	}
	ck_assert_uint_eq(i, len);
	free(s);
}
END_TEST

START_TEST(test_evenly_spaced)
{
	/* 3 of 10 rounds: the middles of three equal stretches, 10/6, 30/6, 50/6 -> 1, 5, 8. */
	ck_assert_uint_eq(order_round_of(0, 3, 10), 1);
	ck_assert_uint_eq(order_round_of(1, 3, 10), 5);
	ck_assert_uint_eq(order_round_of(2, 3, 10), 8);
	/* As many runs as rounds: every round. */
	for (unsigned long j = 0; j < 7; j++)
		ck_assert_uint_eq(order_round_of(j, 7, 7), j);
	ck_assert_uint_eq(order_round_of(0, 1, 7), 3);
}
END_TEST

START_TEST(test_seed_repeats_and_varies)
{
	unsigned long w[3] = { 0, 0, 0 }, r[3] = { 6, 6, 6 };
	struct order_slot *a, *b, *c;
	size_t la = order_plan(w, r, 3, true, 42, &a);
	size_t lb = order_plan(w, r, 3, true, 42, &b);
	ck_assert_uint_eq(order_plan(w, r, 3, true, 43, &c), la);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(a, b, la * sizeof(*a)), 0);
	bool differ = false;
	for (size_t i = 0; i < la; i++)
		differ |= a[i].cmd != c[i].cmd;
	ck_assert_msg(differ, "seeds 42 and 43 gave the same order of 18 runs");
	/* Shuffled every round: not the same permutation in all six rounds. */
	bool same = true;
	for (size_t k = 1; k < 6; k++)
		for (size_t j = 0; j < 3; j++)
			same &= a[k * 3 + j].cmd == a[j].cmd;
	ck_assert_msg(!same, "every round had the same order");
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_splitmix_reference)
{
	/* splitmix64 from seed 0: first outputs as published with the algorithm (Vigna). */
	uint64_t s = 0;
	ck_assert_uint_eq(order_next(&s), 0xe220a8397b1dcdafULL);
	ck_assert_uint_eq(order_next(&s), 0x6e789e6aa1b965f4ULL);
	ck_assert_uint_eq(order_next(&s), 0x06c45d188009454fULL);
}
END_TEST

/*
 * The automatic count: hyperfine's rule (at least 10 runs and 3 s), between
 * the runs already made (or --min-runs) and the cap.  Times in ns.
 */
static const struct {
	unsigned long done;
	double measured_ns, elapsed_ns;	/* the command's wall time, and real time with lauka's own cost */
	unsigned long min, max, want;
} auto_cases[] = {
	{ 3, 3 * 1e6, 3 * 2e6, 3, 100, 100 },		/* 1 ms a run: 3000 for 3 s, capped at 100 */
	{ 3, 3 * 1e6, 3 * 2e6, 3, 1000000, 3000 },	/* no cap on runs: exactly 3 s */
	{ 3, 3 * 50e6, 3 * 51e6, 3, 100, 60 },		/* 50 ms a run: 60 runs are 3 s */
	{ 3, 3 * 1e9, 3 * 1e9, 3, 100, 10 },		/* 1 s a run: 10 runs, more than 3 s */
	{ 3, 3 * 2.9e9, 3 * 2.9e9, 3, 100, 10 },	/* 2.9 s a run: 10 runs fit in 30 s */
	{ 3, 3 * 5e9, 3 * 5e9, 3, 100, 6 },		/* 5 s a run: 6 fit in 30 s */
	{ 3, 3 * 60e9, 3 * 60e9, 3, 100, 3 },		/* a minute a run: the first 3 only */
	{ 3, 3 * 0.2e9, 3 * 9.2e9, 3, 100, 3 },		/* xctrace: 9 s of lauka's own a run */
	{ 3, 3 * 1e9, 3 * 1e9, 3, 5, 5 },		/* --max-runs below 10 */
	{ 20, 20 * 1e9, 20 * 1e9, 20, 100, 20 },	/* --min-runs above what is wanted */
	{ 3, 3 * 1e9, 3 * 1e9, 3, 3, 3 },		/* --max-runs = the pilot: nothing more */
	{ 3, 3 * 0.4e9, 3 * 0.4e9, 3, 100, 10 },	/* 0.4 s a run: 8 would be 3.2 s, but 10 runs */
	{ 3, 3 * 0.2e9, 3 * 0.2e9, 3, 100, 15 },	/* 0.2 s a run: 15 runs are 3 s */
	{ 3, 0, 0, 3, 100, 10 },			/* no time measured */
};

START_TEST(test_auto_runs)
{
	unsigned long n = order_auto_runs(auto_cases[_i].done, auto_cases[_i].measured_ns, auto_cases[_i].elapsed_ns,
					  10, 3e9, 30e9, auto_cases[_i].min, auto_cases[_i].max);
	ck_assert_msg(n == auto_cases[_i].want, "case %d: %lu runs, want %lu", _i, n, auto_cases[_i].want);
}
END_TEST

extern Suite *record_order_suite(void);
Suite *record_order_suite(void)
{
	Suite *s = suite_create("record_order");
	TCase *tc = tcase_create("order");
	tcase_add_loop_test(tc, test_sequential, 0, sizeof(cases) / sizeof(*cases));
	tcase_add_loop_test(tc, test_interleaved_rounds, 0, sizeof(cases) / sizeof(*cases));
	tcase_add_test(tc, test_evenly_spaced);
	tcase_add_test(tc, test_seed_repeats_and_varies);
	tcase_add_test(tc, test_splitmix_reference);
	tcase_add_loop_test(tc, test_auto_runs, 0, sizeof(auto_cases) / sizeof(*auto_cases));
	suite_add_tcase(s, tc);
	return s;
}
