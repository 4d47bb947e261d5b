/*
 * check_callgrind.c: the callgrind output parser (backend/callgrind.h) on
 * small texts written to the format's rules (valgrind's
 * docs/callgrind-format), each case one rule, expected costs added up by
 * hand.  Real files against callgrind_annotate: tests/cli/t-explain-callgrind.sh.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/callgrind.h"
#include "base/error.h"
#include "base/util.h"

#define HDR "version: 1\ncreator: callgrind-3.19.0\npositions: line\nevents: Ir Dr Bcm\n"

static const struct {
	const char *what, *text;
	long part;
	const char *fn[3], *ob[3];
	uint64_t want[3];
} cases[] = {
	{ "plain names, costs add up per function", HDR "ob=/bin/a\nfl=a.c\nfn=f\n10 5 1\n11 7\nfn=g\n3 1 0 0\n",
	  0, { "f", "g" }, { "/bin/a", "/bin/a" }, { 12, 1 } },
	{ "compressed names: (id) name defines, (id) refers",
	  HDR "ob=(1) /bin/a\nfl=(1) a.c\nfn=(1) f\n1 4\nfn=(2) g\n1 6\nfn=(1)\n2 5\n", 0, { "f", "g" }, { "/bin/a", "/bin/a" },
	  { 9, 6 } },
	{ "the line after calls= is a call's inclusive cost, not self",
	  HDR "fl=a.c\nfn=main\n1 2\ncfn=(7) leaf\ncalls=3 10\n5 900\n6 1\nfn=(7)\n10 300\n", 0, { "main", "leaf" }, { "", "" },
	  { 3, 300 } },
	{ "calls=0 (a call still running at the dump) is a call too",
	  HDR "fl=a.c\nfn=main\ncfn=f\ncalls=0 10\n5 77\n6 2\n", 0, { "main" }, { "" }, { 2 } },
	{ "relative and repeated positions: +N, -N, *",
	  HDR "fl=a.c\nfn=f\n10 1\n+2 2\n-1 3\n* 4\n", 0, { "f" }, { "" }, { 10 } },
	{ "inlined code (fi=/fe=) stays with its function",
	  HDR "fl=a.c\nfn=f\n1 1\nfi=b.h\n2 10\nfe=a.c\n3 100\n", 0, { "f" }, { "" }, { 111 } },
	{ "Ir not first: the column is found by name",
	  "positions: line\nevents: Dr Ir\nfn=f\n1 9 4\n1 9\n", 0, { "f" }, { "" }, { 4 } },
	{ "two position columns (instr line)",
	  "positions: instr line\nevents: Ir\nfn=f\n0x10 3 7\n+4 * 8\n", 0, { "f" }, { "" }, { 15 } },
	{ "parts share the name ids; all parts add up",
	  HDR "part: 1\nob=(1) /bin/a\nfn=(4) f\n1 10\npart: 2\n" HDR "ob=(1)\nfn=(4)\n1 5\nfn=(5) g\n1 1\n", 0,
	  { "f", "g" }, { "/bin/a", "/bin/a" }, { 15, 1 } },
	{ "a part alone", HDR "part: 1\nfn=(4) f\n1 10\npart: 2\n" HDR "fn=(4)\n1 5\nfn=(5) g\n1 1\n", 2, { "f", "g" },
	  { "", "" }, { 5, 1 } },
	{ "the same function in two objects stays two rows",
	  HDR "ob=/bin/a\nfn=f\n1 1\nob=/lib/b.so\nfn=f\n1 2\n", 0, { "f", "f" }, { "/bin/a", "/lib/b.so" }, { 1, 2 } },
	{ "summary:, totals:, jump= and comments carry no self cost",
	  HDR "summary: 99\n# note\nfn=f\njump=3 +1\n1 1\ntotals: 99\n", 0, { "f" }, { "" }, { 1 } },
};

START_TEST(test_parse)
{
	struct cg_table t = { 0 }, g;
	char err[200] = "";
	ck_assert_msg(cg_parse(cases[_i].text, strlen(cases[_i].text), "Ir", cases[_i].part, &t, err, sizeof(err)) == 0,
		      "%s: %s", cases[_i].what, err);
	cg_table_group(&t, false, &g);
	size_t n = 0;
	for (; n < 3 && cases[_i].fn[n]; n++) {
		const struct cg_func *f = cg_table_find(&g, cases[_i].fn[n], cases[_i].ob[n]);
		ck_assert_msg(f, "%s: no %s in %s", cases[_i].what, cases[_i].fn[n], cases[_i].ob[n]);
		ck_assert_msg(f->cost == cases[_i].want[n], "%s: %s: %llu, want %llu", cases[_i].what, cases[_i].fn[n],
			      (unsigned long long)f->cost, (unsigned long long)cases[_i].want[n]);
	}
	size_t nonzero = 0;
	for (size_t i = 0; i < g.n; i++)
		nonzero += g.f[i].cost > 0 || cases[_i].part == 0;
	ck_assert_msg(nonzero == n, "%s: %zu rows, want %zu", cases[_i].what, nonzero, n);
	cg_table_release(&g);
	cg_table_release(&t);
}
END_TEST

static const struct {
	const char *what, *text, *err;
} bad[] = {
	{ "no events: line", "fn=f\n1 2\n", "no events: line" },
	{ "an id used before it is defined", HDR "fn=(3)\n1 2\n", "line 5: a name id used before" },
	{ "cost before any function", HDR "1 2\n", "before any fn=" },
	{ "cut short after calls=", HDR "fn=f\ncfn=g\ncalls=1 2\n", "cut short" },
	{ "a cost that is not a number", HDR "fn=f\n1 2x\n", "not a number" },
};

START_TEST(test_bad)
{
	struct cg_table t = { 0 };
	char err[200] = "";
	ck_assert_int_eq(cg_parse(bad[_i].text, strlen(bad[_i].text), "Ir", 0, &t, err, sizeof(err)), -LK_EINVAL);
	ck_assert_msg(strstr(err, bad[_i].err), "%s: '%s'", bad[_i].what, err);
	cg_table_release(&t);
}
END_TEST

/* Sorting: highest cost first, ties by name; grouping by file sums objects; the index survives growth. */
START_TEST(test_table)
{
	struct cg_table t = { 0 }, g;
	for (int i = 0; i < 1000; i++) {
		char fn[32];
		snprintf(fn, sizeof(fn), "f%d", i % 300);
		cg_table_add(&t, (i / 300) % 2 ? "a" : "b", "x.c", fn, (uint64_t)i);
	}
	ck_assert_uint_eq(t.n, 600);
	ck_assert_uint_eq(cg_table_total(&t), 999 * 1000 / 2);
	cg_table_group(&t, true, &g);
	ck_assert_uint_eq(g.n, 300);
	cg_table_sort(&g);
	/* f99 = 99 + 399 + 699 + 999 is the top: f0..f99 have four terms, f99 the largest */
	ck_assert_str_eq(g.f[0].function, "f99");
	ck_assert_uint_eq(g.f[0].cost, 99 + 399 + 699 + 999);
	for (size_t i = 1; i < g.n; i++)
		ck_assert(g.f[i - 1].cost >= g.f[i].cost);
	cg_table_release(&g);
	cg_table_release(&t);
}
END_TEST

