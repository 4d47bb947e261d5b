/* check_plot.c: the SVG writer: axis arithmetic, escaping, and what the two plots must and must not contain. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/plot.h"

static const struct {
	double v[4];
	size_t n;
	int lo, hi;
} decade_cases[] = {
	{ { 2, 3, 8.5, 9 }, 4, 0, 1 },		/* valgrind's Ir responses */
	{ { 1e-6, 2 }, 2, -6, 1 },
	{ { 1 }, 1, 0, 1 },			/* exactly on a gridline: one decade above it */
	{ { 10, 0.001 }, 2, -3, 1 },		/* both ends exact */
	{ { 0, -1, NAN, INFINITY }, 4, -1, 1 },	/* nothing positive and finite */
	{ { 1e-12, 10 }, 2, -7, 1 },		/* at most 8 decades: the low end is raised */
	{ { 0.5, 0, 0.03 }, 3, -2, 0 },		/* zero is left out, not log(0) */
};

START_TEST(test_decades)
{
	int lo, hi;
	plot_log_decades(decade_cases[_i].v, decade_cases[_i].n, 8, &lo, &hi);
	ck_assert_int_eq(lo, decade_cases[_i].lo);
	ck_assert_int_eq(hi, decade_cases[_i].hi);
}
END_TEST

static const struct {
	int d;
	const char *want;
} label_cases[] = {
	{ 0, "1" }, { 1, "10" }, { 4, "10000" }, { 5, "1e5" }, { -1, "0.1" }, { -3, "0.001" }, { -4, "1e-4" },
};

START_TEST(test_decade_labels)
{
	char buf[16];
	plot_decade_label(label_cases[_i].d, buf, sizeof(buf));
	ck_assert_str_eq(buf, label_cases[_i].want);
}
END_TEST

static const struct {
	double span;
	int ticks;
	double want;
} step_cases[] = {
	{ 100, 5, 20 }, { 3, 6, 0.5 }, { 160, 6, 20 }, { 7, 6, 1 }, { 0, 6, 1 }, { 1000, 4, 200 }, { 1.2, 6, 0.2 },
};

START_TEST(test_nice_step)
{
	ck_assert_double_eq_tol(plot_nice_step(step_cases[_i].span, step_cases[_i].ticks), step_cases[_i].want, 1e-12);
}
END_TEST

/* Run a writer into memory. */
static char *capture_cal(const struct plot_cal *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(plot_calibration_svg(f, c), 0);
	fclose(f);
	return buf;
}

static char *capture_deltas(const struct plot_deltas *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(plot_deltas_svg(f, p), 0);
	fclose(f);
	return buf;
}

