/* check_report.c: human units, delta text and the table layout. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/report.h"

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

#define D(p, l, h, v) { .valid = true, .bounded = true, .pct = (p), .ci_low = (l), .ci_high = (h), .verdict = (v) }
#define N DELTA_NONE
#define B DELTA_BETTER
#define W DELTA_WORSE

/* The delta column's rules (doc/statistics.md). */
static const struct {
	struct lk_delta d;
	const char *out;
} delta_fmt_cases[] = {
	/* symmetric at one decimal: the compact form */
	{ D(-78.04, -78.53, -77.55, B), "-78.0% ± 0.5%" },
	{ D(12.34, 11.24, 13.44, W), "+12.3% ± 1.1%" },
	{ D(10, 10, 10, W), "+10.0% ± 0.0%" },
	/* symmetric before rounding is not enough: p - h and p + h must be the printed bounds */
	{ D(1.54, 1.08, 2.0, W), "+1.5% [+1.1%, +2.0%]" },
	/* asymmetric (a ratio of 4 from noisy samples) */
	{ D(300.4, 180.2, 460.9, W), "+300.4% [+180.2%, +460.9%]" },
	{ D(-96.83, -100, -84.25, B), "-96.8% [-100.0%, -84.2%]" },
	/* a change in (-0.05%, 0) keeps its sign; an exact 0 is +0.0% */
	{ D(-0.01, -0.01, -0.01, N), "-0.0% ± 0.0%" },
	{ D(-0.049, -0.3, 0.2, N), "-0.0% [-0.3%, +0.2%]" },
	{ D(0.01, -0.5, 0.5, N), "+0.0% ± 0.5%" },
	{ D(0, 0, 0, N), "+0.0% ± 0.0%" },
	{ D(-0.0, -0.0, 0, N), "+0.0% ± 0.0%" },
	/* a significant bound prints beyond +-1% however close it is: more decimals for all three */
	{ D(1.6, 1.03, 2.19, W), "+1.60% [+1.03%, +2.19%]" },
	{ D(1.3, 1.0004, 1.5996, W), "+1.3000% ± 0.2996%" },
	{ D(-1.5, -2.0, -1.01, B), "-1.50% [-2.00%, -1.01%]" },
	{ D(-1.5, -2.0, -1.0000001, B), "-1.5000000% [-2.0000000%, -1.0000001%]" },
	/* not significant: a bound at +-1.0% needs no more decimals (1.0 is not beyond 1) */
	{ D(1.5, 0.98, 2.1, N), "+1.5% [+1.0%, +2.1%]" },
	{ D(-1.5, -2.1, -0.999, N), "-1.5% [-2.1%, -1.0%]" },
	/* no interval to print */
	{ { .valid = true, .pct = 43.75, .ci_low = NAN, .ci_high = NAN }, "+43.8% [unbounded]" },
	{ { .valid = true, .pct = -0.02, .ci_low = NAN, .ci_high = NAN }, "-0.0% [unbounded]" },
	{ { .valid = false }, "n/a" },
};

START_TEST(test_fmt_delta)
{
	char buf[160];
	report_fmt_delta(&delta_fmt_cases[_i].d, buf, sizeof(buf));
	ck_assert_str_eq(buf, delta_fmt_cases[_i].out);
}
END_TEST

/* The printed numbers of a delta: estimate, then both bounds (from "p ± h" or "p [l, h]"). */
static int printed(const char *s, double *p, double *l, double *h)
{
	char *end;
	*p = strtod(s, &end);
	if (!strncmp(end, "% ± ", strlen("% ± "))) {
		double w = strtod(end + strlen("% ± "), NULL);
		*l = *p - w;
		*h = *p + w;
		return 2;
	}
	return sscanf(end, "%% [%lf%%, %lf%%]", l, h);
}

/*
 * Over many deltas around the thresholds, from compare_delta itself: the
 * glyph (the verdict) never contradicts what is printed.  Significant
 * exactly when the printed interval lies beyond +-1%; the printed
 * estimate lies within the printed bounds and has the sign of the change.
 */
START_TEST(test_fmt_delta_agrees_with_verdict)
{
	struct lk_stats ref = { .n = 5, .mean = 1000, .sd = 2, .min = 990 };
	size_t significant = 0, total = 0, finer = 0;
	for (double m = 970; m <= 1030; m += 0.0625) {
		for (double sd = 0; sd <= 8; sd += 0.5) {
			struct lk_stats cur = { .n = 5, .mean = m, .sd = sd, .min = m - 3 * sd };
			struct lk_delta d;
			compare_delta(&ref, &cur, &d);
			char buf[160];
			report_fmt_delta(&d, buf, sizeof(buf));
			double p, l, h;
			ck_assert_msg(d.bounded && printed(buf, &p, &l, &h) == 2, "%s", buf);
			bool beyond = l > DELTA_THRESHOLD_PCT || h < -DELTA_THRESHOLD_PCT;
			ck_assert_msg(beyond == (d.verdict != DELTA_NONE), "%s with verdict %d", buf, d.verdict);
			ck_assert_msg(l <= p + 1e-12 && p <= h + 1e-12, "%s", buf);
			ck_assert_msg(d.pct == 0 || (buf[0] == '-') == (d.pct < 0), "%s for %g", buf, d.pct);
			significant += d.verdict != DELTA_NONE;
			finer += strspn(strchr(buf, '.') + 1, "0123456789") > 1;
			total++;
		}
	}
	ck_assert_uint_gt(significant, total / 4);
	ck_assert_uint_lt(significant, total);
	ck_assert_uint_gt(finer, 0);	/* the sweep reaches bounds within 0.05 of +-1% */
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

static char *render_width(bool color, bool delta, size_t width)
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
		rows[0].delta = (struct lk_delta)D(-78, -78.5, -77.5, DELTA_BETTER);
		rows[1].delta = (struct lk_delta)D(0.4, -0.5, 1.3, DELTA_NONE);
	}
	struct report_opts o = { .color = color, .width = width };
	report_block(f, &o, delta ? 2 : 1, 9, "./build-new -O2", rows, 2);
	fclose(f);
	return buf;
}

