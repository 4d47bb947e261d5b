/* check_record_gate.c: --gate parsing, and pass/fail on tables of statistics and intervals. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/gate.h"

static const struct {
	const char *spec;
	int ok;
	const char *name;
	double limit;
} parse_cases[] = {
	{ "Ir=1%", 0, "Ir", 1 },
	{ "instructions=0.5%", 0, "instructions", 0.5 },
	{ "wall_time = 10 %", 0, "wall_time", 10 },
	{ "cycles=0%", 0, "cycles", 0 },
	{ "Ir=1", -1, NULL, 0 },		/* a limit is a percentage */
	{ "Ir=-1%", -1, NULL, 0 },
	{ "Ir=+1%", -1, NULL, 0 },
	{ "Ir=%", -1, NULL, 0 },
	{ "Ir=1%%", -1, NULL, 0 },
	{ "Ir=abc%", -1, NULL, 0 },
	{ "Ir=nan%", -1, NULL, 0 },
	{ "Ir=inf%", -1, NULL, 0 },
	{ "=1%", -1, NULL, 0 },
	{ "Ir", -1, NULL, 0 },
	{ "Ir=2000000%", -1, NULL, 0 },
};

START_TEST(test_parse)
{
	char *name = NULL, err[256] = "";
	double limit = -1;
	int r = gate_parse(parse_cases[_i].spec, &name, &limit, err, sizeof(err));
	ck_assert_msg(r == parse_cases[_i].ok, "'%s': got %d (%s)", parse_cases[_i].spec, r, err);
	if (r == 0) {
		ck_assert_str_eq(name, parse_cases[_i].name);
		ck_assert_double_eq(limit, parse_cases[_i].limit);
	} else {
		ck_assert_ptr_null(name);
		ck_assert_msg(strstr(err, parse_cases[_i].spec) != NULL, "error does not name the gate: %s", err);
	}
	free(name);
}
END_TEST

#define ST(m, s) { .n = 5, .mean = (m), .sd = (s) }
#define ST1(m) { .n = 1, .mean = (m), .sd = 0 }	/* one completed run: no spread to speak of */
#define D(p, lo, hi) { .valid = true, .bounded = true, .pct = (p), .ci_low = (lo), .ci_high = (hi) }

