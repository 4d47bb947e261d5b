/* check_stats.c: summary statistics, Student t quantiles and deltas on known numbers. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/stats.h"

#define EPS 1e-9

static const struct {
	double v[10];
	size_t n;
	double mean, sd, min, max, q1, median, q3;
	size_t outliers;
	size_t nan;	/* how many of the n are NAN (runs not counted), left out of the rest */
} stat_cases[] = {
	/* one value: sd 0, no outliers */
	{ { 5 }, 1, 5, 0, 5, 5, 5, 5, 5, 0, 0 },
	{ { 1, 2, 3 }, 3, 2, 1, 1, 3, 1.5, 2, 2.5, 0, 0 },
	{ { 4, 4, 4, 4 }, 4, 4, 0, 4, 4, 4, 4, 4, 0, 0 },
	/* 100 lies beyond q3 + 1.5 IQR = 4 + 3 = 7 */
	{ { 1, 2, 3, 4, 100 }, 5, 22, 43.617656975128774, 1, 100, 2, 3, 4, 1, 0 },
	/* order does not matter; -50 lies below q1 - 1.5 IQR */
	{ { 10, -50, 11, 12, 10, 11 }, 6, 0.6666666666666666, 24.8327740429189, -50, 12, 10, 10.5, 11, 1, 0 },
	/* fences 1.75 .. 7.75: 9 is an outlier */
	{ { 2, 4, 4, 4, 5, 5, 7, 9 }, 8, 5, 2.138089935299395, 2, 9, 4, 4.5, 5.5, 1, 0 },
	/* runs that were not counted (NAN) are left out, not read as 0: the rows above again */
	{ { NAN, 1, 2, NAN, 3 }, 5, 2, 1, 1, 3, 1.5, 2, 2.5, 0, 2 },
	{ { 2, 4, 4, NAN, 4, 5, 5, 7, 9, NAN }, 10, 5, 2.138089935299395, 2, 9, 4, 4.5, 5.5, 1, 2 },
	{ { NAN, 5 }, 2, 5, 0, 5, 5, 5, 5, 5, 0, 1 },
	/* none counted: empty statistics */
	{ { NAN, NAN, NAN }, 3, 0, 0, 0, 0, 0, 0, 0, 0, 3 },
};

START_TEST(test_stats_table)
{
	struct lk_stats st;
	stats_compute(stat_cases[_i].v, stat_cases[_i].n, &st);
	ck_assert_uint_eq(st.n, stat_cases[_i].n - stat_cases[_i].nan);
	ck_assert_double_eq_tol(st.mean, stat_cases[_i].mean, EPS);
	ck_assert_double_eq_tol(st.sd, stat_cases[_i].sd, 1e-9);
	ck_assert_double_eq_tol(st.min, stat_cases[_i].min, EPS);
	ck_assert_double_eq_tol(st.max, stat_cases[_i].max, EPS);
	ck_assert_double_eq_tol(st.q1, stat_cases[_i].q1, EPS);
	ck_assert_double_eq_tol(st.median, stat_cases[_i].median, EPS);
	ck_assert_double_eq_tol(st.q3, stat_cases[_i].q3, EPS);
	ck_assert_uint_eq(st.outliers, stat_cases[_i].outliers);
}
END_TEST

START_TEST(test_stats_empty)
{
	struct lk_stats st;
	stats_compute(NULL, 0, &st);
	ck_assert_uint_eq(st.n, 0);
	ck_assert_double_eq(st.mean, 0);
}
END_TEST

START_TEST(test_stats_large_values_stable)
{
	/* Counts near 1e12 with a spread of 1: naive sum-of-squares loses this. */
	double v[] = { 1e12 + 1, 1e12 + 2, 1e12 + 3 };
	struct lk_stats st;
	stats_compute(v, 3, &st);
	ck_assert_double_eq_tol(st.sd, 1.0, 1e-6);
}
END_TEST

/* Two-sided 95% critical values of Student's t (standard tables). */
static const struct {
	double df, t;
} t_cases[] = {
	{ 1, 12.7062047 }, { 2, 4.3026527 }, { 3, 3.1824463 }, { 4, 2.7764451 }, { 5, 2.5705818 },
	{ 10, 2.2281389 }, { 28, 2.0484071 }, { 29, 2.0452296 }, { 30, 2.0422725 }, { 60, 2.0002978 },
	{ 120, 1.9799304 }, { 1e9, 1.9599640 },
};

START_TEST(test_t_crit)
{
	ck_assert_double_eq_tol(t_crit95(t_cases[_i].df), t_cases[_i].t, 1e-5);
}
END_TEST

