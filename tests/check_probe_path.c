/* check_probe_path.c: joining the binary's directory and the installed probe's relative path. */
#include <check.h>

#include "base/probe-path.h"

static const struct {
	const char *dir, *rel, *want;
} join_cases[] = {
	{ "/usr/local/bin", "../libexec/lauka", "/usr/local/bin/../libexec/lauka/lauka-probe" },
	{ "/work/build", ".", "/work/build/lauka-probe" },		/* the build tree: next to lauka */
	{ "/work/build", "", "/work/build/lauka-probe" },
	{ "/usr/bin", "../lib/x86_64-linux-gnu/lauka", "/usr/bin/../lib/x86_64-linux-gnu/lauka/lauka-probe" },
	{ "/x/bin", "/opt/lauka/libexec", "/opt/lauka/libexec/lauka-probe" },	/* an absolute path is taken as is */
};

START_TEST(test_join)
{
	char buf[256];
	probe_path_join(buf, sizeof(buf), join_cases[_i].dir, join_cases[_i].rel, "lauka-probe");
	ck_assert_str_eq(buf, join_cases[_i].want);
}
END_TEST

Suite *probe_path_suite(void)
{
	Suite *s = suite_create("probe_path");
	TCase *tc = tcase_create("join");
	tcase_add_loop_test(tc, test_join, 0, sizeof(join_cases) / sizeof(*join_cases));
	suite_add_tcase(s, tc);
	return s;
}
