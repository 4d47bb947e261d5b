/*
 * check_calib.c: calibration rules on synthetic numbers: normalisation,
 * linearity, verdicts, profiles, and the expectations table (the embedded
 * one must parse and resolve against the valgrind catalogue).
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "backend/valgrind.h"
#include "catalog/calib.h"
#include "base/error.h"
#include "base/util.h"
#include "test-pmu.h"

static const char *const probes[] = { "alu", "chase", "branch", "store" };

/* c(n) = k + r n for each probe at n = 1, N, 4N. */
static void affine(struct calib_counts *c, double k, double r, uint64_t n)
{
	c->n = n;
	c->n0 = 0;
	c->c0 = k + r;
	c->c1 = k + r * (double)n;
	c->c4 = k + r * 4 * (double)n;
}

/* The four probes' counts, each constant k + r[i] per unit at scales 1, n and 4n. */
static void affine4(struct calib_counts c[4], double k, const double r[4], uint64_t n)
{
	for (int i = 0; i < 4; i++)
		affine(&c[i], k, r[i], n);
}

/* Judge c (the four probes) against the expectation rows in checks, as catalog/expectations.tsv writes them. */
static void judge_rows(const char *checks, const struct calib_counts c[4], enum calib_state st, struct calib_result *res)
{
	struct calib_expectations e;
	char err[200] = "";
	ck_assert_msg(calib_expect_parse(checks, &e, err, sizeof(err)) == 0, "%s", err);
	const struct calib_expect *x[8];
	ck_assert_uint_le(e.n, 8);
	for (size_t i = 0; i < e.n; i++)
		x[i] = &e.rows[i];
	calib_judge(probes, c, 4, st, x, e.n, res);
	calib_expect_release(&e);
}

START_TEST(test_normalise_exact)
{
	/* valgrind alu at 1e6: Ir = 110994 + 2n, exactly */
	struct calib_counts c = { .c0 = 110996, .c1 = 2110994, .c4 = 8110994, .n = 1000000 };
	double pu1, pu4, r;
	calib_normalise(&c, &pu1, &pu4, &r);
	ck_assert_double_eq(r, 2.0);
	ck_assert_double_eq(pu1, 2.0);
	ck_assert_double_eq(pu4, 2.0);
	ck_assert(calib_linear(&c));
}
END_TEST

/* A sampled backend's baseline at scale n0 (the run at 1 was too short to be seen): same per-unit values. */
START_TEST(test_normalise_longer_baseline)
{
	/* c(n) = 5000 + 3n at n0 = 4096, n = 1e6 */
	struct calib_counts c = { .c0 = 5000 + 3 * 4096.0, .c1 = 5000 + 3e6, .c4 = 5000 + 12e6, .n = 1000000, .n0 = 4096 };
	double pu1, pu4, r;
	calib_normalise(&c, &pu1, &pu4, &r);
	ck_assert_double_eq_tol(pu1, 3.0, 1e-12);
	ck_assert_double_eq_tol(pu4, 3.0, 1e-12);
	ck_assert_double_eq_tol(r, 3.0, 1e-12);
	/* Read as a baseline at 1, the same counts would give a wrong per-unit value. */
	c.n0 = 0;
	calib_normalise(&c, &pu1, &pu4, &r);
	ck_assert(fabs(pu1 - 3.0) > 0.01);
}
END_TEST

static const struct {
	double c0, c1, c4;
	bool linear;
} lin_cases[] = {
	{ 100, 1100, 4100, true },	/* affine */
	{ 100, 1100, 4800, true },	/* 4x gives 23% more per unit: within 25% */
	{ 100, 1100, 6100, false },	/* 4x gives 67% more per unit */
	{ 100, 1100, 2100, false },	/* saturates */
	{ 1000, 1010, 1100, true },	/* work is 1% of the constant: noise, not judged */
	{ 0, 0, 0, true },		/* nothing at all */
	{ 0, 0.0005, 0.001, true },	/* below the silent threshold */
};

START_TEST(test_linear_table)
{
	struct calib_counts c = { .c0 = lin_cases[_i].c0, .c1 = lin_cases[_i].c1, .c4 = lin_cases[_i].c4, .n = 1000 };
	ck_assert_msg(calib_linear(&c) == lin_cases[_i].linear, "case %d", _i);
}
END_TEST

