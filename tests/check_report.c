/* check_report.c: human units, delta text and the table layout. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const struct {
	double v;
	const char *unit, *out;
} value_cases[] = {
	{ 591e6, "ns", "591ms" },
	{ 7.6e6, "ns", "7.60ms" },
	{ 999, "ns", "999ns" },
	{ 1500, "ns", "1.50us" },
	{ 2.5e9, "ns", "2.50s" },
	{ 4200e9, "ns", "4200s" },
	{ 0, "ns", "0ns" },
	{ 137e6, "bytes", "137MB" },
	{ 91.9e6, "bytes", "91.9MB" },
	{ 1.63e6, "bytes", "1.63MB" },
	{ 512, "bytes", "512B" },
	{ 2.51e9, NULL, "2.51G" },
	{ 22.1e6, NULL, "22.1M" },
	{ 31700, NULL, "31.7K" },
	{ 231, NULL, "231" },
	{ 0, NULL, "0" },
	{ 0.6, NULL, "0.60" },
	{ 97.33, NULL, "97.3" },
	{ 999.6, NULL, "1.00K" },
	{ 1e15, NULL, "1000T" },
};

START_TEST(test_fmt_value)
{
	char buf[32];
	report_fmt_value(value_cases[_i].v, value_cases[_i].unit, buf, sizeof(buf));
	ck_assert_str_eq(buf, value_cases[_i].out);
}
END_TEST

START_TEST(test_fmt_delta)
{
	char buf[48];
	struct lk_delta d = { .valid = true, .pct = -78.04, .half = 0.49, .verdict = DELTA_BETTER };
	report_fmt_delta(&d, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-78.0% ± 0.5%");
	d = (struct lk_delta){ .valid = true, .pct = 12.34, .half = 1.1 };
	report_fmt_delta(&d, buf, sizeof(buf));
	ck_assert_str_eq(buf, "+12.3% ± 1.1%");
	d = (struct lk_delta){ .valid = true, .pct = -0.01, .half = 0 };
	report_fmt_delta(&d, buf, sizeof(buf));
	ck_assert_str_eq(buf, "+0.0% ± 0.0%");
	d = (struct lk_delta){ .valid = false };
	report_fmt_delta(&d, buf, sizeof(buf));
	ck_assert_str_eq(buf, "n/a");
}
END_TEST

START_TEST(test_width)
{
	ck_assert_uint_eq(report_width("abc"), 3);
	ck_assert_uint_eq(report_width("mean ± σ"), 8);
	ck_assert_uint_eq(report_width("1 … 2"), 5);
	ck_assert_uint_eq(report_width("⚡ x"), 4);
	ck_assert_uint_eq(report_width("💩 x"), 4);
	ck_assert_uint_eq(report_width("\033[32mgreen\033[0m"), 5);
}
END_TEST

static char *render(bool color, bool delta)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_row rows[2] = {
		{ .name = "wall_time", .unit = "ns", .st = { .n = 9, .mean = 591e6, .sd = 7.6e6, .min = 583e6, .max = 605e6 } },
		{ .name = "inst_all", .st = { .n = 9, .mean = 3.62e9, .sd = 23.9e6, .min = 3.53e9, .max = 3.69e9, .outliers = 2 },
		  .scaled = true, .coverage = 0.625 },
	};
	if (delta) {
		rows[0].has_delta = rows[1].has_delta = true;
		rows[0].delta = (struct lk_delta){ .valid = true, .pct = -78, .half = 0.5, .verdict = DELTA_BETTER };
		rows[1].delta = (struct lk_delta){ .valid = true, .pct = 0.4, .half = 0.9 };
	}
	struct report_opts o = { .color = color };
	report_block(f, &o, delta ? 2 : 1, 9, "./build-new -O2", rows, 2);
	fclose(f);
	return buf;
}

START_TEST(test_block_plain)
{
	char *s = render(false, false);
	ck_assert_ptr_nonnull(strstr(s, "Benchmark 1 (9 runs): ./build-new -O2\n\n"));
	ck_assert_ptr_nonnull(strstr(s, "measurement   mean ± σ          min … max            outliers\n"));
	ck_assert_ptr_nonnull(strstr(s, "wall_time     591ms ± 7.60ms    583ms … 605ms        0 (0%)\n"));
	ck_assert_ptr_nonnull(strstr(s, "inst_all      3.62G ± 23.9M     3.53G … 3.69G        2 (22%)     (scaled, 62.5% counted)\n"));
	ck_assert_ptr_null(strstr(s, "\033["));
	ck_assert_ptr_null(strstr(s, "delta"));
	free(s);
}
END_TEST

START_TEST(test_block_delta)
{
	char *s = render(false, true);
	ck_assert_ptr_nonnull(strstr(s, "outliers    delta"));
	ck_assert_ptr_nonnull(strstr(s, "0 (0%)      ⚡ -78.0% ± 0.5%\n"));
	ck_assert_ptr_nonnull(strstr(s, "2 (22%)        +0.4% ± 0.9%"));
	free(s);
}
END_TEST

START_TEST(test_block_color)
{
	char *s = render(true, true);
	ck_assert_ptr_nonnull(strstr(s, "\033["));
	ck_assert_ptr_nonnull(strstr(s, "591ms"));
	free(s);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("format");
	tcase_add_loop_test(tc, test_fmt_value, 0, sizeof(value_cases) / sizeof(*value_cases));
	tcase_add_test(tc, test_fmt_delta);
	tcase_add_test(tc, test_width);
	tcase_add_test(tc, test_block_plain);
	tcase_add_test(tc, test_block_delta);
	tcase_add_test(tc, test_block_color);
	suite_add_tcase(s, tc);
	return s;
}