/* Two-sided critical values at the levels of a gate's looks (issue 37), from scipy 1.10.1: t.ppf(1 - a/2, df). */
static const struct {
	double df, alpha, t;
} t_level_cases[] = {
	{ 1, 0.01, 63.6567411629 }, { 1, 0.05 / 3, 38.1884592970 }, { 1, 0.0125, 50.9230366683 },
	{ 2, 0.01, 9.9248432009 }, { 2, 0.05 / 3, 7.6488039379 }, { 2, 0.0125, 8.8602000347 },
	{ 4, 0.01, 4.6040948714 }, { 4, 0.05 / 3, 3.9607864828 }, { 4, 0.0125, 4.3146560489 },
	{ 10, 0.01, 3.1692726672 }, { 10, 0.05 / 3, 2.8700725545 }, { 10, 0.0125, 3.0382433313 },
	{ 30, 0.01, 2.7499956536 }, { 30, 0.05 / 3, 2.5357416054 }, { 30, 0.0125, 2.6573552554 },
	{ 1e9, 0.01, 2.5758293085 }, { 1e9, 0.05 / 3, 2.3939798038 }, { 1e9, 0.0125, 2.4977054789 },
};

START_TEST(test_t_crit_level)
{
	double t = t_crit(t_level_cases[_i].df, t_level_cases[_i].alpha);
	ck_assert_msg(fabs(t - t_level_cases[_i].t) < 1e-6 * t_level_cases[_i].t, "df %g alpha %g: %.10f, want %.10f",
		      t_level_cases[_i].df, t_level_cases[_i].alpha, t, t_level_cases[_i].t);
}
END_TEST

START_TEST(test_t_crit_fractional_between)
{
	double t = t_crit95(4.5);
	ck_assert(t < t_crit95(4) && t > t_crit95(5));
}
END_TEST

/* Cases with no spread on either side, or no usable reference: decided without t. */
static const struct {
	struct lk_stats ref, cur;
	int valid, bounded;
	double pct, low, high;
	enum delta_verdict verdict;
} delta_cases[] = {
	/* deterministic counts (valgrind): no spread, any change beyond 1% is certain */
	{ { .n = 3, .mean = 100 }, { .n = 3, .mean = 110 }, 1, 1, 10, 10, 10, DELTA_WORSE },
	{ { .n = 3, .mean = 100 }, { .n = 3, .mean = 50 }, 1, 1, -50, -50, -50, DELTA_BETTER },
	/* within the 1% practical threshold: never flagged, however certain */
	{ { .n = 3, .mean = 100 }, { .n = 3, .mean = 100.5 }, 1, 1, 0.5, 0.5, 0.5, DELTA_NONE },
	{ { .n = 1, .mean = 100 }, { .n = 1, .mean = 99.5 }, 1, 1, -0.5, -0.5, -0.5, DELTA_NONE },
	/* reference mean 0: no relative change, unless both are 0 throughout */
	{ { .n = 3, .mean = 0 }, { .n = 3, .mean = 5 }, 0, 0, 0, NAN, NAN, DELTA_NONE },
	{ { .n = 3, .mean = 0 }, { .n = 3, .mean = 0 }, 1, 1, 0, 0, 0, DELTA_NONE },
	{ { .n = 3, .mean = 0, .sd = 1, .min = -1 }, { .n = 3, .mean = 0 }, 1, 0, 0, NAN, NAN, DELTA_NONE },
};

static void check_bound(const char *what, double got, double want, double tol)
{
	if (isnan(want))
		ck_assert_msg(isnan(got), "%s: %.17g, want NAN", what, got);
	else
		ck_assert_msg(fabs(got - want) <= tol, "%s: %.17g, want %.17g", what, got, want);
}

START_TEST(test_delta_table)
{
	struct lk_delta d;
	compare_delta(&delta_cases[_i].ref, &delta_cases[_i].cur, &d);
	ck_assert_int_eq(d.valid, delta_cases[_i].valid);
	ck_assert_int_eq(d.bounded, delta_cases[_i].bounded);
	ck_assert_double_eq_tol(d.pct, delta_cases[_i].pct, 1e-9);
	check_bound("ci_low", d.ci_low, delta_cases[_i].low, 1e-9);
	check_bound("ci_high", d.ci_high, delta_cases[_i].high, 1e-9);
	ck_assert_int_eq(d.verdict, delta_cases[_i].verdict);
}
END_TEST

#define MAX_SAMPLES 64

static size_t parse_samples(char *s, double *v)
{
	size_t n = 0;
	for (char *tok = strtok(s, " "); tok && n < MAX_SAMPLES; tok = strtok(NULL, " "))
		v[n++] = strtod(tok, NULL);
	return n;
}

static double parse_bound(const char *s)
{
	return strcmp(s, "unbounded") ? strtod(s, NULL) : NAN;
}