/*
 * Linearity against the rounds' spread: c0/c1/c4 are the smallest of the rounds, hi0/hi1/hi4 the
 * largest (n = 1000).  Explained when moving each count by its spread, either way, can make the probe
 * linear (per unit 4x within 25% of 1x).
 */
static const struct {
	double c0, c1, c4, hi0, hi1, hi4;
	bool explains;
	double spread;	/* calib_spread: the largest (hi - c) / c, worked out by hand */
	const char *why;
} spread_cases[] = {
	{ 100, 1100, 6100, 0, 0, 0, false, 0, "one run (exact): no spread, nothing explained" },
	{ 100, 1100, 6100, 100, 1100, 6100, false, 0, "rounds that agree: no spread" },
	{ 100, 1100, 6100, 100, 1100, 8100, true, 2000.0 / 6100, "4x moved by 2000: 4100 is within it" },
	{ 100, 1100, 6100, 100, 1100, 6200, false, 100.0 / 6100, "4x moved by 100: still 47% more per unit" },
	{ 100, 1100, 2100, 101, 1110, 2120, false, 0.01, "saturates, and the rounds agree within 1%" },
	/* the chase probe's task-clock (ms) on a busy VM: a 740 ms set-up, 4x runs 2.2-2.5 s */
	{ 740, 1020, 2200, 800, 1100, 2500, true, 300.0 / 2200, "minima 30% off, rounds 14% apart" },
	{ 1000, 1300, 3000, 1400, 1300, 3000, true, 0.4, "the baseline's spread crosses the 1x count: a pole" },
};

START_TEST(test_spread_table)
{
	struct calib_counts c = { spread_cases[_i].c0, spread_cases[_i].c1, spread_cases[_i].c4, 1000, 0,
				  spread_cases[_i].hi0, spread_cases[_i].hi1, spread_cases[_i].hi4 };
	ck_assert_msg(!calib_linear(&c), "%s: linear by the minima", spread_cases[_i].why);
	ck_assert_msg(calib_spread_explains(&c) == spread_cases[_i].explains, "%s", spread_cases[_i].why);
	ck_assert_double_eq_tol(calib_spread(&c), spread_cases[_i].spread, 1e-12);
}
END_TEST

/* An event whose minima read non-linear within the rounds' spread is "noisy": neither validated nor failed. */
START_TEST(test_judge_noisy)
{
	struct calib_counts c[4];
	static const double r[4] = { 0.3, 180, 4, 20 };
	static const char checks[] = "any\tX\talu\tlinear\t-\n";
	affine4(c, 1e8, r, 1000000);
	c[1].c4 = 1e8 + (c[1].c4 - 1e8) * 1.4;	/* chase's 4x 40% more per unit */
	struct calib_result res;
	judge_rows(checks, c, CALIB_MEASURED, &res);
	ck_assert_str_eq(res.verdict, "not linear");	/* no spread known */
	c[1].hi0 = c[1].c0 * 1.05;
	c[1].hi1 = c[1].c1 * 1.1;
	c[1].hi4 = c[1].c4 * 1.3;
	judge_rows(checks, c, CALIB_MEASURED, &res);
	ck_assert_str_eq(res.verdict, "noisy");
	ck_assert(!res.failed && !calib_verdict_failed("noisy"));
	c[1].hi0 = c[1].c0 * 1.005;	/* the rounds agree within 1%: the bend is real */
	c[1].hi1 = c[1].c1 * 1.005;
	c[1].hi4 = c[1].c4 * 1.01;
	judge_rows(checks, c, CALIB_MEASURED, &res);
	ck_assert_str_eq(res.verdict, "not linear");
}
END_TEST