static const struct {
	struct lk_stats ref, cur;
	struct lk_delta d;
	double limit;
	bool exact;		/* a deterministic measurement (valgrind's events) */
	enum gate_basis basis;
	bool failed, inconclusive;
	double change;
} eval_cases[] = {
	/* Deterministic counts (sd 0 both sides): the plain change, whatever the interval says. */
	{ ST(1000, 0), ST(1000, 0), D(0, 0, 0), 1, false, GATE_EXACT, false, false, 0 },
	{ ST(1000, 0), ST(1010, 0), D(1, 1, 1), 1, false, GATE_EXACT, false, false, 1 },	/* exactly at the limit passes */
	{ ST(1000, 0), ST(1011, 0), D(1.1, 1.1, 1.1), 1, false, GATE_EXACT, true, false, 1.1 },
	{ ST(1000, 0), ST(2000, 0), D(100, 100, 100), 1, false, GATE_EXACT, true, false, 100 },
	{ ST(1000, 0), ST(500, 0), D(-50, -50, -50), 0, false, GATE_EXACT, false, false, -50 },	/* better passes */
	{ ST(0, 0), ST(0, 0), { .valid = true }, 0, false, GATE_EXACT, false, false, 0 },
	{ ST(0, 0), ST(3, 0), { .valid = false }, 5, false, GATE_EXACT, true, false, INFINITY },
	/*
	 * Noisy, three outcomes (issue 37 T1): FAIL when the whole interval lies above the limit,
	 * pass only when the whole interval lies at or below it, inconclusive when it straddles.
	 */
	{ ST(100, 5), ST(120, 5), D(20, 12, 28), 10, false, GATE_INTERVAL, true, false, 20 },
	/* change above, interval straddling the limit: cannot tell */
	{ ST(100, 5), ST(120, 9), D(20, 8, 32), 10, false, GATE_INTERVAL, false, true, 20 },
	/* the audit's row: task-clock=5% at +17.23% [+1.36%, +33.97%] said "pass" beside a 💩 */
	{ ST(100, 5), ST(117.23, 9), D(17.23, 1.36, 33.97), 5, false, GATE_INTERVAL, false, true, 17.23 },
	/* a 3% regression at a 2% limit, interval [-1%, +7%]: said "pass" 19 times in 20 */
	{ ST(100, 5), ST(103, 5), D(3, -1, 7), 2, false, GATE_INTERVAL, false, true, 3 },
	/* no change at all, but the interval reaches above a 0% limit */
	{ ST(100, 5), ST(100, 5), D(0, -4, 4), 0, false, GATE_INTERVAL, false, true, 0 },
	{ ST(100, 5), ST(100, 5), D(0, -4, 4), 5, false, GATE_INTERVAL, false, false, 0 },	/* wholly below: pass */
	{ ST(100, 5), ST(100, 5), D(0, -4, 4), 4, false, GATE_INTERVAL, false, false, 0 },	/* high end on the limit: pass */
	{ ST(100, 5), ST(100, 5), D(0, -4, 4.0001), 4, false, GATE_INTERVAL, false, true, 0 },
	{ ST(100, 5), ST(90, 5), D(-10, -20, -1), 0, false, GATE_INTERVAL, false, false, -10 },	/* clearly better */
	{ ST(100, 5), ST(150, 5), D(50, 10, 90), 10, false, GATE_INTERVAL, false, true, 50 },	/* low bound on the limit */
	/* one side noisy */
	{ ST(100, 1), ST(100.5, 0), D(0.5, 0.2, 0.8), 0.1, false, GATE_INTERVAL, true, false, 0.5 },
	/* An unbounded interval can tell nothing: inconclusive, never a pass (issue 28: 5 in 13 said "pass"). */
	{ ST(1, 5), ST(50, 5), { .valid = true, .bounded = false, .pct = 4900, .ci_low = NAN, .ci_high = NAN }, 10,
	  false, GATE_UNBOUNDED, false, true, 4900 },
	{ ST(0, 5), ST(50, 5), { .valid = false }, 10, false, GATE_UNBOUNDED, false, true, NAN },
	/* One run of a varying measurement has sd 0 and no interval: too few, not exact. */
	{ ST1(1000), ST1(1200), D(20, 20, 20), 5, false, GATE_TOO_FEW, false, true, 20 },
	{ ST1(1000), ST1(1000), D(0, 0, 0), 5, false, GATE_TOO_FEW, false, true, 0 },
	{ ST(1000, 10), ST1(1200), D(20, 17, 23), 5, false, GATE_TOO_FEW, false, true, 20 },
	{ ST1(1000), ST(1200, 10), D(20, 17, 23), 5, false, GATE_TOO_FEW, false, true, 20 },
	/* A deterministic count: one run is the count, the change is exact. */
	{ ST1(1000), ST1(1200), D(20, 20, 20), 5, true, GATE_EXACT, true, false, 20 },
	{ ST1(1000), ST1(1040), D(4, 4, 4), 5, true, GATE_EXACT, false, false, 4 },
	/* Deterministic runs that differed (a command with side effects): the interval decides. */
	{ ST(1000, 5), ST(1200, 5), D(20, 19, 21), 5, true, GATE_INTERVAL, true, false, 20 },
	{ ST(1000, 5), ST(1200, 5), { .valid = true, .bounded = false, .pct = 20, .ci_low = NAN, .ci_high = NAN }, 5,
	  true, GATE_UNBOUNDED, false, true, 20 },
	/* No run on one side at all. */
	{ { .n = 0 }, ST(1200, 5), { .valid = false }, 5, true, GATE_TOO_FEW, false, true, NAN },
};

START_TEST(test_evaluate)
{
	struct gate_eval e;
	gate_evaluate(&eval_cases[_i].ref, &eval_cases[_i].cur, &eval_cases[_i].d, eval_cases[_i].limit,
		      eval_cases[_i].exact, &e);
	ck_assert_int_eq(e.basis, eval_cases[_i].basis);
	ck_assert_msg(e.failed == eval_cases[_i].failed, "case %d: failed %d", _i, e.failed);
	ck_assert_msg(e.inconclusive == eval_cases[_i].inconclusive, "case %d: inconclusive %d", _i, e.inconclusive);
	ck_assert_msg(!(e.failed && e.inconclusive), "case %d: both failed and inconclusive", _i);
	/* Never a pass the interval cannot support: a pass has its whole interval at or below the limit. */
	if (!e.failed && !e.inconclusive && e.basis == GATE_INTERVAL)
		ck_assert_msg(e.ci_high <= eval_cases[_i].limit, "case %d: pass with ci_high %g above %g", _i,
			      e.ci_high, eval_cases[_i].limit);
	if (isnan(eval_cases[_i].change))
		ck_assert(isnan(e.change));
	else if (isinf(eval_cases[_i].change))
		ck_assert(isinf(e.change) && e.change > 0);
	else
		ck_assert_double_eq_tol(e.change, eval_cases[_i].change, 1e-9);
	if (e.basis == GATE_INTERVAL) {
		ck_assert_double_eq(e.ci_low, eval_cases[_i].d.ci_low);
		ck_assert_double_eq(e.ci_high, eval_cases[_i].d.ci_high);
	}
}
END_TEST