/*
 * Fieller's interval against tests/fixtures/fieller/delta.tsv, which scipy
 * computed once from the samples by root-finding on the definition (see
 * gen.py there).  The samples go through stats_compute() as in `record`.
 */
static const struct {
	const char *file;
	double alpha;
} fieller_fixtures[] = {
	{ LAUKA_SRCDIR "/tests/fixtures/fieller/delta.tsv", 0.05 },
	/* a gate's widened interval (issue 37: 5 looks, each at 0.05 / 5) */
	{ LAUKA_SRCDIR "/tests/fixtures/fieller/delta-99.tsv", 0.01 },
};

START_TEST(test_delta_fieller_fixture)
{
	FILE *f = fopen(fieller_fixtures[_i].file, "r");
	ck_assert_ptr_nonnull(f);
	char *line = NULL;
	size_t cap = 0, rows = 0, unbounded = 0, verdicts[3] = { 0 };
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *col[7];
		size_t ncol = 0;
		for (char *p = line, *tab; ncol < 7; p = tab + 1) {
			col[ncol++] = p;
			if (!(tab = strchr(p, '\t')))
				break;
			*tab = '\0';
		}
		ck_assert_uint_eq(ncol, 7);
		double a[MAX_SAMPLES], b[MAX_SAMPLES];
		size_t na = parse_samples(col[1], a), nb = parse_samples(col[2], b);
		struct lk_stats sa, sb;
		stats_compute(a, na, &sa);
		stats_compute(b, nb, &sb);
		struct lk_delta d;
		if (fieller_fixtures[_i].alpha == 0.05)
			compare_delta(&sa, &sb, &d);
		else
			compare_delta_level(&sa, &sb, fieller_fixtures[_i].alpha, &d);
		double pct = strtod(col[3], NULL), low = parse_bound(col[4]), high = parse_bound(col[5]);
		enum delta_verdict v = !strcmp(col[6], "worse") ? DELTA_WORSE
				     : !strcmp(col[6], "better") ? DELTA_BETTER : DELTA_NONE;
		ck_assert_msg(d.valid, "%s: invalid", col[0]);
		ck_assert_msg(fabs(d.pct - pct) <= 1e-9 * fmax(1, fabs(pct)), "%s: pct %.17g, want %.17g", col[0], d.pct, pct);
		ck_assert_msg(d.bounded == !isnan(low), "%s: bounded %d", col[0], d.bounded);
		check_bound(col[0], d.ci_low, low, 1e-8 * fmax(1, fabs(low)));
		check_bound(col[0], d.ci_high, high, 1e-8 * fmax(1, fabs(high)));
		ck_assert_msg(d.verdict == v, "%s: verdict %d, want %d", col[0], d.verdict, v);
		rows++;
		unbounded += !d.bounded;
		verdicts[v + 1]++;
	}
	free(line);
	fclose(f);
	/* the table covers every kind of answer */
	ck_assert_uint_ge(rows, 30);
	ck_assert_uint_ge(unbounded, 2);
	ck_assert_uint_ge(verdicts[0], 1);
	ck_assert_uint_ge(verdicts[1], 1);
	ck_assert_uint_ge(verdicts[2], 1);
}
END_TEST

START_TEST(test_delta_never_below_minus_100)
{
	/* b not clearly above 0: Fieller's lower root is negative, but a ratio of counts is not */
	double a[] = { 100, 102, 98 }, b[] = { 0, 9, 0.5 };
	struct lk_stats sa, sb;
	stats_compute(a, 3, &sa);
	stats_compute(b, 3, &sb);
	struct lk_delta d;
	compare_delta(&sa, &sb, &d);
	ck_assert(d.bounded);
	ck_assert_double_eq(d.ci_low, -100);
	ck_assert(d.ci_high > d.pct && d.pct > d.ci_low);
}
END_TEST

Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("summary");
	tcase_add_loop_test(tc, test_stats_table, 0, sizeof(stat_cases) / sizeof(*stat_cases));
	tcase_add_test(tc, test_stats_empty);
	tcase_add_test(tc, test_stats_large_values_stable);
	suite_add_tcase(s, tc);
	tc = tcase_create("compare");
	tcase_add_loop_test(tc, test_t_crit, 0, sizeof(t_cases) / sizeof(*t_cases));
	tcase_add_test(tc, test_t_crit_fractional_between);
	tcase_add_loop_test(tc, test_delta_table, 0, sizeof(delta_cases) / sizeof(*delta_cases));
	tcase_add_loop_test(tc, test_delta_fieller_fixture, 0, sizeof(fieller_fixtures) / sizeof(*fieller_fixtures));
	tcase_add_loop_test(tc, test_t_crit_level, 0, sizeof(t_level_cases) / sizeof(*t_level_cases));
	tcase_add_test(tc, test_delta_never_below_minus_100);
	suite_add_tcase(s, tc);
	return s;
}
