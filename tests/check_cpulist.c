/* check_cpulist.c: Linux cpulist text ("0-15,32-33", sysfs `cpus`) to CPU sets and back, malformed lists refused, intersections. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "base/cpulist.h"
#include "base/util.h"

/* Parsed and printed again: "" for the empty set, NULL when the input is refused (with err containing `why`). */
static const struct {
	const char *in, *out, *why;
	size_t count;
} lists[] = {
	{ "0-15,32-33\n", "0-15,32-33", NULL, 18 },
	{ "16-23", "16-23", NULL, 8 },
	{ "0", "0", NULL, 1 },
	{ "1\n", "1", NULL, 1 },
	{ "", "", NULL, 0 },
	{ "\n", "", NULL, 0 },
	{ "3,1,2", "1-3", NULL, 3 },			/* any order; ranges merged when printed */
	{ "0-3,2-5", "0-5", NULL, 6 },			/* overlapping */
	{ "5-5", "5", NULL, 1 },
	{ "0,2,4-6,63-64", "0,2,4-6,63-64", NULL, 7 },	/* across a word */
	{ "8191", "8191", NULL, 1 },			/* the largest accepted */
	{ "8192", NULL, "above 8191", 0 },
	{ "0-99999999999", NULL, "above 8191", 0 },
	{ "3-1", NULL, "backwards", 0 },
	{ "1-", NULL, "not a CPU number", 0 },
	{ "-1", NULL, "not a CPU number", 0 },
	{ "1,,2", NULL, "not a CPU number", 0 },
	{ ",1", NULL, "not a CPU number", 0 },
	{ "1,", NULL, "trailing comma", 0 },
	{ "a", NULL, "not a CPU number", 0 },
	{ "0x3", NULL, "not a CPU number", 0 },
	{ "1 2", NULL, "not a CPU number", 0 },
	{ " 1", NULL, "not a CPU number", 0 },
	{ "0-31:2/4", NULL, "stride", 0 },		/* bitmap_parselist reads it; sysfs never prints it */
	{ "1-2-3", NULL, "not a CPU number", 0 },
};

START_TEST(test_parse)
{
	struct lk_cpus c;
	char err[160] = "", buf[128];
	int r = cpulist_parse(lists[_i].in, &c, err, sizeof(err));
	if (!lists[_i].out) {
		ck_assert_msg(r < 0, "'%s' accepted", lists[_i].in);
		ck_assert_msg(strstr(err, lists[_i].why), "'%s': %s", lists[_i].in, err);
		ck_assert_uint_eq(cpulist_count(&c), 0);
		return;
	}
	ck_assert_msg(r == 0, "'%s': %s", lists[_i].in, err);
	ck_assert_str_eq(cpulist_format(&c, buf, sizeof(buf)), lists[_i].out);
	ck_assert_uint_eq(cpulist_count(&c), lists[_i].count);
	cpulist_release(&c);
}
END_TEST

/* The CPUs of a core type and those a process may use (its affinity, its cpuset). */
static const struct {
	const char *a, *b, *and;
} ands[] = {
	{ "16-23", "0-31", "16-23" },
	{ "16-23", "0-15", "" },		/* a cpuset without the E-cores */
	{ "0-15", "8-9,12", "8-9,12" },
	{ "1", "0", "" },
	{ "0-127", "64", "64" },		/* sets of different lengths */
	{ "", "0-3", "" },
};

START_TEST(test_and)
{
	struct lk_cpus a, b, o = { 0 };
	char err[160], buf[128];
	ck_assert_int_eq(cpulist_parse(ands[_i].a, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(cpulist_parse(ands[_i].b, &b, err, sizeof(err)), 0);
	cpulist_and(&o, &a, &b);
	ck_assert_str_eq(cpulist_format(&o, buf, sizeof(buf)), ands[_i].and);
	cpulist_and(&a, &a, &b);	/* in place */
	ck_assert(cpulist_equal(&a, &o));
	struct lk_cpus c = { 0 };
	cpulist_copy(&c, &o);
	ck_assert(cpulist_equal(&c, &o));
	cpulist_release(&a);
	cpulist_release(&b);
	cpulist_release(&c);
	cpulist_release(&o);
}
END_TEST

START_TEST(test_format_short)
{
	struct lk_cpus c;
	char err[160], buf[12];
	ck_assert_int_eq(cpulist_parse("0,2,4,6,8,10,12", &c, err, sizeof(err)), 0);
	ck_assert_str_eq(cpulist_format(&c, buf, sizeof(buf)), "0,2,4,6...");
	ck_assert(cpulist_has(&c, 12));
	ck_assert(!cpulist_has(&c, 13));
	ck_assert(!cpulist_has(&c, 4000));
	cpulist_release(&c);
}
END_TEST

extern Suite *cpulist_suite(void);
Suite *cpulist_suite(void)
{
	Suite *s = suite_create("cpulist");
	TCase *tc = tcase_create("cpulist");
	tcase_add_loop_test(tc, test_parse, 0, (int)ARRAY_SIZE(lists));
	tcase_add_loop_test(tc, test_and, 0, (int)ARRAY_SIZE(ands));
	tcase_add_test(tc, test_format_short);
	suite_add_tcase(s, tc);
	return s;
}