/*
 * A part: line's number is read within its line: strtol read on into the
 * next line (its cost counted under part 1 here), and past the end of a
 * buffer that ends without a NUL (ASan).
 */
START_TEST(test_part_in_line)
{
	static const char text[] = "events: Ir\nfn=f\npart:\n1 100\n";
	struct cg_table t = { 0 }, g;
	char err[200] = "";
	ck_assert_int_eq(cg_parse(text, strlen(text), "Ir", 1, &t, err, sizeof(err)), 0);
	cg_table_group(&t, false, &g);
	const struct cg_func *f = cg_table_find(&g, "f", "");
	ck_assert_msg(!f || f->cost == 0, "the next line's number was taken for the part");
	cg_table_release(&g);
	cg_table_release(&t);
	static const char end[] = "events: Ir\npart: 12";
	char *buf = malloc(strlen(end));	/* no NUL after the last line */
	memcpy(buf, end, strlen(end));
	ck_assert_int_eq(cg_parse(buf, strlen(end), "Ir", 0, &t, err, sizeof(err)), 0);
	cg_table_release(&t);
	free(buf);
}
END_TEST

extern Suite *callgrind_suite(void);
Suite *callgrind_suite(void)
{
	Suite *s = suite_create("callgrind");
	TCase *tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse, 0, ARRAY_SIZE(cases));
	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_part_in_line);
	suite_add_tcase(s, tc);
	return s;
}
