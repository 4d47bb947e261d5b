/*
 * catalog/perfmon.h: Intel's perfmon event tables (github.com/intel/perfmon,
 * BSD-3-Clause; the Linux kernel's tools/perf/pmu-events use the same
 * fields) read into memory.  Pure: text in, events out, no I/O.
 *
 * The format: one JSON object with "Header" (Info, Version, ...) and
 * "Events", an array of objects whose values are strings:
 *   {"EventName": "MEM_LOAD_RETIRED.L1_HIT", "EventCode": "0xD1", "UMask": "0x01",
 *    "Counter": "0,1,2,3", "CounterHTOff": "0,1,2,3", "CounterMask": "0", "Invert": "0", ...}
 * Counter lists the programmable counters an event may use with
 * Hyper-Threading on (SKL's CounterHTOff: with it off; later tables give
 * one list, the same either way), or names its fixed counter ("Fixed
 * counter 0").  EventCode may list two codes ("0xB7, 0xBB": the two
 * offcore response MSRs); the first is kept.  Fields lauka does not read are
 * skipped; catalog/intel-*.json ship the fields it reads
 * (scripts/perfmon-compact.py derives them from Intel's files).
 */
#ifndef LAUKA_PERFMON_H
#define LAUKA_PERFMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bit of fixed counter 0 in the masks below (the kernel's INTEL_PMC_IDX_FIXED, as catalog/pfm.h). */
#define PERFMON_FIXED_BASE 32
/* Untrusted files: at most so many events (Intel's largest core file has ~1,000), names at most so long (as kpep's). */
#define PERFMON_MAX_EVENTS 65536
#define PERFMON_MAX_NAME 255

struct perfmon_event {
	char *name;		/* EventName as Intel spells it: INST_RETIRED.ANY */
	char *brief;		/* BriefDescription, or NULL (lauka's shipped tables leave it out) */
	unsigned code, umask, cmask;
	bool inv, edge, any;
	uint64_t counters;	/* Counter: bit i = general counter i, bit 32+n = fixed counter n */
	uint64_t counters_htoff;	/* CounterHTOff, or counters when the table has none */
	int fixed;		/* the fixed counter it names, or -1 */
	uint64_t msr_index, msr_value;	/* offcore response / other MSR (0: none) */
	bool offcore, deprecated;
	/*
	 * TakenAlone: "can only be sampled or counted by itself" (Intel's perfmon README); PEBS: 0 no precise
	 * record, 1 precise or not, 2 "can only be programmed as a PEBS event" (tables before Ice Lake; later ones
	 * say CollectPEBSRecord/Precise instead, and mark no event PEBS-only).
	 */
	bool taken_alone;
	unsigned pebs;
};

struct perfmon_table {
	char *info;		/* Header.Info, e.g. "... - V59", or NULL */
	char *version;		/* Header.Version, or NULL */
	struct perfmon_event *events;
	size_t n;
	unsigned gp;		/* general counters per thread, Hyper-Threading on: highest Counter + 1 */
	unsigned gp_htoff;	/* the same from CounterHTOff (= gp without it) */
	unsigned nfixed;	/* highest fixed counter named + 1 */
};

/* Parse a table; 0, or -1 with the reason ("line 12: ...") in err. */
int perfmon_parse(const char *text, size_t len, struct perfmon_table *out, char *err, size_t errlen);
void perfmon_release(struct perfmon_table *t);

/*
 * A Counter value: "0,1,2,3" -> 0xf, "Fixed counter 2" -> bit 34 (and *fixed = 2, else -1).
 * -1 for anything else (a counter above 31, junk).
 */
int perfmon_counters(const char *s, uint64_t *mask, int *fixed);

/* PERFEVTSEL bits of an event (Intel SDM 3B 18.2.1: event 0-7, umask 8-15, edge 18, any 21, inv 23, cmask 24-31). */
uint64_t perfmon_config(const struct perfmon_event *e);

/* The event named so (case-insensitive), or NULL: a bisection, the table is sorted by perfmon_parse. */
const struct perfmon_event *perfmon_find(const struct perfmon_table *t, const char *name);

#endif