/*
 * Issue 37 T2: a timing gate against a baseline from another session.  The interval treats both
 * sessions as one population, so drift between them reads as a change (an identical binary: wall
 * time FAIL 10/10 with busy neighbours).  Whatever the interval says, such a gate is inconclusive
 * (basis GATE_OTHER_SESSION), keeping its interval to print; exact counts are left alone.
 */
static const struct {
	struct gate_eval in;
	bool inconclusive;
	enum gate_basis basis;
} session_cases[] = {
	{ { GATE_INTERVAL, 120, 64, 242, true, false }, true, GATE_OTHER_SESSION },	/* the busy neighbours' FAIL */
	{ { GATE_INTERVAL, 0, -3, 3, false, false }, true, GATE_OTHER_SESSION },	/* a pass cannot be trusted either */
	{ { GATE_INTERVAL, 3, -1, 7, false, true }, true, GATE_OTHER_SESSION },
	{ { GATE_UNBOUNDED, 3, NAN, NAN, false, true }, true, GATE_UNBOUNDED },	/* already inconclusive: its reason stays */
	{ { GATE_TOO_FEW, 3, NAN, NAN, false, true }, true, GATE_TOO_FEW },
	{ { GATE_EXACT, 20, NAN, NAN, true, false }, true, GATE_OTHER_SESSION },	/* sd 0 timings: still another session */
};

START_TEST(test_other_session)
{
	struct gate_eval e = session_cases[_i].in;
	gate_other_session(&e);
	ck_assert_msg(!e.failed, "case %d failed", _i);
	ck_assert(e.inconclusive == session_cases[_i].inconclusive);
	ck_assert_int_eq(e.basis, session_cases[_i].basis);
	if (session_cases[_i].in.basis == GATE_INTERVAL) {	/* the interval is still printed */
		ck_assert_double_eq(e.ci_low, session_cases[_i].in.ci_low);
		ck_assert_double_eq(e.ci_high, session_cases[_i].in.ci_high);
	}
}
END_TEST

/* The schedule of looks (issue 37): n0, doubling, then --max-runs; fixed before the first look. */
static const struct {
	unsigned long n0, max;
	size_t k;
	unsigned long looks[8];
} look_cases[] = {
	{ 10, 100, 5, { 10, 20, 40, 80, 100 } },	/* the default: 10 runs, --max-runs 100 */
	{ 10, 80, 4, { 10, 20, 40, 80 } },
	{ 10, 40, 3, { 10, 20, 40 } },
	{ 10, 15, 2, { 10, 15 } },
	{ 10, 10, 1, { 10 } },				/* nothing beyond the first look: 95% */
	{ 54, 100, 2, { 54, 100 } },
	{ 100, 20, 1, { 100 } },			/* already past the bound */
	{ 0, 4, 3, { 1, 2, 4 } },
};

START_TEST(test_looks)
{
	unsigned long looks[GATE_MAX_LOOKS];
	size_t k = gate_looks(look_cases[_i].n0, look_cases[_i].max, looks);
	ck_assert_uint_eq(k, look_cases[_i].k);
	for (size_t j = 0; j < k; j++)
		ck_assert_uint_eq(looks[j], look_cases[_i].looks[j]);
	/* Bonferroni: the levels of all looks add up to the error rate of one 95% interval */
	ck_assert_double_eq_tol(gate_look_alpha(k) * (double)k, GATE_ALPHA, 1e-15);
	/* the bound is never passed, the schedule never stalls */
	for (size_t j = 1; j < k; j++)
		ck_assert(looks[j] > looks[j - 1] && looks[j] <= look_cases[_i].max);
}
END_TEST

START_TEST(test_looks_bounded)
{
	unsigned long looks[GATE_MAX_LOOKS];
	ck_assert_uint_le(gate_looks(1, ULONG_MAX, looks), GATE_MAX_LOOKS);
	ck_assert_uint_eq(gate_looks(3, 1000000, looks), 20);	/* 3 * 2^18 < 1e6 < 3 * 2^19 */
}
END_TEST

extern Suite *record_gate_suite(void);
Suite *record_gate_suite(void)
{
	Suite *s = suite_create("record_gate");
	TCase *tc = tcase_create("gate");
	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse_cases) / sizeof(*parse_cases));
	tcase_add_loop_test(tc, test_evaluate, 0, sizeof(eval_cases) / sizeof(*eval_cases));
	tcase_add_loop_test(tc, test_looks, 0, sizeof(look_cases) / sizeof(*look_cases));
	tcase_add_test(tc, test_looks_bounded);
	tcase_add_loop_test(tc, test_other_session, 0, sizeof(session_cases) / sizeof(*session_cases));
	suite_add_tcase(s, tc);
	return s;
}
