/*
 * check_valgrind.c: the valgrind backend's pure parts: the embedded event
 * list, the parser of callgrind (and cachegrind) output files and the cmd:
 * line check, against real files in tests/fixtures/valgrind/ (the expected
 * sums of callgrind-parts.out were added up with awk, not with lauka).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/valgrind.h"
#include "base/error.h"
#include "base/util.h"

static const char *const all13[] = { "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw",
				     "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim" };

static char *fixture(const char *name, size_t *len)
{
	char path[1024], *buf = NULL;
	snprintf(path, sizeof(path), "%s/tests/fixtures/valgrind/%s", LAUKA_SRCDIR, name);
	ck_assert_msg(lk_read_file(path, 1 << 24, &buf, len) == 0, "cannot read %s", path);
	return buf;
}

static const struct {
	const char *file;
	const char *names[4];
	uint64_t want[4];
	uint64_t missing;
} parse_cases[] = {
	/* cachegrind: the summary line, zipped with events by name, any order */
	{ "cachegrind-alu.out", { "Ir", "Bc", "Bim", "D1mr" }, { 2110994, 1020148, 176, 1212 }, 0 },
	{ "cachegrind-alu.out", { "DLmw", "Ir", NULL }, { 351, 2110994 }, 0 },
	/* callgrind orders events differently; its summary: is the part's total
	 * (its totals: line, the sum of the cost lines, is 2 Ir and 1 I1mr short) */
	{ "callgrind.out", { "Ir", "I1mr", "D1mr", "Bcm" }, { 230132862, 1290, 9990975, 9972225 }, 0 },
	/* one part per dump (5 here: 2 forks, 2 dump points each, and the exit),
	 * summed; callgrind omits trailing zeros ("summary: 42 11 14 5 2 0 5 2 0 3 1") */
	{ "callgrind-parts.out", { "Ir", "Dw", "Bi", "Bim" }, { 114796, 13053, 290, 160 }, 0 },
	{ "callgrind-parts.out", { "D1mr", "DLmw", "Bc", "Bcm" }, { 945, 535, 21205, 2733 }, 0 },
	{ "callgrind-child.out", { "Ir", "Dr", "Bcm", "Bim" }, { 739, 254, 7, 2 }, 0 },
	/* 10 signals handled: summary: lacks the handlers' work, totals: has it
	 * (and lacks the final block's 2 Ir and 1 I1mr): each event takes the larger */
	{ "callgrind-signals.out", { "Ir", "I1mr", "D1mr", "Bc" }, { 121249, 1113, 947, 22239 }, 0 },
	{ "callgrind-signals.out", { "Dr", "Dw", "ILmr", "Bcm" }, { 26733, 14141, 1095, 2745 }, 0 },
	/* --cache-sim=no: only Ir exists; the others are missing, not zero */
	{ "nosim.out", { "Ir", "D1mr", "Bcm", NULL }, { 2109506, 0, 0 }, 0x6 },
};