static void assert_clean_svg(const char *svg)
{
	ck_assert_msg(!strncmp(svg, "<?xml", 5), "no XML declaration");
	ck_assert_ptr_nonnull(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	ck_assert_ptr_nonnull(strstr(svg, "</svg>\n"));
	/* log(0) or 0/0 would print as nan/inf coordinates */
	ck_assert_msg(!strcasestr(svg, "nan") && !strcasestr(svg, "inf\""), "non-finite number in: %s", svg);
	ck_assert_ptr_null(strstr(svg, "<script"));
	ck_assert_ptr_null(strstr(svg, "@import"));
	ck_assert_ptr_null(strstr(svg, "href"));
}

static const char *const probes[] = { "alu", "chase", "branch", "store" };

START_TEST(test_calibration_svg)
{
	struct plot_cal_event ev[] = {
		{ "Ir", "validated", "work-like", true, { 2, 3, 8.5, 9 } },
		{ "Bcm", "validated", "branch-like", true, { 0, -2e-7, 0.5005, 0 } },
		{ "I1mr", "silent", "none", true, { 0, 0, 0, 0 } },
		{ "a<b&c", "off by 12%", "none", true, { 1e-4, NAN, 1, 2 } },
		{ "cycles", "unsupported", NULL, false, { NAN, NAN, NAN, NAN } },
	};
	struct plot_cal c = { .title = "calibration of 'valgrind'", .subtitle = "machine 'vm'", .probes = probes,
			      .nprobes = 4, .events = ev, .nevents = 5, .silent_below = 1e-3 };
	char *svg = capture_cal(&c);
	assert_clean_svg(svg);
	for (size_t p = 0; p < 4; p++) {
		char want[64];
		snprintf(want, sizeof(want), ">%s</text>", probes[p]);
		ck_assert_msg(strstr(svg, want), "legend lacks %s", probes[p]);
	}
	ck_assert_ptr_nonnull(strstr(svg, ">Ir</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">a&lt;b&amp;c</text>"));
	ck_assert_ptr_null(strstr(svg, "a<b"));
	ck_assert_ptr_nonnull(strstr(svg, ">not measured (unsupported)</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">off by 12%</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">branch-like</text>"));
	/* a gridline label per decade from 1e-4 to 10 */
	const char *labels[] = { ">1e-4</text>", ">0.001</text>", ">0.01</text>", ">0.1</text>", ">1</text>", ">10</text>" };
	for (size_t i = 0; i < sizeof(labels) / sizeof(*labels); i++)
		ck_assert_msg(strstr(svg, labels[i]), "no gridline label %s", labels[i]);
	/* zero and negative responses are drawn, and said to be shown as 0 */
	ck_assert_ptr_nonnull(strstr(svg, "<title>Bcm on alu: 0 per unit</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>Bcm on chase: -2e-07 per unit (shown as 0)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>Ir on branch: 8.5 per unit</title>"));
	/* a missing response draws no marker */
	ck_assert_ptr_null(strstr(svg, "a&lt;b&amp;c on chase"));
	free(svg);
}
END_TEST

START_TEST(test_calibration_svg_empty)
{
	/* nothing measured at all: still a valid picture, no log of nothing */
	struct plot_cal_event ev[] = { { "cycles", "unsupported", NULL, false, { NAN } } };
	struct plot_cal c = { .title = "t", .probes = probes, .nprobes = 1, .events = ev, .nevents = 1 };
	char *svg = capture_cal(&c);
	assert_clean_svg(svg);
	free(svg);
}
END_TEST

START_TEST(test_deltas_svg)
{
	const char *cmds[] = { "./old", "./new --x=1", "./third" };
	const char *meas[] = { "wall_time", "instructions" };
	/* The interval need not be symmetric around the estimate (Fieller). */
	struct lk_delta d[4] = {
		{ .valid = true, .bounded = true, .pct = 5, .ci_low = -10, .ci_high = 30 },
		{ .valid = true, .bounded = false, .pct = -78 },
		{ .valid = false },
		{ .valid = true, .bounded = true, .pct = 0.2, .ci_low = 0.1, .ci_high = 0.3 },
	};
	struct plot_deltas p = { .title = "record", .commands = cmds, .ncmds = 3, .measurements = meas, .nmeas = 2, .d = d };
	char *svg = capture_deltas(&p);
	assert_clean_svg(svg);
	ck_assert_ptr_nonnull(strstr(svg, ">./new --x=1</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">./old</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">wall_time</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">instructions</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "wall_time, command 2: +5.0% [-10.0%, +30.0%]</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "wall_time, command 3: -78.0%, interval unbounded</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "instructions, command 2: no delta"));
	ck_assert_ptr_nonnull(strstr(svg, "instructions, command 3: +0.2% [+0.1%, +0.3%]</title>"));
	free(svg);
}
END_TEST

START_TEST(test_escape)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	plot_xml_escape(f, "sh -c 'a < b && c > \"d\"'\x01");
	fclose(f);
	ck_assert_str_eq(buf, "sh -c &apos;a &lt; b &amp;&amp; c &gt; &quot;d&quot;&apos;?");
	free(buf);
}
END_TEST

Suite *plot_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("axis");
	tcase_add_loop_test(tc, test_decades, 0, sizeof(decade_cases) / sizeof(*decade_cases));
	tcase_add_loop_test(tc, test_decade_labels, 0, sizeof(label_cases) / sizeof(*label_cases));
	tcase_add_loop_test(tc, test_nice_step, 0, sizeof(step_cases) / sizeof(*step_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("svg");
	tcase_add_test(tc, test_calibration_svg);
	tcase_add_test(tc, test_calibration_svg_empty);
	tcase_add_test(tc, test_deltas_svg);
	tcase_add_test(tc, test_escape);
	suite_add_tcase(s, tc);
	return s;
}
