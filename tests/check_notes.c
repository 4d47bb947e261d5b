/*
 * check_notes.c: the JSON line of a baseline in git notes (catalog/notes.h):
 * what it encodes decodes to the same baseline (NaN samples as null, strings
 * with quotes, newlines and UTF-8), and lines that are not a baseline are
 * refused with a reason.  Lines from a merged note are read back in any order.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/notes.h"

static const double s0[3] = { 100, 101, NAN }, s1[3] = { 7, 7, 7 }, s2[2] = { 0.5, 1e-9 }, s3[2] = { 3, 4 };

static const struct {
	const char *name, *runner_class, *shell, *command, *cmd_name;
	size_t runs;
	const double *a, *b;
} cases[] = {
	{ "main", "x86_64/valgrind", NULL, "./prog 1000", NULL, 3, s0, s1 },
	{ "pr \"42\"", "ci\nrunner", "sh -c", "printf 'a\\tb'", "σ … ⚡", 2, s2, s3 },
	{ "empty", "c", NULL, "true", "n", 0, NULL, NULL },
};

static void fill(struct db_baseline *b, struct db_baseline_cmd *c, double **rows, char **meas, char **units, size_t i)
{
	rows[0] = (double *)cases[i].a;
	rows[1] = (double *)cases[i].b;
	meas[0] = "wall_time";
	meas[1] = "Ir";
	units[0] = "ns";
	units[1] = NULL;
	*c = (struct db_baseline_cmd){ .name = (char *)cases[i].cmd_name, .command = (char *)cases[i].command,
				       .runs = cases[i].runs, .samples = rows };
	*b = (struct db_baseline){ .name = (char *)cases[i].name, .runner_class = (char *)cases[i].runner_class,
				   .backend = "valgrind", .lauka_version = "0.1.0", .git_commit = NULL,
				   .shell = (char *)cases[i].shell, .fingerprint = "valgrind-3.19.0 programs:/bin/true",
				   .created_at = 1764633600, .nmeas = 2, .meas = meas, .units = units, .ncmds = 1, .cmds = c };
}

START_TEST(test_round_trip)
{
	struct db_baseline b, out;
	struct db_baseline_cmd c;
	double *rows[2];
	char *meas[2], *units[2], err[200];
	fill(&b, &c, rows, meas, units, (size_t)_i);
	char *line = notes_baseline_encode(&b);
	ck_assert_ptr_null(strchr(line, '\n'));	/* one line: notes are merged line by line */
	ck_assert_int_eq(notes_baseline_decode(line, strlen(line), &out, err, sizeof(err)), 0);
	ck_assert_str_eq(out.name, b.name);
	ck_assert_str_eq(out.runner_class, b.runner_class);
	ck_assert_str_eq(out.backend, "valgrind");
	ck_assert_str_eq(out.fingerprint, b.fingerprint);
	if (b.shell)
		ck_assert_str_eq(out.shell, b.shell);
	else
		ck_assert_ptr_null(out.shell);
	ck_assert_int_eq(out.created_at, b.created_at);
	ck_assert_int_eq(out.nmeas, 2);
	ck_assert_str_eq(out.meas[1], "Ir");
	ck_assert_str_eq(out.units[0], "ns");
	ck_assert_ptr_null(out.units[1]);
	ck_assert_int_eq(out.ncmds, 1);
	ck_assert_str_eq(out.cmds[0].command, c.command);
	if (c.name)
		ck_assert_str_eq(out.cmds[0].name, c.name);
	ck_assert_int_eq(out.cmds[0].runs, c.runs);
	for (size_t m = 0; m < 2; m++)
		for (size_t r = 0; r < c.runs; r++) {
			double want = rows[m][r], got = out.cmds[0].samples[m][r];
			if (isnan(want))
				ck_assert(isnan(got));
			else
				ck_assert(got == want);	/* exact: %.17g */
		}
	db_baseline_release(&out);
	free(line);
}
END_TEST

static const struct {
	const char *line, *why;
} bad[] = {
	{ "", "not a JSON object" },
	{ "[1,2]", "not a JSON object" },
	{ "{\"name\":\"x\"", "not a JSON object" },
	{ "{\"name\":\"x\"} trailing", "not a JSON object" },
	{ "{\"name\":\"x\",\"runner_class\":\"c\",\"backend\":\"b\"}", "no \"lauka_baseline\" key" },
	{ "{\"lauka_baseline\":2,\"name\":\"x\"}", "newer baseline format" },
	{ "{\"lauka_baseline\":1,\"name\":\"x\",\"runner_class\":\"c\",\"backend\":\"b\"}", "no measurements or commands" },
	{ "{\"lauka_baseline\":1,\"runner_class\":\"c\",\"backend\":\"b\",\"measurements\":[],\"commands\":[]}",
	  "a name, runner class or backend is missing" },
	{ "{\"lauka_baseline\":1,\"name\":\"x\",\"runner_class\":\"c\",\"backend\":\"b\",\"measurements\":[\"Ir\"],"
	  "\"commands\":[{\"command\":\"t\",\"runs\":2,\"samples\":[[1]]}]}",
	  "samples do not match its runs" },
	{ "{\"lauka_baseline\":1,\"name\":\"x\",\"runner_class\":\"c\",\"backend\":\"b\",\"measurements\":[\"Ir\"],"
	  "\"commands\":[{\"runs\":1,\"samples\":[[1]]}]}",
	  "lacks its command" },
};

START_TEST(test_refused)
{
	struct db_baseline out;
	char err[200] = "";
	ck_assert_int_eq(notes_baseline_decode(bad[_i].line, strlen(bad[_i].line), &out, err, sizeof(err)), -LK_EINVAL);
	ck_assert_msg(strstr(err, bad[_i].why), "'%s': got '%s', want '%s'", bad[_i].line, err, bad[_i].why);
}
END_TEST

