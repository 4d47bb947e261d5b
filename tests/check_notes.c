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

extern Suite *notes_suite(void);
Suite *notes_suite(void)
{
	Suite *s = suite_create("notes");
	TCase *tc = tcase_create("notes");
	tcase_add_loop_test(tc, test_round_trip, 0, sizeof(cases) / sizeof(*cases));
	tcase_add_loop_test(tc, test_refused, 0, sizeof(bad) / sizeof(*bad));
	suite_add_tcase(s, tc);
	return s;
}
