/*
 * check_pmu.c: pmu_remove_if, the one way rows leave a catalogue (the vendor tables' dropped
 * and merged rows): which rows and aliases stay, in what order, asked of each row at its place.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/pmu.h"
#include "base/util.h"
#include "test-pmu.h"

/* What the predicate sees: row i must still be at its place (drop is asked before any row moves). */
struct drop_ctx {
	const char *drop;	/* '1' at index i: drop row i */
	const char *const *names;	/* the rows' names before, by index */
	int moved;
};

static bool drop_marked(const struct lk_event *ev, size_t i, void *ctx)
{
	struct drop_ctx *c = ctx;
	if (strcmp(ev->name, c->names[i]))
		c->moved = 1;
	return c->drop[i] == '1';
}

#define MAXN 8

static const struct {
	const char *what;
	bool sort;			/* pmu_sort the catalogue first */
	const char *events[MAXN];	/* names, in the order added */
	const char *aliases[MAXN][2];	/* alias, target */
	const char *drop;		/* by index of events[] as added, '1' = drop */
	size_t gone;
	const char *kept;		/* the rows left, in order, space-separated */
	const char *kept_aliases;	/* "alias>target ..." in their order */
} cases[] = {
	{ "nothing dropped", false, { "B", "A", "C" }, { { "a1", "A" }, { "c1", "C" } }, "000", 0, "B A C",
	  "a1>A c1>C" },
	{ "a middle row and its alias; others keep their order", false, { "B", "A", "C" },
	  { { "a1", "A" }, { "c1", "C" }, { "b1", "B" } }, "010", 1, "B C", "c1>C b1>B" },
	{ "every row: every alias", false, { "A", "B" }, { { "x", "A" }, { "y", "B" } }, "11", 2, "", "" },
	{ "two aliases of one dropped row go, a kept row's stay", false, { "A", "B", "C" },
	  { { "b1", "B" }, { "a1", "A" }, { "b2", "B" }, { "c1", "C" } }, "010", 1, "A C", "a1>A c1>C" },
	{ "a dropped row's name as an alias of a kept row stays (a merged row)", false, { "KEEP", "GONE" },
	  { { "GONE", "KEEP" }, { "g2", "GONE" } }, "01", 1, "KEEP", "GONE>KEEP" },
	{ "an alias naming no event was none of the removal's: it stays", false, { "A", "B" },
	  { { "d", "NOWHERE" }, { "b", "B" } }, "01", 1, "A", "d>NOWHERE" },
	{ "a name a kept row has too still leads somewhere: its alias stays", false, { "A", "A", "B" },
	  { { "a1", "A" } }, "100", 1, "A B", "a1>A" },
	{ "a sorted catalogue stays sorted", true, { "D", "B", "A", "C" }, { { "c1", "C" }, { "b1", "B" } }, "0101",
	  2, "A C", "c1>C" },
	{ "the first and the last", false, { "A", "B", "C", "D" }, { { "d1", "D" }, { "b1", "B" } }, "1001", 2, "B C",
	  "b1>B" },
	{ "no rows", false, { NULL }, { { "x", "A" } }, "", 0, "", "x>A" },
};

START_TEST(test_remove_if)
{
	struct lk_pmu p;
	test_pmu(&p, "pfm", "t", NULL, 0, 0);
	for (size_t i = 0; i < MAXN && cases[_i].events[i]; i++) {
		struct lk_event e = { .name = (char *)cases[_i].events[i], .description = "d", .errata = "e",
				      .fixed_counter = -1, .number = i };
		pmu_add_event(&p, &e);
	}
	for (size_t i = 0; i < MAXN && cases[_i].aliases[i][0]; i++)
		pmu_add_alias(&p, cases[_i].aliases[i][0], cases[_i].aliases[i][1]);
	if (cases[_i].sort)
		pmu_sort(&p);
	const char *names[MAXN + 1] = { 0 };
	for (size_t i = 0; i < p.nevents; i++)
		names[i] = xstrdup(p.events[i].name);
	/* a sorted catalogue's drop string is by its sorted order */
	struct drop_ctx c = { cases[_i].drop, names, 0 };
	size_t gone = pmu_remove_if(&p, drop_marked, &c);
	ck_assert_msg(!c.moved, "%s: a row moved before drop was asked of it", cases[_i].what);
	ck_assert_msg(gone == cases[_i].gone, "%s: %zu gone, want %zu", cases[_i].what, gone, cases[_i].gone);
	struct strbuf kept = STRBUF_INIT, al = STRBUF_INIT;
	for (size_t i = 0; i < p.nevents; i++)
		strbuf_addf(&kept, "%s%s", i ? " " : "", p.events[i].name);
	for (size_t i = 0; i < p.naliases; i++)
		strbuf_addf(&al, "%s%s>%s", i ? " " : "", p.aliases[i].alias, p.aliases[i].target);
	ck_assert_msg(!strcmp(strbuf_str(&kept), cases[_i].kept), "%s: rows '%s', want '%s'", cases[_i].what,
		      strbuf_str(&kept), cases[_i].kept);
	ck_assert_msg(!strcmp(strbuf_str(&al), cases[_i].kept_aliases), "%s: aliases '%s', want '%s'", cases[_i].what,
		      strbuf_str(&al), cases[_i].kept_aliases);
	/* the kept rows are whole: strings and numbers as added */
	for (size_t i = 0; i < p.nevents; i++) {
		ck_assert_str_eq(p.events[i].description, "d");
		ck_assert_str_eq(p.events[i].errata, "e");
		ck_assert_msg(!strcmp(cases[_i].events[p.events[i].number], p.events[i].name), "%s: row %s's number moved",
			      cases[_i].what, p.events[i].name);
	}
	if (cases[_i].sort) {
		char why[256];
		ck_assert_msg(p.sorted, "%s: no longer marked sorted", cases[_i].what);
		ck_assert_msg(pmu_validate(&p, why, sizeof(why)) == 0, "%s: %s", cases[_i].what, why);
		ck_assert_ptr_nonnull(pmu_find_exact(&p, "C"));
	}
	strbuf_release(&kept);
	strbuf_release(&al);
	for (size_t i = 0; i < MAXN; i++)
		free((char *)names[i]);
	pmu_release(&p);
}
END_TEST

extern Suite *pmu_suite(void);
Suite *pmu_suite(void)
{
	Suite *s = suite_create("pmu");
	TCase *tc = tcase_create("remove_if");
	tcase_add_loop_test(tc, test_remove_if, 0, (int)ARRAY_SIZE(cases));
	suite_add_tcase(s, tc);
	return s;
}