/*
 * Issue 31: what anyone can push in a note.  HEAD and CMD wrap a line that
 * is valid but for the part shown; each was accepted (or crashed, or ran out
 * of memory) before the decoder checked values.
 */
#define HEAD "{\"lauka_baseline\":1,\"name\":\"x\",\"runner_class\":\"c\",\"backend\":\"b\",\"measurements\":[\"Ir\"],"
#define CMD(runs, samples) HEAD "\"commands\":[{\"command\":\"t\",\"runs\":" runs ",\"samples\":[" samples "]}]}"
static const struct {
	const char *line, *why;
} hostile[] = {
	{ CMD("1e11", "[1]"), "runs is not a whole number lauka reads" },		/* D-8: allocated 1e11 doubles */
	{ CMD("1000000", "[1]"), "samples do not match its runs" },
	{ CMD("3.9", "[1,2,3]"), "runs is not a whole number" },			/* D-10 */
	{ CMD("-1", "[]"), "lacks its command, runs or samples" },
	{ CMD("2", "[1e400,1]"), "a number is not finite" },				/* D-10: inf */
	{ CMD("2", "[-5,1]"), "a sample is negative" },
	{ CMD("2", "[1e300,1]"), "a sample is 2^64 or more" },				/* audit 5, D-11 */
	{ CMD("2", "[18446744073709551616,1]"), "a sample is 2^64 or more" },
	{ CMD("2", "[NaN,1]"), "not a JSON number" },
	{ CMD("2", "[0x10,1]"), "an array does not end" },
	{ CMD("2", "[01,1]"), "not a JSON number" },
	{ CMD("2", "[1,2],[3,4]"), "samples do not match" },
	{ HEAD "\"name\":\"y\",\"commands\":[]}", "a key appears twice" },		/* D-10: jq takes the last */
	{ CMD("2", "[1,2]") "", NULL },
	{ "{\"lauka_baseline\":1,\"name\":\"\\uZZZZ\"}", "invalid \\u escape" },	/* D-10: decoded as NUL */
	{ "{\"lauka_baseline\":1,\"name\":\"a\\u0000b\"}", "a NUL (\\u0000)" },
	{ "{\"lauka_baseline\":1,\"name\":\"\\ud800\"}", "a lone surrogate" },
	{ "{\"lauka_baseline\":1,\"name\":\"\\q\"}", "an invalid escape" },
	{ "{\"lauka_baseline\":1,\"name\":\"a\tb\"}", "a raw control character" },
	{ HEAD "\"created_at\":-1,\"commands\":[]}", "created_at is not a time" },
	{ HEAD "\"future\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]],\"commands\":[]}", "nested too deep" },
	{ HEAD "\"units\":[\"ns\",\"x\"],\"commands\":[]}", "no measurements or commands" },
};

START_TEST(test_hostile)
{
	struct db_baseline out;
	char err[200] = "";
	const char *line = hostile[_i].line;
	int r = notes_baseline_decode(line, strlen(line), &out, err, sizeof(err));
	if (!hostile[_i].why) {
		ck_assert_msg(r == 0, "'%s': %s", line, err);
		db_baseline_release(&out);
		return;
	}
	ck_assert_int_eq(r, -LK_EINVAL);
	ck_assert_msg(strstr(err, hostile[_i].why), "'%s': got '%s', want '%s'", line, err, hostile[_i].why);
}
END_TEST

/* D-7: a NUL byte inside a line refuses that line (the store keeps the others); unknown keys are skipped. */
START_TEST(test_nul_and_unknown)
{
	struct db_baseline out;
	char err[200] = "";
	static const char nul[] = "{\"lauka_baseline\":1,\"name\":\"a\0b\"}";
	ck_assert_int_eq(notes_baseline_decode(nul, sizeof(nul) - 1, &out, err, sizeof(err)), -LK_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a NUL byte"));
	const char *later = HEAD "\"later\":{\"a\":[1,null,\"s\",{\"b\":{}}]},\"commands\":[{\"command\":\"t\","
			    "\"runs\":2,\"samples\":[[null,5e3]]}]}";
	ck_assert_int_eq(notes_baseline_decode(later, strlen(later), &out, err, sizeof(err)), 0);
	ck_assert(isnan(out.cmds[0].samples[0][0]));
	ck_assert(out.cmds[0].samples[0][1] == 5000);
	db_baseline_release(&out);
}
END_TEST

/* D-9: control characters (C0, DEL, C1 in UTF-8) are shown escaped; other UTF-8 stays. */
START_TEST(test_printable)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{ "plain σ … ⚡", "plain σ … ⚡" },
		{ "a\033[2Jb", "a\\x1b[2Jb" },
		{ "t\033]0;x\007\r", "t\\x1b]0;x\\x07\\x0d" },
		{ "c1 \xc2\x9b" "31m", "c1 \\u009b31m" },
		{ "del\x7f", "del\\x7f" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		char *p = notes_printable(t[i].in);
		ck_assert_str_eq(p, t[i].want);
		free(p);
	}
}
END_TEST

extern Suite *notes_suite(void);
Suite *notes_suite(void)
{
	Suite *s = suite_create("notes");
	TCase *tc = tcase_create("notes");
	tcase_add_loop_test(tc, test_round_trip, 0, sizeof(cases) / sizeof(*cases));
	tcase_add_loop_test(tc, test_refused, 0, sizeof(bad) / sizeof(*bad));
	tcase_add_loop_test(tc, test_hostile, 0, sizeof(hostile) / sizeof(*hostile));
	tcase_add_test(tc, test_nul_and_unknown);
	tcase_add_test(tc, test_printable);
	suite_add_tcase(s, tc);
	return s;
}