START_TEST(test_parse_table)
{
	size_t len, n = 0;
	char *buf = fixture(parse_cases[_i].file, &len);
	while (n < 4 && parse_cases[_i].names[n])
		n++;
	uint64_t sums[4] = { 0 }, missing = 0;
	char err[256] = "";
	ck_assert_int_eq(valgrind_parse_out(buf, len, parse_cases[_i].names, n, sums, &missing, err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(sums[i] == parse_cases[_i].want[i], "%s %s: got %llu want %llu", parse_cases[_i].file,
			      parse_cases[_i].names[i], (unsigned long long)sums[i],
			      (unsigned long long)parse_cases[_i].want[i]);
	ck_assert_uint_eq(missing, parse_cases[_i].missing);
	free(buf);
}
END_TEST

/* Per-process files are summed: parsing twice adds. */
START_TEST(test_parse_sums)
{
	size_t len;
	char *buf = fixture("cachegrind-alu.out", &len);
	uint64_t sums[13] = { 0 };
	char err[256];
	ck_assert_int_eq(valgrind_parse_out(buf, len, all13, 13, sums, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(valgrind_parse_out(buf, len, all13, 13, sums, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(sums[0], 2 * 2110994ull);
	ck_assert_uint_eq(sums[12], 2 * 176ull);
	free(buf);
}
END_TEST

static const struct {
	const char *file, *why;
} bad_cases[] = {
	{ "garbage.out", "no 'events:' line" },
	{ "truncated.out", "no 'summary:' line" },
	{ "short.out", "fewer numbers" },
	/* the last part's totals: line is missing: a file cut short (disk full) */
	{ "callgrind-cut.out", "cut short: 5 parts but 4 'totals:' lines" },
	{ "empty.out", "no 'events:' line" },
};

START_TEST(test_parse_bad)
{
	size_t len;
	char *buf = fixture(bad_cases[_i].file, &len);
	uint64_t sums[13] = { 0 };
	char err[256] = "";
	ck_assert_int_eq(valgrind_parse_out(buf, len, all13, 13, sums, NULL, err, sizeof(err)), -LK_EINVAL);
	ck_assert_msg(strstr(err, bad_cases[_i].why), "%s: '%s'", bad_cases[_i].file, err);
	for (size_t i = 0; i < 13; i++)
		ck_assert_uint_eq(sums[i], 0);
	free(buf);
}
END_TEST

/* The cmd: line names the program the process was when it exited. */
START_TEST(test_cmd_line)
{
	size_t len;
	char *buf = fixture("callgrind-parts.out", &len);
	char *cmd = valgrind_out_cmd(buf, len);
	ck_assert_str_eq(cmd, "./forker 1000 2");
	char *const same[] = { "./forker", "1000", "2", NULL };
	char *joined = valgrind_join_argv(same);
	ck_assert_str_eq(joined, cmd);
	free(joined);
	/* an argument with spaces is written unquoted, as valgrind does */
	char *const spaced[] = { "forker", "a  b", "c", NULL };
	joined = valgrind_join_argv(spaced);
	ck_assert_str_eq(joined, "forker a  b c");
	free(joined);
	char *const newline[] = { "sh", "-c", "a\nb", NULL };
	ck_assert_ptr_null(valgrind_join_argv(newline));
	free(cmd);
	free(buf);
	ck_assert_ptr_null(valgrind_out_cmd("events: Ir\nsummary: 1\n", 21));
}
END_TEST

/* The padding fills the first stack's strings (exe, LAUKA_PAD=, environment, arguments, each with its NUL) to 4096. */
static char *const env1[] = { "A=1", NULL }, *const env2[] = { "A=1", "HOME=/home/someone", NULL };
static char *const argv1[] = { "x", NULL }, *const argv2[] = { "x", "alu", "1000", NULL };
static const struct {
	char *const *env, *const *argv;
	const char *exe;
	size_t pad;
} pad_cases[] = {
	{ env1, argv1, "/x", 4096 - (3 + 11 + 4 + 2) },
	{ env2, argv1, "/x", 4096 - (3 + 11 + 4 + 19 + 2) },
	{ env1, argv2, "/usr/bin/x", 4096 - (11 + 11 + 4 + 2 + 4 + 5) },
	{ env1, argv1, "/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 4096 - (244 + 11 + 4 + 2) },
};

START_TEST(test_pad)
{
	size_t pad = valgrind_pad_len(pad_cases[_i].env, pad_cases[_i].argv, pad_cases[_i].exe);
	ck_assert_uint_eq(pad, pad_cases[_i].pad);
}
END_TEST

/* Only the events of a simulator turn it on: Ir alone runs without either. */
START_TEST(test_sims)
{
	static const char *const cache[] = { "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw" };
	static const char *const branch[] = { "Bc", "Bcm", "Bi", "Bim" };
	ck_assert(!valgrind_needs_cache_sim("Ir") && !valgrind_needs_branch_sim("Ir"));
	for (size_t i = 0; i < ARRAY_SIZE(cache); i++)
		ck_assert(valgrind_needs_cache_sim(cache[i]) && !valgrind_needs_branch_sim(cache[i]));
	for (size_t i = 0; i < ARRAY_SIZE(branch); i++)
		ck_assert(valgrind_needs_branch_sim(branch[i]) && !valgrind_needs_cache_sim(branch[i]));
}
END_TEST

START_TEST(test_catalog)
{
	struct lk_pmu pmu;
	char err[256];
	ck_assert_int_eq(valgrind_catalog(&pmu, err, sizeof(err)), 0);
	ck_assert_str_eq(pmu.kind, "valgrind");
	ck_assert_str_eq(pmu.name, "valgrind");
	ck_assert_uint_eq(pmu.nevents, 13);
	for (size_t i = 0; i < 13; i++) {
		ck_assert_str_eq(pmu.events[i].name, all13[i]);
		ck_assert_uint_eq(pmu.events[i].number, i);
		ck_assert_ptr_nonnull(pmu.events[i].description);
		ck_assert_uint_gt(strlen(pmu.events[i].description), 10);
	}
	static const char *const alias[][2] = {
		{ "instructions", "Ir" }, { "branch-misses", "Bcm" }, { "BRANCHES", "Bc" },
		{ "cache-misses", "DLmr" }, { "L1-dcache-load-misses", "D1mr" }, { "ir", "Ir" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(alias); i++) {
		const struct lk_event *ev = pmu_find(&pmu, alias[i][0]);
		ck_assert_msg(ev != NULL, "%s", alias[i][0]);
		ck_assert_str_eq(ev->name, alias[i][1]);
	}
	pmu_release(&pmu);
}
END_TEST

extern Suite *valgrind_suite(void);
Suite *valgrind_suite(void)
{
	Suite *s = suite_create("valgrind");
	TCase *tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse_table, 0, ARRAY_SIZE(parse_cases));
	tcase_add_test(tc, test_parse_sums);
	tcase_add_loop_test(tc, test_parse_bad, 0, ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_cmd_line);
	tcase_add_test(tc, test_catalog);
	tcase_add_loop_test(tc, test_pad, 0, ARRAY_SIZE(pad_cases));
	tcase_add_test(tc, test_sims);
	suite_add_tcase(s, tc);
	return s;
}