static char *render(bool color, bool delta)
{
	return render_width(color, delta, 0);
}

static const struct { const char *in; size_t width, indent; const char *want; } wrap_cases[] = {
	{ "short line", 80, 4, "short line" },
	{ "no limit stays as it is, however long the line is", 0, 4,
	  "no limit stays as it is, however long the line is" },
	{ "  diagnosis  memory-bound (memory 61.0%, branch 2.0%)", 30, 13,
	  "  diagnosis  memory-bound\n             (memory 61.0%,\n             branch 2.0%)" },
	{ "aaaa bbbb cccc", 9, 2, "aaaa bbbb\n  cccc" },
	{ "aaaa bbbb cccc", 4, 0, "aaaa\nbbbb\ncccc" },
	{ "a verylongwordthatdoesnotfit b", 10, 2, "a\n  verylongwordthatdoesnotfit\n  b" },
	{ "x ⚡ -78.0% ± 1.1%", 10, 0, "x ⚡\n-78.0% ±\n1.1%" },	/* ⚡ takes two columns */
	{ "trailing   ", 5, 0, "trailing" },
};

START_TEST(test_wrap)
{
	char *got = report_wrap(wrap_cases[_i].in, wrap_cases[_i].width, wrap_cases[_i].indent);
	ck_assert_str_eq(got, wrap_cases[_i].want);
	free(got);
}
END_TEST

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

/* Terminal widths: the widest line must fit; a wide terminal gets the full form, as a pipe does. */
static const struct {
	size_t width;
	bool delta, color;
	size_t max_line;	/* the widest line (columns), as the layout should make it */
	bool stacked;		/* the delta on a line of its own */
} width_cases[] = {
	{ 200, true, false, 107, false },	/* the full form fits */
	{ 107, true, false, 107, false },
	{ 106, true, false, 96, false },	/* gaps of 2, no minimum widths */
	{ 96, true, false, 96, false },
	{ 95, true, false, 55, true },		/* delta and note under their row */
	{ 80, true, false, 55, true },
	{ 80, true, true, 55, true },		/* colour escapes take no columns */
	{ 60, true, false, 55, true },
	{ 200, false, false, 88, false },	/* no delta: the note is the tail */
	{ 88, false, false, 88, false },
	{ 87, false, false, 77, false },
	{ 85, false, false, 77, false },
	{ 76, false, false, 52, true },
};

static size_t widest(const char *s)
{
	size_t w = 0;
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (strncmp(line, "Benchmark", 9) && report_width(line) > w)
			w = report_width(line);
		p += n + (p[n] != '\0');
	}
	return w;
}

START_TEST(test_block_width)
{
	char *s = render_width(width_cases[_i].color, width_cases[_i].delta, width_cases[_i].width);
	ck_assert_msg(widest(s) == width_cases[_i].max_line, "width %zu: widest line %zu, not %zu:\n%s",
		      width_cases[_i].width, widest(s), width_cases[_i].max_line, s);
	ck_assert_uint_le(widest(s), width_cases[_i].width);
	bool stacked = strstr(s, "\n             ") != NULL;
	ck_assert_msg(stacked == width_cases[_i].stacked, "width %zu: stacked %d:\n%s", width_cases[_i].width,
		      stacked, s);
	if (width_cases[_i].width >= 107 && width_cases[_i].delta) {
		char *full = render_width(width_cases[_i].color, true, 0);
		ck_assert_str_eq(s, full);
		free(full);
	}
	free(s);
}
END_TEST

START_TEST(test_block_stacked)
{
	char *s = render_width(false, true, 80);
	ck_assert_ptr_nonnull(strstr(s, "measurement  mean ± σ        min … max      outliers\n"
					"             delta\n"));
	ck_assert_ptr_nonnull(strstr(s, "wall_time    591ms ± 7.60ms  583ms … 605ms  0 (0%)\n"
					"             ⚡ -78.0% ± 0.5%\n"));
	ck_assert_ptr_nonnull(strstr(s, "inst_all     3.62G ± 23.9M   3.53G … 3.69G  2 (22%)\n"
					"                +0.4% ± 0.9%    (scaled, 62.5% counted)\n"));
	free(s);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("format");
	tcase_add_loop_test(tc, test_fmt_value, 0, sizeof(value_cases) / sizeof(*value_cases));
	tcase_add_loop_test(tc, test_fmt_delta, 0, sizeof(delta_fmt_cases) / sizeof(*delta_fmt_cases));
	tcase_add_test(tc, test_fmt_delta_agrees_with_verdict);
	tcase_add_test(tc, test_width);
	tcase_add_loop_test(tc, test_wrap, 0, sizeof(wrap_cases) / sizeof(*wrap_cases));
	tcase_add_test(tc, test_block_plain);
	tcase_add_test(tc, test_block_delta);
	tcase_add_test(tc, test_block_color);
	tcase_add_loop_test(tc, test_block_width, 0, sizeof(width_cases) / sizeof(*width_cases));
	tcase_add_test(tc, test_block_stacked);
	suite_add_tcase(s, tc);
	return s;
}
