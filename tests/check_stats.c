/* check_stats.c: summary statistics, Student t quantiles and deltas on known numbers. */
#include <check.h>
#include <math.h>

#include "compare.h"
#include "stats.h"

#define EPS 1e-9

static const struct {
	double v[8];
	size_t n;
	double mean, sd, min, max, q1, median, q3;
	size_t outliers;
} stat_cases[] = {
	/* one value: sd 0, no outliers */
	{ { 5 }, 1, 5, 0, 5, 5, 5, 5, 5, 0 },
	{ { 1, 2, 3 }, 3, 2, 1, 1, 3, 1.5, 2, 2.5, 0 },
	{ { 4, 4, 4, 4 }, 4, 4, 0, 4, 4, 4, 4, 4, 0 },
	/* 100 lies beyond q3 + 1.5 IQR = 4 + 3 = 7 */
	{ { 1, 2, 3, 4, 100 }, 5, 22, 43.617656975128774, 1, 100, 2, 3, 4, 1 },
	/* order does not matter; -50 lies below q1 - 1.5 IQR */
	{ { 10, -50, 11, 12, 10, 11 }, 6, 0.6666666666666666, 24.8327740429189, -50, 12, 10, 10.5, 11, 1 },
	/* fences 1.75 .. 7.75: 9 is an outlier */
	{ { 2, 4, 4, 4, 5, 5, 7, 9 }, 8, 5, 2.138089935299395, 2, 9, 4, 4.5, 5.5, 1 },
};

START_TEST(test_stats_table)
{
	struct lk_stats st;
	stats_compute(stat_cases[_i].v, stat_cases[_i].n, &st);
	ck_assert_uint_eq(st.n, stat_cases[_i].n);
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

START_TEST(test_t_crit_fractional_between)
{
	double t = t_crit95(4.5);
	ck_assert(t < t_crit95(4) && t > t_crit95(5));
}
END_TEST

static struct lk_stats mk(double mean, double sd, size_t n)
{
	struct lk_stats s = { .n = n, .mean = mean, .sd = sd, .min = mean, .max = mean };
	return s;
}

static const struct {
	struct lk_stats ref, cur;
	int valid;
	double pct, half;
	enum delta_verdict verdict;
} delta_cases[] = {
	/* deterministic counts (valgrind): no spread, any change beyond 1% is certain */
	{ { .n = 3, .mean = 100 }, { .n = 3, .mean = 110 }, 1, 10, 0, DELTA_WORSE },
	{ { .n = 3, .mean = 100 }, { .n = 3, .mean = 50 }, 1, -50, 0, DELTA_BETTER },
	/* within the 1% practical threshold: never flagged, however certain */
	{ { .n = 3, .mean = 100 }, { .n = 3, .mean = 100.5 }, 1, 0.5, 0, DELTA_NONE },
	/* equal sd 10, n 3 each: se = sqrt(200/3) = 8.165, Welch df = 4, t = 2.7764 -> half 22.67% */
	{ { .n = 3, .mean = 100, .sd = 10 }, { .n = 3, .mean = 130, .sd = 10 }, 1, 30, 22.6697, DELTA_WORSE },
	{ { .n = 3, .mean = 100, .sd = 10 }, { .n = 3, .mean = 110, .sd = 10 }, 1, 10, 22.6697, DELTA_NONE },
	/* interval crosses -1%: not significant */
	{ { .n = 3, .mean = 100, .sd = 10 }, { .n = 3, .mean = 80, .sd = 10 }, 1, -20, 22.6697, DELTA_NONE },
	/* reference mean 0 */
	{ { .n = 3, .mean = 0 }, { .n = 3, .mean = 5 }, 0, 0, 0, DELTA_NONE },
	{ { .n = 3, .mean = 0 }, { .n = 3, .mean = 0 }, 1, 0, 0, DELTA_NONE },
};

START_TEST(test_delta_table)
{
	struct lk_delta d;
	compare_delta(&delta_cases[_i].ref, &delta_cases[_i].cur, &d);
	ck_assert_int_eq(d.valid, delta_cases[_i].valid);
	ck_assert_double_eq_tol(d.pct, delta_cases[_i].pct, 1e-9);
	ck_assert_double_eq_tol(d.half, delta_cases[_i].half, 1e-3);
	ck_assert_int_eq(d.verdict, delta_cases[_i].verdict);
}
END_TEST

START_TEST(test_delta_unequal_variance_uses_welch_df)
{
	/* v1 = 100/3, v2 = 1/3 -> df = (101/3)^2 / ((100/3)^2/2 + (1/3)^2/2) ~= 2.0398 */
	struct lk_stats a = mk(100, 10, 3), b = mk(150, 1, 3);
	struct lk_delta d;
	compare_delta(&a, &b, &d);
	double se = sqrt(100.0 / 3 + 1.0 / 3);
	double df = pow(101.0 / 3, 2) / (pow(100.0 / 3, 2) / 2 + pow(1.0 / 3, 2) / 2);
	ck_assert_double_eq_tol(d.half, t_crit95(df) * se, 1e-9);
	ck_assert_int_eq(d.verdict, DELTA_WORSE);
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
	tcase_add_test(tc, test_delta_unequal_variance_uses_welch_df);
	suite_add_tcase(s, tc);
	return s;
}
