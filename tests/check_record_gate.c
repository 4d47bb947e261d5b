/* check_record_gate.c: --gate parsing, and pass/fail on tables of statistics and intervals. */
#include <check.h>
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
#define D(p, lo, hi) { .valid = true, .bounded = true, .pct = (p), .ci_low = (lo), .ci_high = (hi) }

static const struct {
	struct lk_stats ref, cur;
	struct lk_delta d;
	double limit;
	enum gate_basis basis;
	bool failed;
	double change;
} eval_cases[] = {
	/* Deterministic counts (sd 0 both sides): the plain change, whatever the interval says. */
	{ ST(1000, 0), ST(1000, 0), D(0, 0, 0), 1, GATE_EXACT, false, 0 },
	{ ST(1000, 0), ST(1010, 0), D(1, 1, 1), 1, GATE_EXACT, false, 1 },	/* exactly at the limit passes */
	{ ST(1000, 0), ST(1011, 0), D(1.1, 1.1, 1.1), 1, GATE_EXACT, true, 1.1 },
	{ ST(1000, 0), ST(2000, 0), D(100, 100, 100), 1, GATE_EXACT, true, 100 },
	{ ST(1000, 0), ST(500, 0), D(-50, -50, -50), 0, GATE_EXACT, false, -50 },	/* better passes */
	{ ST(0, 0), ST(0, 0), { .valid = true }, 0, GATE_EXACT, false, 0 },
	{ ST(0, 0), ST(3, 0), { .valid = false }, 5, GATE_EXACT, true, INFINITY },
	/* Noisy: significant only when the whole interval lies above the limit. */
	{ ST(100, 5), ST(120, 5), D(20, 12, 28), 10, GATE_INTERVAL, true, 20 },
	{ ST(100, 5), ST(120, 9), D(20, 8, 32), 10, GATE_INTERVAL, false, 20 },	/* change above, interval not */
	{ ST(100, 5), ST(100, 5), D(0, -4, 4), 0, GATE_INTERVAL, false, 0 },
	{ ST(100, 5), ST(150, 5), D(50, 10, 90), 10, GATE_INTERVAL, false, 50 },	/* low bound on the limit */
	{ ST(100, 1), ST(100.5, 0), D(0.5, 0.2, 0.8), 0.1, GATE_INTERVAL, true, 0.5 },	/* one side noisy */
	/* An unbounded interval is never significant. */
	{ ST(1, 5), ST(50, 5), { .valid = true, .bounded = false, .pct = 4900, .ci_low = NAN, .ci_high = NAN }, 10,
	  GATE_UNBOUNDED, false, 4900 },
	{ ST(0, 5), ST(50, 5), { .valid = false }, 10, GATE_UNBOUNDED, false, NAN },
};

START_TEST(test_evaluate)
{
	struct gate_eval e;
	gate_evaluate(&eval_cases[_i].ref, &eval_cases[_i].cur, &eval_cases[_i].d, eval_cases[_i].limit, &e);
	ck_assert_int_eq(e.basis, eval_cases[_i].basis);
	ck_assert_msg(e.failed == eval_cases[_i].failed, "case %d: failed %d", _i, e.failed);
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

extern Suite *record_gate_suite(void);
Suite *record_gate_suite(void)
{
	Suite *s = suite_create("record_gate");
	TCase *tc = tcase_create("gate");
	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse_cases) / sizeof(*parse_cases));
	tcase_add_loop_test(tc, test_evaluate, 0, sizeof(eval_cases) / sizeof(*eval_cases));
	suite_add_tcase(s, tc);
	return s;
}
