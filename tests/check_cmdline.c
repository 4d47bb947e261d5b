/* check_cmdline.c: splitting command strings without a shell. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmdline.h"

static const struct {
	const char *in;
	const char *out[6];	/* expected argv, NULL-terminated */
} ok_cases[] = {
	{ "true", { "true" } },
	{ "  ls   -l\t/tmp  ", { "ls", "-l", "/tmp" } },
	{ "echo 'a b' c", { "echo", "a b", "c" } },
	{ "echo \"a b\" 'c'd", { "echo", "a b", "cd" } },
	{ "printf '%s\\n' x", { "printf", "%s\\n", "x" } },
	{ "a\\ b c", { "a b", "c" } },
	{ "echo \"say \\\"hi\\\"\"", { "echo", "say \"hi\"" } },
	{ "echo ''", { "echo", "" } },
	{ "echo \"\"", { "echo", "" } },
	{ "sh -c 'ls | wc -l; echo $HOME'", { "sh", "-c", "ls | wc -l; echo $HOME" } },
	{ "prog --size=1e6 --mode=A", { "prog", "--size=1e6", "--mode=A" } },
	{ "echo a\\|b", { "echo", "a|b" } },
	{ "echo x#y", { "echo", "x#y" } },
};

START_TEST(test_split_ok)
{
	char **argv = NULL;
	char bad = 0;
	ck_assert_int_eq(cmdline_split(ok_cases[_i].in, &argv, &bad), CMDLINE_OK);
	size_t n = 0;
	while (ok_cases[_i].out[n])
		n++;
	for (size_t k = 0; k < n; k++) {
		ck_assert_ptr_nonnull(argv[k]);
		ck_assert_str_eq(argv[k], ok_cases[_i].out[k]);
	}
	ck_assert_ptr_null(argv[n]);
	cmdline_free(argv);
}
END_TEST

static const struct {
	const char *in;
	enum cmdline_err err;
	char bad;
} bad_cases[] = {
	{ "", CMDLINE_EMPTY, 0 },
	{ "   \t ", CMDLINE_EMPTY, 0 },
	{ "echo 'oops", CMDLINE_UNBALANCED, 0 },
	{ "echo \"oops", CMDLINE_UNBALANCED, 0 },
	{ "echo oops\\", CMDLINE_UNBALANCED, 0 },
	{ "ls | wc", CMDLINE_META, '|' },
	{ "a && b", CMDLINE_META, '&' },
	{ "a; b", CMDLINE_META, ';' },
	{ "cat < f", CMDLINE_META, '<' },
	{ "echo > f", CMDLINE_META, '>' },
	{ "echo $HOME", CMDLINE_META, '$' },
	{ "ls [ab]*.c", CMDLINE_META, '[' },
	{ "echo {a,b}", CMDLINE_META, '{' },
	{ "[ -f x ]", CMDLINE_META, '[' },
	{ "echo `id`", CMDLINE_META, '`' },
	{ "echo $(id)", CMDLINE_META, '$' },
	{ "(cd x)", CMDLINE_META, '(' },
	{ "ls *.c", CMDLINE_META, '*' },
	{ "echo \"$HOME\"", CMDLINE_META, '$' },
	{ "ls ~/x", CMDLINE_META, '~' },
	{ "echo # comment", CMDLINE_META, '#' },
};

START_TEST(test_split_bad)
{
	char **argv = (char **)1;
	char bad = 0;
	ck_assert_int_eq(cmdline_split(bad_cases[_i].in, &argv, &bad), bad_cases[_i].err);
	ck_assert_ptr_null(argv);
	if (bad_cases[_i].err == CMDLINE_META)
		ck_assert_int_eq(bad, bad_cases[_i].bad);
}
END_TEST

START_TEST(test_join_roundtrip)
{
	static const char *const inputs[] = { "ls -l", "echo 'a b' c", "printf 'it'\\''s'", "x ''", "a\\|b" };
	for (size_t i = 0; i < sizeof(inputs) / sizeof(*inputs); i++) {
		char **a = NULL, **b = NULL;
		ck_assert_int_eq(cmdline_split(inputs[i], &a, NULL), CMDLINE_OK);
		char *joined = cmdline_join(a);
		ck_assert_int_eq(cmdline_split(joined, &b, NULL), CMDLINE_OK);
		size_t k;
		for (k = 0; a[k]; k++)
			ck_assert_str_eq(a[k], b[k]);
		ck_assert_ptr_null(b[k]);
		free(joined);
		cmdline_free(a);
		cmdline_free(b);
	}
}
END_TEST

Suite *cmdline_suite(void)
{
	Suite *s = suite_create("cmdline");
	TCase *tc = tcase_create("split");
	tcase_add_loop_test(tc, test_split_ok, 0, sizeof(ok_cases) / sizeof(*ok_cases));
	tcase_add_loop_test(tc, test_split_bad, 0, sizeof(bad_cases) / sizeof(*bad_cases));
	tcase_add_test(tc, test_join_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}
