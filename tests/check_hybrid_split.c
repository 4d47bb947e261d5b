/*
 * check_hybrid_split.c: calibration passes on a hybrid Intel CPU: which core PMU counts an event
 * (perf_hybrid_index: the extended type of a generic event, a raw or sysfs event's perf_type) and
 * the plan that never puts two core PMUs' events in one pass (sched_passes_parts).  Pure tables.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend/perf-events.h"
#include "catalog/sched.h"
#include "base/util.h"

/* cpu_core registers PERF_TYPE_RAW (4), cpu_atom a dynamic type (10 on Alder Lake). */
static const struct perf_hybrid_pmu alder[] = { { "cpu_core", 4 }, { "cpu_atom", 10 } };

static const struct {
	const char *what;
	uint32_t type;
	uint64_t config;
	int index;	/* into alder[], -1: none */
} index_cases[] = {
	{ "cycles: HARDWARE without a PMU is PERF_TYPE_RAW's, the P-cores'", 0, 0, 0 },
	{ "cpu_core/cycles/: extended type 4", 0, UINT64_C(4) << 32, 0 },
	{ "cpu_atom/cycles/: extended type 10", 0, UINT64_C(10) << 32, 1 },
	{ "cpu_atom/L1-dcache-load-misses/: HW_CACHE with extended type 10", 3, UINT64_C(10) << 32 | 0x10000, 1 },
	{ "L1-dcache-loads: HW_CACHE without a PMU", 3, 0, 0 },
	{ "a P-core vendor event: PERF_TYPE_RAW", 4, 0x00c0, 0 },
	{ "an E-core vendor event bound to cpu_atom's type", 10, 0x00c0, 1 },
	{ "cpu_atom/instructions/ from sysfs: cpu_atom's type", 10, 0x00c0, 1 },
	{ "task-clock: software", 1, 1, -1 },
	{ "a tracepoint", 2, 300, -1 },
	{ "a breakpoint", 5, 0, -1 },
	{ "msr/tsc/: another PMU's type", 9, 0, -1 },
	{ "a generic event whose extended type is no core PMU", 0, UINT64_C(9) << 32, -1 },
};

START_TEST(test_index)
{
	struct lk_event ev = { .name = (char *)"e", .perf_type = index_cases[_i].type,
			       .number = index_cases[_i].config, .fixed_counter = -1 };
	ck_assert_msg(perf_hybrid_index(&ev, alder, ARRAY_SIZE(alder)) == index_cases[_i].index, "%s",
		      index_cases[_i].what);
	/* no hybrid CPU: no event belongs to a core PMU, so the plan is today's */
	ck_assert_int_eq(perf_hybrid_index(&ev, alder, 0), -1);
}
END_TEST

/*
 * Events on a PMU of two counters (mask 0x3), or unconstrained (mask 0: perf's generic and
 * software events); part per event: "c" cpu_core (0), "a" cpu_atom (1), "s" none (software).
 */
static const struct {
	const char *what;
	const char *parts;	/* one letter per event */
	const char *masks;	/* one per event: '3' constrained to counters 0-1, '0' unconstrained */
	int host;
	const char *pass_of;	/* expected pass per event, one digit each */
	const char *pass_part;	/* expected part per pass: 'c', 'a', '-' */
} split_cases[] = {
	{ "no hybrid CPU: sched_passes as it is", "sssss", "33333", -1, "01201", "---" },
	{ "perf's generic events: one pass per core type, software with the first", "cacsas", "000000", 0, "010010", "ca" },
	{ "software with cpu_atom (cpu_core cannot run here)", "cacsas", "000000", 1, "010111", "ca" },
	{ "no core type can run here: software in a pass of its own", "cacsas", "000000", -1, "121020", "-ca" },
	{ "each core type planned as today: three cpu_core events take two passes", "cccaas", "333330", 0,
	  "010220", "cca" },
	{ "interleaved: each core type's events planned together", "acacac", "333333", 0, "203120", "ccaa" },
	{ "cpu_atom only", "aas", "330", 1, "000", "a" },
	{ "nothing", "", "", 0, "", "" },
};

START_TEST(test_split)
{
	const char *parts = split_cases[_i].parts, *masks = split_cases[_i].masks;
	size_t n = strlen(parts);
	struct lk_pmu p = { 0 };
	p.config_mask = 0x3;
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%c%u", parts[i], (unsigned)i);
		struct lk_event e = { .name = name, .counters_mask = masks[i] == '3' ? 0x3 : 0, .fixed_counter = -1 };
		pmu_add_event(&p, &e);
	}
	const struct lk_event *evs[16] = { 0 };
	int part[16] = { 0 };
	size_t pass_of[16] = { 0 };
	int pass_part[16] = { 0 };
	for (size_t i = 0; i < n; i++) {
		evs[i] = &p.events[i];
		part[i] = parts[i] == 'c' ? 0 : parts[i] == 'a' ? 1 : -1;
	}
	size_t np = sched_passes_parts(&p, evs, part, n, split_cases[_i].host, pass_of, pass_part);
	char got[17] = "", gotp[17] = "";
	for (size_t i = 0; i < n; i++)
		got[i] = (char)('0' + pass_of[i]);
	for (size_t q = 0; q < np; q++)
		gotp[q] = pass_part[q] == 0 ? 'c' : pass_part[q] == 1 ? 'a' : '-';
	ck_assert_msg(!strcmp(got, split_cases[_i].pass_of), "%s: passes %s", split_cases[_i].what, got);
	ck_assert_msg(!strcmp(gotp, split_cases[_i].pass_part), "%s: parts %s", split_cases[_i].what, gotp);
	/* the rule itself: no pass holds events of two core PMUs */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (part[i] >= 0 && part[j] >= 0 && part[i] != part[j])
				ck_assert_uint_ne(pass_of[i], pass_of[j]);
	pmu_release(&p);
}
END_TEST

extern Suite *hybrid_split_suite(void);
Suite *hybrid_split_suite(void)
{
	Suite *s = suite_create("hybrid_split");
	TCase *tc = tcase_create("hybrid_split");
	tcase_add_loop_test(tc, test_index, 0, (int)ARRAY_SIZE(index_cases));
	tcase_add_loop_test(tc, test_split, 0, (int)ARRAY_SIZE(split_cases));
	suite_add_tcase(s, tc);
	return s;
}