static const struct {
	double alu, chase, branch, store;
	const char *profile;
} profile_cases[] = {
	{ 2, 3, 8.5, 9, "work-like" },			/* Ir */
	{ 0, 1, 0, 0, "memory-bound-like" },		/* D1mr */
	{ 0.001, 0, 0, 1, "memory-bound-like" },	/* D1mw: store counts as memory */
	{ 0.3, 180, 4, 20, "memory-bound-like" },	/* task-clock (ns) */
	{ 0, 0, 0.5, 0, "branch-like" },		/* Bcm */
	{ 0.01, 0, 0.5, 0, "branch-like" },		/* 50x the control */
	{ 0.1, 0, 0.5, 0, "work-like" },		/* only 5x: no dominance */
	{ 0, 0, 0, 0, "none" },
	{ 0, 1, 1, 0, "none" },				/* chase and branch alike, not alu */
};

START_TEST(test_profile_table)
{
	double r[4] = { profile_cases[_i].alu, profile_cases[_i].chase, profile_cases[_i].branch,
			profile_cases[_i].store };
	ck_assert_str_eq(calib_profile(probes, r, 4), profile_cases[_i].profile);
}
END_TEST

static const char tsv[] =
	"# comment\n"
	"\n"
	"valgrind\tIr\talu\t2\t0.001\tnote\n"
	"valgrind\tD1mr\tchase\t1\t5%\n"
	"valgrind\tD1mr\tchase\t>=100x alu\t-\n"
	"any\tinstructions\talu\t2\t2%\n"
	"any\tinstructions\tchase\t3\t2%\n"
	"perf\ttask-clock\talu\tlinear\t-\n";

