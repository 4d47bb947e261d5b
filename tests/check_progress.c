/* check_progress.c: the ETA text of the progress line. */
#include <check.h>
#include <string.h>

#include "base/progress.h"

static const struct {
	double elapsed, done, total;
	const char *want;
} eta_cases[] = {
	{ 0, 0, 10, "" },		/* nothing finished: no guess */
	{ 5, 10, 10, "" },		/* all done */
	{ 1, 1, 10, "ETA 9s" },		/* 1 s per unit, 9 left */
	{ 0.5, 2, 3, "ETA 1s" },	/* 0.25 s left rounds up: never "0s" while work remains */
	{ 30, 1, 4, "ETA 1m30s" },
	{ 10, 1, 400, "ETA 1h06m" },	/* 3990 s */
	{ -1, 1, 2, "" },		/* a clock that went backwards gives no estimate */
};

START_TEST(test_eta_table)
{
	char buf[32];
	progress_fmt_eta(eta_cases[_i].elapsed, eta_cases[_i].done, eta_cases[_i].total, buf, sizeof(buf));
	ck_assert_str_eq(buf, eta_cases[_i].want);
}
END_TEST

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("eta");
	tcase_add_loop_test(tc, test_eta_table, 0, sizeof(eta_cases) / sizeof(*eta_cases));
	suite_add_tcase(s, tc);
	return s;
}