START_TEST(test_expect_parse)
{
	struct calib_expectations e;
	char err[200] = "";
	ck_assert_int_eq(calib_expect_parse(tsv, &e, err, sizeof(err)), 0);
	ck_assert_uint_eq(e.n, 6);
	ck_assert_str_eq(e.rows[0].event, "Ir");
	ck_assert_int_eq(e.rows[0].check, CALIB_VALUE);
	ck_assert_double_eq(e.rows[0].value, 2);
	ck_assert_double_eq(e.rows[0].tol, 0.001);
	ck_assert(!e.rows[0].tol_rel);
	ck_assert(e.rows[1].tol_rel);
	ck_assert_double_eq_tol(e.rows[1].tol, 0.05, 1e-12);
	ck_assert_int_eq(e.rows[2].check, CALIB_RATIO);
	ck_assert_double_eq(e.rows[2].value, 100);
	ck_assert_str_eq(e.rows[2].ref, "alu");
	ck_assert_int_eq(e.rows[5].check, CALIB_LINEAR);
	ck_assert_int_eq(e.rows[5].line, 8);

	/* valgrind's Ir row hides the "any instructions" row for alu, not for chase */
	struct lk_pmu pmu;
	ck_assert_int_eq(valgrind_catalog(&pmu, err, sizeof(err)), 0);
	const struct calib_expect *x[8];
	size_t n = calib_expect_for(&e, &pmu, pmu_find(&pmu, "Ir"), x, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(x[0]->kind, "valgrind");
	ck_assert_str_eq(x[1]->kind, "any");
	ck_assert_str_eq(x[1]->probe, "chase");
	ck_assert_uint_eq(calib_expect_for(&e, &pmu, pmu_find(&pmu, "D1mr"), x, 8), 2);
	ck_assert_uint_eq(calib_expect_for(&e, &pmu, pmu_find(&pmu, "Bim"), x, 8), 0);
	pmu_release(&pmu);
	calib_expect_release(&e);
}
END_TEST

static const struct {
	const char *row, *why;
} bad_rows[] = {
	{ "valgrind\tIr\talu\t2\n", "expected kind" },
	{ "valgrind\tIr\talu\ttwo\t0.1\n", "not a number" },
	{ "valgrind\tIr\talu\t2\t\n", "needs a tolerance" },
	{ "valgrind\tIr\talu\t2\tabc%\n", "tolerance 'abc%'" },
	{ "valgrind\tIr\tchase\t>=100 alu\t-\n", "not like '>=100x alu'" },
	{ "valgrind\tIr\tchase\t>=x alu\t-\n", "no factor" },
	{ "valgrind\tIr\talu\tlinear\t5%\n", "takes none" },
	{ "\tIr\talu\t2\t1\n", "empty" },
};

START_TEST(test_expect_bad)
{
	struct calib_expectations e;
	char err[200] = "";
	ck_assert_int_eq(calib_expect_parse(bad_rows[_i].row, &e, err, sizeof(err)), -LK_EINVAL);
	ck_assert_msg(strstr(err, bad_rows[_i].why) && strstr(err, "line 1"), "%d: %s", _i, err);
	ck_assert_uint_eq(e.n, 0);
}
END_TEST

/* The shipped table parses, and every valgrind row names a valgrind event. */
START_TEST(test_expect_builtin)
{
	struct calib_expectations e;
	char err[200] = "";
	ck_assert_msg(calib_expect_builtin(&e, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_gt(e.n, 20);
	struct lk_pmu pmu;
	ck_assert_int_eq(valgrind_catalog(&pmu, err, sizeof(err)), 0);
	for (size_t i = 0; i < e.n; i++) {
		ck_assert_msg(!strcmp(e.rows[i].probe, "alu") || !strcmp(e.rows[i].probe, "chase") ||
				      !strcmp(e.rows[i].probe, "branch") || !strcmp(e.rows[i].probe, "store"),
			      "line %d: probe %s", e.rows[i].line, e.rows[i].probe);
		if (!strcmp(e.rows[i].kind, "valgrind"))
			ck_assert_msg(pmu_find(&pmu, e.rows[i].event), "line %d: %s", e.rows[i].line, e.rows[i].event);
	}
	pmu_release(&pmu);
	calib_expect_release(&e);
}
END_TEST

/* Verdict rules: one event, four probes, synthetic affine responses. */
static const struct {
	const char *name;
	double k, r[4];		/* constant and per-unit response per probe */
	double bend;		/* multiply c4 on chase by this (non-linearity) */
	enum calib_state state;
	const char *checks;	/* expectation rows for event X */
	const char *verdict, *profile;
} judge_cases[] = {
	{ "exact", 1e5, { 2, 3, 8, 9 }, 1, CALIB_MEASURED,
	  "any\tX\talu\t2\t0.001\nany\tX\tchase\t3\t0.001\n", "validated", "work-like" },
	{ "off", 1e5, { 2.1, 3, 8, 9 }, 1, CALIB_MEASURED, "any\tX\talu\t2\t0.001\n", "off by 5.0%", "work-like" },
	{ "off relative", 10, { 0, 0.6, 0, 0 }, 1, CALIB_MEASURED, "any\tX\tchase\t0.5\t10%\n", "off by 20%",
	  "memory-bound-like" },
	{ "zero expected", 10, { 0.02, 1, 0, 0 }, 1, CALIB_MEASURED, "any\tX\talu\t0\t0.001\n", "off by 2.0%",
	  "memory-bound-like" },
	{ "ratio holds", 10, { 0, 1, 0, 0 }, 1, CALIB_MEASURED, "any\tX\tchase\t>=100x alu\t-\n", "validated",
	  "memory-bound-like" },
	{ "ratio fails", 10, { 0.05, 1, 0, 0 }, 1, CALIB_MEASURED, "any\tX\tchase\t>=100x alu\t-\n", "off by 80%",
	  "memory-bound-like" },
	/* a "cycles" that counts instructions (QEMU's PMU): a chase step costs what an alu iteration does */
	{ "does not see memory", 1e5, { 2, 3, 2.5, 2 }, 1, CALIB_MEASURED, "any\tX\tchase\t>=20x alu\t-\n",
	  "does not see memory (chase)", "work-like" },
	{ "silent", 1e4, { 0, 0, 0, 0 }, 1, CALIB_MEASURED, "", "silent", "none" },
	/* issue 36 P6: 0 in every run, the baselines too: the counter is dead here, not silent */
	{ "dead", 0, { 0, 0, 0, 0 }, 1, CALIB_MEASURED, "", "dead here", "none" },
	{ "dead, zero expected", 0, { 0, 0, 0, 0 }, 1, CALIB_MEASURED, "any\tX\talu\t0\t0.001\n", "dead here", "none" },
	{ "dead, response expected", 0, { 0, 0, 0, 0 }, 1, CALIB_MEASURED, "any\tX\talu\t2\t0.001\n", "dead here",
	  "none" },
	{ "silent, zero expected", 1e4, { 0, 0, 0, 0 }, 1, CALIB_MEASURED, "any\tX\talu\t0\t0.001\n", "silent", "none" },
	{ "silent, response expected", 1e4, { 0, 0, 0, 0 }, 1, CALIB_MEASURED, "any\tX\talu\t2\t0.001\n",
	  "off by 100%", "none" },
	/* peak RSS of a 256 MiB chase: noise of a few KB on a large constant is not a response */
	{ "noise on a constant", 2.68e8, { 0.01, -0.03, 0, -0.005 }, 1, CALIB_MEASURED, "", "silent", "none" },
	{ "not linear", 10, { 1, 1, 1, 1 }, 2, CALIB_MEASURED, "", "not linear", "work-like" },
	{ "no expectation", 10, { 0, 0, 0.5, 0 }, 1, CALIB_MEASURED, "", "linear", "branch-like" },
	{ "linear check", 1e6, { 0.3, 180, 4, 20 }, 1, CALIB_MEASURED, "perf\tX\talu\tlinear\t-\n", "validated",
	  "memory-bound-like" },
	{ "linear check, silent probe", 1e6, { 0, 1, 0, 0 }, 1, CALIB_MEASURED, "any\tX\talu\tlinear\t-\n",
	  "off by 100%", "memory-bound-like" },
	{ "unsupported", 0, { 0 }, 1, CALIB_UNSUPPORTED, "any\tX\talu\t2\t0.001\n", "unsupported", "none" },
	{ "unschedulable", 0, { 0 }, 1, CALIB_UNSCHEDULABLE, "", "unschedulable", "none" },
};

START_TEST(test_judge_table)
{
	struct calib_counts c[4];
	affine4(c, judge_cases[_i].k, judge_cases[_i].r, 1000000);
	c[1].c4 = judge_cases[_i].k + (c[1].c4 - judge_cases[_i].k) * judge_cases[_i].bend;
	struct calib_result res;
	judge_rows(judge_cases[_i].checks, c, judge_cases[_i].state, &res);
	ck_assert_msg(!strcmp(res.verdict, judge_cases[_i].verdict), "%s: verdict '%s', want '%s'",
		      judge_cases[_i].name, res.verdict, judge_cases[_i].verdict);
	ck_assert_msg(!strcmp(res.profile, judge_cases[_i].profile), "%s: profile '%s', want '%s'",
		      judge_cases[_i].name, res.profile, judge_cases[_i].profile);
	ck_assert(res.failed == calib_verdict_failed(res.verdict));
}
END_TEST

START_TEST(test_judge_details)
{
	struct calib_counts c[4];
	static const double r[4] = { 2, 3, 8, 9 };
	affine4(c, 1000, r, 1000);
	struct calib_result res;
	judge_rows("any\tX\talu\t2\t0.001\nany\tX\tchase\t>=1x alu\t-\nany\tX\tbranch\t8\t5%\n", c, CALIB_MEASURED,
		   &res);
	ck_assert_str_eq(res.verdict, "validated");
	ck_assert_str_eq(res.expect_text, "alu 2 ±0.001; chase >=1x alu; branch 8 ±5%");
	ck_assert_double_eq(res.expected[0], 2);
	ck_assert(isnan(res.expected[1]));
	ck_assert_double_eq(res.expected[2], 8);
	ck_assert(isnan(res.expected[3]));
	for (int i = 0; i < 4; i++) {
		ck_assert_double_eq_tol(res.response[i], r[i], 1e-9);
		ck_assert_double_eq_tol(res.per_unit_1x[i], r[i], 1e-9);
		ck_assert_double_eq_tol(res.per_unit_4x[i], r[i], 1e-9);
	}
}
END_TEST

/* Issue 36 P6: Arm's PMUv3 rows (pmuv3:0xNN) match by encoding: libpfm4's row, a sysfs event of a core
 * PMU named after the core, a raw PMU-form event; not an uncore PMU's event of that number, not x86. */
START_TEST(test_expect_pmuv3_number)
{
	struct calib_expectations e;
	char err[200] = "";
	ck_assert_msg(calib_expect_builtin(&e, err, sizeof(err)) == 0, "%s", err);
	struct lk_pmu arm, x86;
	test_pmu(&arm, "perf", NULL, "arm64", 0, 0);
	test_pmu(&x86, "perf", NULL, "x86_64", 0, 0);
	static const struct { const char *name; uint32_t type; uint64_t number; size_t arm_checks; } evs[] = {
		{ "CPU_CYCLES", 4, 0x11, 1 },
		{ "armv8_cortex_a72/cpu_cycles/", 8, 0x11, 1 },
		{ "armv8_cortex_a72/event=0x4/", 8, 0x4, 2 },
		{ "L1D_CACHE_REFILL", 4, 0x3, 2 },
		{ "BR_RETIRED", 4, 0x21, 1 },
		{ "LD_RETIRED", 4, 0x6, 1 },
		{ "arm_dsu_0/cycles/", 9, 0x11, 0 },
		{ "armv8_cortex_a72/long/", 8, 0x8, 1 },
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(*evs); i++) {
		struct lk_event ev = { .name = (char *)evs[i].name, .perf_type = evs[i].type, .number = evs[i].number,
				       .fixed_counter = -1 };
		pmu_add_event(&arm, &ev);
		pmu_add_event(&x86, &ev);
	}
	for (size_t i = 0; i < sizeof(evs) / sizeof(*evs); i++) {
		const struct calib_expect *x[8];
		size_t n = calib_expect_for(&e, &arm, pmu_find(&arm, evs[i].name), x, 8);
		ck_assert_msg(n == evs[i].arm_checks, "%s: %zu checks", evs[i].name, n);
		for (size_t k = 0; k < n; k++)
			ck_assert_str_eq(x[k]->kind, "perf");
		if (!strcmp(evs[i].name, "CPU_CYCLES"))
			ck_assert_str_eq(x[0]->ref, "alu");
		ck_assert_uint_eq(calib_expect_for(&e, &x86, pmu_find(&x86, evs[i].name), x, 8), 0);
	}
	pmu_release(&arm);
	pmu_release(&x86);
	calib_expect_release(&e);
}
END_TEST

static const struct {
	const char *verdict;
	bool failed;
} failed_cases[] = {
	{ "validated", false }, { "linear", false }, { "unsupported", false }, { "unschedulable", false },
	{ "off by 12%", true }, { "not linear", true }, { "silent", false }, { "dead here", true },
	{ "does not see memory (chase)", true },
};

START_TEST(test_verdict_failed)
{
	ck_assert(calib_verdict_failed(failed_cases[_i].verdict) == failed_cases[_i].failed);
}
END_TEST

START_TEST(test_scales)
{
	for (int q = 0; q < 2; q++)
		for (int s = 0; s < 2; s++) {
			size_t n;
			const struct calib_scale *sc = calib_scales(q, s, &n);
			ck_assert_uint_eq(n, 4);
			for (size_t i = 0; i < n; i++) {
				ck_assert_str_eq(sc[i].probe, probes[i]);
				ck_assert_uint_gt(sc[i].n, 1000);
			}
		}
}
END_TEST

extern Suite *calib_suite(void);
Suite *calib_suite(void)
{
	Suite *s = suite_create("calib");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, test_normalise_exact);
	tcase_add_test(tc, test_expect_pmuv3_number);
	tcase_add_test(tc, test_normalise_longer_baseline);
	tcase_add_loop_test(tc, test_linear_table, 0, ARRAY_SIZE(lin_cases));
	tcase_add_loop_test(tc, test_spread_table, 0, ARRAY_SIZE(spread_cases));
	tcase_add_test(tc, test_judge_noisy);
	tcase_add_loop_test(tc, test_profile_table, 0, ARRAY_SIZE(profile_cases));
	tcase_add_test(tc, test_expect_parse);
	tcase_add_loop_test(tc, test_expect_bad, 0, ARRAY_SIZE(bad_rows));
	tcase_add_test(tc, test_expect_builtin);
	tcase_add_loop_test(tc, test_judge_table, 0, ARRAY_SIZE(judge_cases));
	tcase_add_test(tc, test_judge_details);
	tcase_add_loop_test(tc, test_verdict_failed, 0, ARRAY_SIZE(failed_cases));
	tcase_add_test(tc, test_scales);
	suite_add_tcase(s, tc);
	return s;
}
